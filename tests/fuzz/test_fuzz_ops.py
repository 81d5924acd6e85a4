"""The fuzzing suite: every public op in the schema, called with bad and edge arguments.

Each schema entry gets a fixed budget of hypothesis-drawn calls (``EMBER_FUZZ_EXAMPLES``, 12 in
the regular suite, more under ``make fuzz``): plausible arguments with NaN/inf, empty and
non-contiguous tensors and every dtype; or one argument made bad (a dim out of range, a
negative or huge size, a wrong type, a float index); or the call itself made bad (a required
argument missing, one positional too many, an unknown keyword). ember must refuse with a clear
error or answer as PyTorch does (see ``judge.py``). Set ``EMBER_FUZZ_COLLECT=path`` to write
every finding to ``path`` instead of failing at the first, for triage.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ember
from ember.ops import functional
from ember.ops.schema import load_schema
from tests._oracle import torch
from tests.fuzz import judge
from tests.fuzz.known import (
    EXTENSION_KEYWORDS,
    LENIENT,
    LIMITS,
    LOOSE,
    NONE_MEANS_DEFAULT,
    RANDOM_VALUES,
    TIED_INDICES,
    TORCH_NAMES,
)
from tests.fuzz.values import Drawer, show

ENTRIES = load_schema()
EXAMPLES = int(os.environ.get("EMBER_FUZZ_EXAMPLES", "12"))
COLLECT = os.environ.get("EMBER_FUZZ_COLLECT")
STATS: dict[str, int] = {}
REFUSED: list[str] = []  # the last call's refusal where torch answers, for EMBER_FUZZ_COLLECT
MODES = ("plausible", "plausible", "plausible", "bad argument", "bad argument", "missing", "extra positional", "unknown keyword")


def _ember_fn(entry):
    namespace = functional.NAMESPACES[entry.namespace] if entry.namespace else functional.FUNCTIONS
    return namespace[entry.short_name]


def _count(key: str) -> None:
    STATS[key] = STATS.get(key, 0) + 1


def draw_call(data, entry):
    """The arguments of one call, and what was done to them."""
    sig = data.draw(st.sampled_from(entry.signatures), label="overload")
    drawer = Drawer(data, sig)
    mode = data.draw(st.sampled_from(MODES), label="mode")
    params = list(sig.params)
    bad = data.draw(st.sampled_from(params), label="bad parameter").name if mode == "bad argument" and params else None
    required = [p for p in params if not p.has_default]
    missing = data.draw(st.sampled_from(required), label="missing").name if mode == "missing" and required else None
    args, kwargs = [], {}
    by_keyword = none_for_optional = False
    for p in params:
        if p.name == missing:
            by_keyword = True  # what follows a gap can only go by name
            continue
        if p.has_default and p.name != bad and not data.draw(st.booleans(), label=f"{p.name}:given"):
            by_keyword = by_keyword or not p.kw_only
            continue
        value = drawer.value(p, bad=p.name == bad)
        if value is None and (p.type.optional or (p.has_default and p.default is None)):
            none_for_optional = True
        if p.kw_only or by_keyword:
            kwargs[p.name] = value
        else:
            args.append(value)
    if mode == "extra positional":
        args.append(drawer.tensor("extra", bad=False) if data.draw(st.booleans(), label="extra:tensor") else 1)
    elif mode == "unknown keyword":
        kwargs["no_such_argument"] = 1
    note = {"bad argument": f"bad {bad}", "missing": f"without {missing}"}.get(mode, mode)
    if none_for_optional:
        note += ", None for an optional argument"
    return args, kwargs, drawer.arrays, note


def _to_torch(value, arrays):
    """The same argument spelled for torch: equal values, dtype, strides' shape of layout."""
    if isinstance(value, ember.Tensor):
        array = arrays.get(id(value))
        if array is None or value.dtype is ember.string:
            raise _NoTorchSpelling
        t = (
            torch.from_numpy(np.array(array, copy=True))
            if array.dtype.name != "bfloat16"
            else torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
        )
        return t if value.is_contiguous() or t.ndim < 2 else t.transpose(0, 1).contiguous().transpose(0, 1)
    if isinstance(value, ember.dtype):
        if not hasattr(torch, value.name):
            raise _NoTorchSpelling
        return getattr(torch, value.name)
    if isinstance(value, ember.device):
        return torch.device(str(value))
    if isinstance(value, ember.Generator):
        return torch.Generator().manual_seed(7)
    if isinstance(value, list):
        return [_to_torch(v, arrays) for v in value]
    if isinstance(value, tuple):
        return tuple(_to_torch(v, arrays) for v in value)
    return value


class _NoTorchSpelling(Exception):
    """An argument torch has no equal for (a string tensor): compare nothing."""


