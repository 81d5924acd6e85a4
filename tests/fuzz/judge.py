"""How the fuzzer judges one call: run it under a time and memory limit, then decide.

ember may refuse a call with a clear error, or answer it. With torch installed the same call
runs there too and the two outcomes must agree: both refuse, or both answer alike (shape,
dtype, values, and what an in-place op did to its inputs). ember answering what torch refuses
is a finding unless torch's refusal is only a missing kernel of its own. Without torch, ember's
refusals must still be clear and its answers well formed.

A refusal is clear when it is one of the exception types PyTorch users catch, carries a message,
and was raised by ember rather than leaked from NumPy or from Python's own machinery.
"""

from __future__ import annotations

import contextlib
import math
import operator
import re
import resource
import signal
import traceback
import warnings

import numpy as np

import ember
from tests import _oracle
from tests._oracle import torch

CLEAR = (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError, MemoryError, OverflowError)
SECONDS_PER_CALL = 10
HEADROOM_BYTES = 2 << 30  # address space a call may take beyond what the process already has

# Messages that say the error came from NumPy or Python internals, not from ember's own checks.
LEAKED = re.compile(
    "|".join((
        r"array is too big", r"operands could not be broadcast together", r"is out of bounds for array of dimension",
        r"cannot reshape array of size", r"Cannot cast ufunc", r"^ufunc '", r"setting an array element with a sequence",
        r"too many indices for array", r"could not broadcast input array", r"negative dimensions are not allowed",
        r"maximum supported dimension for an ndarray", r"object is not subscriptable", r"object is not iterable",
        r"unsupported operand type", r"has no len\(\)", r"not supported between instances of",
        r"object cannot be interpreted as an integer", r"Python int too large to convert", r"unhashable type", r"Errno", r"^int too large to convert to float", r"zero-size array to reduction operation", r"^axis \d+ is out of bounds",
    ))
)  # fmt: skip
# torch refusing for want of a kernel of its own is no reason for ember to refuse
TORCH_LIMITS = re.compile(
    r"not implemented for|not supported|Unsupported|does not support|is not implemented|Could not run|promot|doesn't handle types|ill-conditioned or has too many repeated",
    re.I,
)


class Hang(BaseException):
    """A call that ran past SECONDS_PER_CALL: a BaseException, so no ``except Exception`` in the
    code under test swallows it (and the timer fires again every second until one gets out)."""


@contextlib.contextmanager
def limits():
    """Fail a call that hangs, and one that would take the machine's memory, instead of
    waiting on it; both limits go back to what they were afterwards."""

    active = [True]

    def expire(signum, frame):
        if active[0]:  # once the call is over, a late tick has nothing to stop
            raise Hang(f"no answer within {SECONDS_PER_CALL} s")

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _address_space() + HEADROOM_BYTES
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, SECONDS_PER_CALL, 1.0)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        active[0] = False
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _address_space() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 1 << 40


def run(fn, args, kwargs):
    """``("ok", result)`` or ``("error", exception)``; a hang is an error of its own type."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with limits(), np.errstate(all="ignore"):
                return "ok", fn(*args, **kwargs)
        except Hang as exc:
            return "error", exc
        except Exception as exc:  # judged below: the point is to see every kind
            return "error", exc


def unclear(exc: BaseException, torch_exc: BaseException | None = None) -> str | None:
    """Why ember's refusal is not a clear error, or None when it is."""
    if isinstance(exc, Hang):
        return f"hang: {exc}"
    kind = type(exc).__name__
    if type(exc).__module__.startswith("numpy"):
        return f"NumPy's {kind} leaked: {exc}"
    if not isinstance(exc, CLEAR) and not (torch_exc is not None and type(exc) is type(torch_exc)):
        return f"raised {kind}: {exc}"
    message = str(exc)
    if not message.strip():
        return f"{kind} with an empty message"
    if LEAKED.search(message):
        return f"internal message leaked: {kind}: {message[:200]}"
    frames = traceback.extract_tb(exc.__traceback__)
    if frames and "/numpy/" in frames[-1].filename:  # Python's own "f() missing 1 required argument" names f: clear
        return f"raised inside NumPy ({frames[-1].filename.rsplit('/numpy/', 1)[1]}): {kind}: {message[:200]}"
    return None


def torch_limitation(exc: BaseException) -> bool:
    return bool(TORCH_LIMITS.search(str(exc)))


# ---------------------------------------------------------------------------------------
# comparing answers


# The oracle's tolerances, loosened fourfold in both terms: drawn edge values (near-cancelling
# sums, values next to zero) meet different summation orders in the two libraries.
TOLERANCE = {name: (4 * rtol, 4 * atol) for name, (rtol, atol) in _oracle.TOLERANCE.items()}
LARGE = 1 << 20  # results past this many elements are compared by metadata only