def judge_call(entry, args, kwargs, arrays, note) -> str | None:
    """The finding for one call, or None."""
    _count("calls")
    status, outcome = judge.run(_ember_fn(entry), args, kwargs)
    target = judge.call_torch_target(entry, TORCH_NAMES)
    expected = None
    extensions = {k for k in kwargs if k in EXTENSION_KEYWORDS or f"{entry.name}:{k}" in EXTENSION_KEYWORDS}
    defaults = {p.name: p.default for sig in entry.signatures for p in sig.params if p.has_default}
    if any(kwargs[k] is not None and kwargs[k] != defaults.get(k) for k in extensions):
        target = None  # ember's own keyword in use: nothing in torch to compare with
    if target is not None:
        try:
            t_args = [_to_torch(a, arrays) for a in args]
            t_kwargs = {k: _to_torch(v, arrays) for k, v in kwargs.items() if k not in extensions}
        except _NoTorchSpelling:
            target = None
        else:
            expected = judge.run(target, t_args, t_kwargs)
    if status == "error":
        _count("ember refused")
        torch_exc = expected[1] if expected and expected[0] == "error" else None
        why = judge.unclear(outcome, torch_exc)
        if why:
            return f"unclear refusal: {why}"
        if expected and expected[0] == "ok":
            _count("ember refused, torch answered")
            REFUSED.append(f"{type(outcome).__name__}: {str(outcome)[:300]}")  # missing features, reported, not failed
        return None
    _count("ember answered")
    if expected is None:
        return _malformed(outcome)
    if expected[0] == "error":
        if judge.torch_limitation(expected[1]) or isinstance(expected[1], judge.Hang):
            _count("ember answered, torch lacks a kernel")
            return None
        message = str(expected[1])
        lenient = any((names is None or entry.name in names) and pattern.search(message) for names, pattern, _ in LENIENT)
        if lenient or ("None for an optional" in note and NONE_MEANS_DEFAULT.search(message)):
            _count("ember answered, lenient where torch is strict")
            return None
        return f"accepted what torch refuses ({type(expected[1]).__name__}: {str(expected[1])[:300]})"
    _count("compared with torch")
    values = entry.name not in RANDOM_VALUES and entry.family != "random"
    loose = entry.namespace == "linalg" or entry.family == "linalg" or entry.name in LOOSE
    if loose and any(judge.has_nonfinite(a) for a in arrays.values()):
        values = False  # LAPACK's answer for a non-finite input is unspecified (torch's is often garbage): metadata only
    if entry.name in LIMITS and any(judge.has_limit_points(a) for a in arrays.values()):
        values = False  # ember gives the limit there, torch an artifact (known.LIMITS): metadata only
    if entry.short_name in TIED_INDICES and isinstance(outcome, tuple) and len(outcome) == 2:
        outcome, expected = outcome[0], (expected[0], expected[1][0])  # the values, not which of the ties
    why = judge.differ(outcome, expected[1], values=values, loose=loose)
    if why:
        return f"differs from torch: {why}"
    for a, ta in zip(args, t_args, strict=True):  # what in-place ops did to their inputs
        if isinstance(a, ember.Tensor) and isinstance(ta, torch.Tensor):
            why = judge.differ(a, ta, values=values, loose=loose)
            if why:
                return f"left its input different from torch: {why}"
    return None


def _malformed(result) -> str | None:
    results = result if isinstance(result, (tuple, list)) else (result,)
    for r in results:
        if isinstance(r, ember.Tensor) and (
            any(type(n) is not int or n < 0 for n in r.shape) or r.numel() != int(np.prod(r.shape))
        ):
            return f"malformed result shape {r.shape}"
    return None


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
@settings(
    max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 12, database=None, suppress_health_check=list(HealthCheck)
)
@given(data=st.data())
def test_op_refuses_clearly_or_answers_as_torch(entry, data):
    args, kwargs, arrays, note = draw_call(data, entry)
    call = f"{entry.name}{_render(args, kwargs)}  [{note}]"
    REFUSED.clear()
    try:
        finding = judge_call(entry, args, kwargs, arrays, note)
    except Exception as exc:  # reading ember's answer failed (a shape no array can have...): a finding too
        finding = f"its answer could not be read: {type(exc).__name__}: {exc}"
    if COLLECT and REFUSED:
        with open(COLLECT, "a") as f:
            f.write(json.dumps({"entry": entry.name, "call": call, "refused": REFUSED[0]}) + "\n")
    if finding is None:
        return
    if COLLECT:
        with open(COLLECT, "a") as f:
            f.write(json.dumps({"entry": entry.name, "call": call, "finding": finding}) + "\n")
        return
    raise AssertionError(f"{call}\n  {finding}")


def _render(args, kwargs) -> str:
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"({', '.join(parts)})"