def differ(result, expected, *, values: bool = True, loose: bool = False) -> str | None:
    """How ember's ``result`` differs from torch's ``expected``, or None."""
    if torch is not None and isinstance(expected, torch.Tensor):
        if not isinstance(result, ember.Tensor):
            return f"returned {type(result).__name__} where torch returns a Tensor"
        if tuple(result.shape) != tuple(expected.shape):
            return f"shape {tuple(result.shape)} vs torch {tuple(expected.shape)}"
        want_dtype = str(expected.dtype).removeprefix("torch.")
        if result.dtype.name != want_dtype:
            return f"dtype {result.dtype.name} vs torch {want_dtype}"
        if not values or result.numel() > LARGE or result.numel() == 0:
            return None
        return _values_differ(result.detach().numpy(), _torch_numpy(expected), loose)
    if isinstance(expected, (tuple, list)):
        if not isinstance(result, (tuple, list)):
            return f"returned {type(result).__name__} where torch returns a sequence"
        if len(result) != len(expected):
            return f"{len(result)} results vs torch's {len(expected)}"
        for i, (r, e) in enumerate(zip(result, expected, strict=True)):
            why = differ(r, e, values=values, loose=loose)
            if why:
                return f"result {i}: {why}"
        return None
    if expected is None or isinstance(expected, (bool, int, float, complex)):
        if isinstance(result, ember.Tensor) and result.ndim == 0:
            result = result.item()
        if type(result) is not type(expected) and not (isinstance(result, (int, float)) and isinstance(expected, (int, float))):
            return f"returned {type(result).__name__} {result!r} where torch returns {type(expected).__name__} {expected!r}"
        same = result == expected or (isinstance(expected, float) and math.isnan(expected) and math.isnan(result))
        return None if same or not values else f"{result!r} vs torch {expected!r}"
    return None  # torch.Size, dtypes, strings: the comparisons above cover what ember returns


def _torch_numpy(t) -> np.ndarray:
    t = t.detach().resolve_conj().resolve_neg()
    if t.layout != torch.strided:
        t = t.to_dense()
    if t.dtype == torch.bfloat16:
        return t.float().numpy()
    return t.contiguous().numpy()


def _values_differ(got: np.ndarray, want: np.ndarray, loose: bool) -> str | None:
    name = got.dtype.name if got.dtype.kind in "fcV" else want.dtype.name  # the result's precision sets the tolerance
    if got.dtype.kind == "V" or got.dtype.name == "bfloat16":
        got = got.astype(np.float32)
    if want.dtype.kind in "fc" or got.dtype.kind in "fc":
        rtol, atol = TOLERANCE.get(name, (1e-5, 1e-6))
        if loose:
            finite = np.abs(want[np.isfinite(want)]) if want.dtype.kind in "fc" else np.abs(want)
            scale = float(finite.max()) if finite.size else 0.0
            rtol, atol = max(rtol, 1e-3), max(atol, 1e-3 * scale, 1e-4)
        bad = ~_close(got, want, rtol, atol)
        if loose or name in ("float16", "bfloat16"):
            # past half precision's range nan and inf are both overflow; inside LAPACK and BLAS, how an
            # inf spreads (nan or inf, which sign) is each library's own: non-finite is what must agree
            bad &= _finite(got) | _finite(want)
    else:
        bad = got != want
    if not np.any(bad):
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"values differ at {where}: {got[where]!r} vs torch {want[where]!r} ({int(np.sum(bad))} of {bad.size})"


def has_nonfinite(values: np.ndarray) -> bool:
    if values.dtype.kind == "V" or values.dtype.name == "bfloat16":
        values = values.astype(np.float32)
    return values.dtype.kind in "fc" and not bool(np.isfinite(values).all())


def has_limit_points(values: np.ndarray) -> bool:
    """Whether real ``values`` hold an infinity or a non-positive integer (a pole of the gamma family)."""
    if values.dtype.kind == "V" or values.dtype.name == "bfloat16":
        values = values.astype(np.float32)
    if values.dtype.kind not in "biuf":
        return False
    v = values.astype(np.float64)
    return bool(np.any(np.isinf(v) | ((v <= 0) & (v == np.floor(v)))))


def _finite(values: np.ndarray) -> np.ndarray:
    return np.isfinite(np.asarray(values, dtype=np.complex128 if values.dtype.kind == "c" else np.float64))


def _close(got, want, rtol, atol):
    got, want = np.asarray(got), np.asarray(want)
    with np.errstate(all="ignore"):
        if got.dtype.kind == "c" or want.dtype.kind == "c":
            return _close(np.real(got), np.real(want), rtol, atol) & _close(np.imag(got), np.imag(want), rtol, atol)
        got, want = got.astype(np.float64), want.astype(np.float64)
        same_special = (np.isnan(got) & np.isnan(want)) | (got == want)
        return same_special | (np.abs(got - want) <= atol + rtol * np.abs(want))


def call_torch_target(entry, renamed: dict):
    """The torch callable that stands for ``entry``, or None where torch has none."""
    if torch is None:
        return None
    special = {"getitem": operator.getitem, "setitem": operator.setitem}
    if entry.name in special:
        return special[entry.name]
    name = renamed.get(entry.name, entry.name)
    if name is None:
        return None
    namespace, _, short = name.rpartition(".")
    if namespace == "Tensor":
        return getattr(torch.Tensor, short, None)
    if namespace:
        module = torch
        for part in namespace.split("."):
            module = getattr(module, part, None)
        return getattr(module, short, None) if module is not None else None
    if entry.family == "nn":
        return getattr(torch.nn.functional, short, None) or getattr(torch, short, None)
    return getattr(torch, short, None) or getattr(torch.nn.functional, short, None) or getattr(torch.special, short, None)
