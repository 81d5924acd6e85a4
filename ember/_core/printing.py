"""Tensor repr in PyTorch's print format, computed over NumPy arrays.

``format_tensor`` turns a tensor's values (a NumPy array) into exactly the
text ``repr(torch_tensor)`` would show, with ``ember.`` in place of ``torch.``.
The print options (precision, threshold, edgeitems, linewidth, sci_mode) and
their profiles behave like ``torch.set_printoptions``.

The recipe, as in torch:

1. If the tensor has more than ``threshold`` elements it is *summarized*: along
   every axis longer than ``2 * edgeitems`` only the first and last
   ``edgeitems`` entries are shown, with ``...`` between them.
2. One formatter is built from the *shown* elements only: a common width and,
   for floats, whether every nonzero finite value is an integer (``1.``), and
   whether scientific notation is needed. NaN, inf and zeros do not take part,
   so they may be wider than the common width and then are not padded.
3. Rows are wrapped to ``linewidth``; nested dims are joined by ``,`` and one
   newline per remaining dimension, indented under the opening bracket.
4. Suffixes (device, size, dtype, extras) follow after ``, `` and move onto a
   new line when the last line would grow past ``linewidth``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import numbers
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "printoptions", "set_printoptions"]


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

_OPTIONS = _PrintOptions()


def _check_int(name: str, value: Any, minimum: int) -> int:
    what = "a positive int" if minimum > 0 else "a non-negative int"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"set_printoptions(): argument '{name}' must be {what}, "
            f"not {type(value).__name__}"
        )
    if value < minimum:
        raise ValueError(
            f"set_printoptions(): argument '{name}' must be {what}, got {value}"
        )
    return int(value)


def _check_threshold(value: Any) -> float:
    what = "a non-negative number (int, float or math.inf)"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"set_printoptions(): argument 'threshold' must be {what}, "
            f"not {type(value).__name__}"
        )
    if math.isnan(value) or value < 0:
        raise ValueError(
            f"set_printoptions(): argument 'threshold' must be {what}, got {value}"
        )
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options used to print tensors, like ``torch.set_printoptions``.

    ``profile`` ('default', 'short' or 'full') is applied first and the other
    arguments override it. As in torch, ``sci_mode`` is always assigned, so
    leaving it out resets it to ``None`` (choose automatically). All arguments
    are checked before anything changes.

    >>> set_printoptions(precision=2)
    >>> get_printoptions()["precision"]
    2
    >>> set_printoptions(profile="default")
    """
    changes: dict[str, Any] = {}
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                "set_printoptions(): argument 'profile' must be one of "
                f"'default', 'short', 'full', got {profile!r}"
            )
        changes.update(_PROFILES[profile])
    if precision is not None:
        changes["precision"] = _check_int("precision", precision, 0)
    if threshold is not None:
        changes["threshold"] = _check_threshold(threshold)
    if edgeitems is not None:
        changes["edgeitems"] = _check_int("edgeitems", edgeitems, 0)
    if linewidth is not None:
        changes["linewidth"] = _check_int("linewidth", linewidth, 1)
    if sci_mode is not None and not isinstance(sci_mode, (bool, np.bool_)):
        raise TypeError(
            "set_printoptions(): argument 'sci_mode' must be a bool or None, "
            f"not {type(sci_mode).__name__}"
        )
    changes["sci_mode"] = None if sci_mode is None else bool(sci_mode)
    for name, value in changes.items():
        setattr(_OPTIONS, name, value)


def get_printoptions() -> dict[str, Any]:
    """Return the current print options as a dict ``set_printoptions`` accepts.

    >>> sorted(get_printoptions())
    ['edgeitems', 'linewidth', 'precision', 'sci_mode', 'threshold']
    """
    return dataclasses.asdict(_OPTIONS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Set print options inside a ``with`` block and restore them on exit.

    >>> with printoptions(precision=1):
    ...     get_printoptions()["precision"]
    1
    >>> get_printoptions()["precision"]
    4
    """
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


@dataclasses.dataclass(frozen=True)
class _Formatter:
    """Formats one element (a Python scalar) right-justified to ``width``."""

    width: int = 1
    floating: bool = False
    int_mode: bool = True
    sci_mode: bool = False
    precision: int = 4

    def __call__(self, value: Any) -> str:
        if not self.floating:
            text = value if isinstance(value, str) else str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{self.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("." if math.isfinite(value) else "")
        else:
            text = f"{value:.{self.precision}f}"
        return text.rjust(self.width)


def _text_formatter(texts: list[str]) -> _Formatter:
    return _Formatter(width=max([1, *map(len, texts)]))


def _float_formatter(values: np.ndarray, opts: _PrintOptions) -> _Formatter:
    """Choose int/fixed/scientific mode and width from the nonzero finite values."""
    finite = values[np.isfinite(values) & (values != 0)].tolist()
    if not finite:
        return _Formatter(floating=True, precision=opts.precision)
    magnitudes = [abs(v) for v in finite]
    low, high = min(magnitudes), max(magnitudes)
    int_mode = all(v == math.ceil(v) for v in finite)
    if opts.sci_mode is None:
        sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
    else:
        sci_mode = opts.sci_mode
    p = opts.precision
    if sci_mode:
        width = max(len(f"{v:.{p}e}") for v in finite)
    elif int_mode:
        width = max(len(f"{v:.0f}") + 1 for v in finite)  # +1 for the trailing '.'
    else:
        width = max(len(f"{v:.{p}f}") for v in finite)
    return _Formatter(max(width, 1), True, int_mode, sci_mode, p)


def _as_python_ready(values: np.ndarray) -> np.ndarray:
    """Cast extension dtypes (ml_dtypes' bfloat16 and friends) to NumPy ones."""
    if values.dtype.kind != "V":
        return values
    if values.dtype.name.startswith(("int", "uint")):
        return values.astype(np.int64)
    return values.astype(np.float64)


def _element_formatter(
    shown: np.ndarray, opts: _PrintOptions
) -> tuple[Callable[[Any], str], int]:
    """Return (format one element, room one element takes in a row incl. ', ')."""
    kind = shown.dtype.kind
    if kind == "c":
        real = _float_formatter(shown.real.astype(np.float64), opts)
        imag = _float_formatter(shown.imag.astype(np.float64), opts)

        def complex_text(z: complex) -> str:
            imag_text = (imag(z.imag) + "j").lstrip()
            sign = "" if imag_text[0] in "+-" else "+"
            return real(z.real) + sign + imag_text

        return complex_text, real.width + 2 + imag.width + 1
    if kind == "f":
        formatter = _float_formatter(shown.astype(np.float64), opts)
    elif kind == "O":
        formatter = _text_formatter([repr(v) for v in shown.flat])
        return (lambda v: formatter(repr(v))), formatter.width + 2
    else:
        formatter = _text_formatter([str(v) for v in shown.ravel().tolist()])
    return formatter, formatter.width + 2


def _kept_indices(length: int, edgeitems: int) -> np.ndarray:
    if length <= 2 * edgeitems:
        return np.arange(length)
    return np.r_[0:edgeitems, length - edgeitems : length]


def _body(values: np.ndarray, opts: _PrintOptions, indent: int) -> str:
    """The bracketed contents of a non-empty tensor."""
    summarize = values.size > opts.threshold
    if summarize and opts.edgeitems == 0 and values.ndim > 0:
        return "[...]"
    edge = opts.edgeitems
    if summarize:
        keep = [_kept_indices(n, edge) for n in values.shape]
        cut = [len(k) < n for k, n in zip(keep, values.shape, strict=True)]
        shown = values[np.ix_(*keep)] if values.ndim else values
    else:
        cut = [False] * values.ndim
        shown = values
    shown = _as_python_ready(shown)
    text, element_length = _element_formatter(shown, opts)
    ndim = shown.ndim

    def render(items: Any, depth: int, indent: int) -> str:
        # items: nested lists of Python scalars; cut[depth]: this axis lost its middle
        if depth == ndim:
            return text(items)
        if depth == ndim - 1:
            parts = [text(v) for v in items]
            if cut[depth]:
                parts.insert(edge, " ...")
            per_line = max(1, (opts.linewidth - indent) // element_length)
            rows = [
                ", ".join(parts[i : i + per_line])
                for i in range(0, len(parts), per_line)
            ]
            return "[" + (",\n" + " " * (indent + 1)).join(rows) + "]"
        parts = [render(sub, depth + 1, indent + 1) for sub in items]
        if cut[depth]:
            parts.insert(edge, "...")
        # a sub-tensor of k dims is followed by k - 1 blank lines
        separator = "," + "\n" * (ndim - depth - 1) + " " * (indent + 1)
        return "[" + separator.join(parts) + "]"

    return render(shown.tolist(), 0, indent)


def _add_suffixes(
    text: str, suffixes: Sequence[str], indent: int, linewidth: int
) -> str:
    # torch measures the last line as two characters longer than it is, but
    # not after a wrap; kept so that the breaks land where torch puts them.
    line_length = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            line_length += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def format_tensor(
    values: np.ndarray | None,
    *,
    shape: Sequence[int],
    dtype_name: str,
    show_dtype: bool,
    device: str | None = None,
    extras: Sequence[str] = (),
) -> str:
    """Return ``repr`` of a tensor, character for character as torch prints it.

    ``values`` holds the elements (any NumPy numeric dtype, ``ml_dtypes``
    floats, or object holding ``bytes``), or is ``None`` for a tensor without
    data, printed like a torch meta tensor (``device`` defaults to 'meta').
    ``show_dtype`` follows torch's rule, which the caller applies: shown unless
    the dtype is the default float, int64, bool or the default complex; for
    empty and meta tensors, shown unless it is the default float. ``device``
    (None for cpu) and then ``extras`` such as ``"requires_grad=True"`` are
    appended as further suffixes.

    >>> import numpy as np
    >>> format_tensor(np.array([1.0, 2.5]), shape=(2,), dtype_name="float64", show_dtype=True)
    'tensor([1.0000, 2.5000], dtype=ember.float64)'
    >>> print(format_tensor(np.array([[True], [False]]), shape=(2, 1),
    ...                     dtype_name="bool", show_dtype=False))
    tensor([[ True],
            [False]])
    >>> format_tensor(None, shape=(2, 3), dtype_name="float32", show_dtype=False)
    "tensor(..., device='meta', size=(2, 3))"
    """
    opts = _OPTIONS
    prefix = "tensor("
    indent = len(prefix)
    shape = tuple(int(n) for n in shape)
    size = f"size={shape}"
    suffixes = []
    if values is None and device is None:
        device = "meta"
    if device is not None:
        suffixes.append(f"device='{device}'")
    if values is None:
        body = "..."
        suffixes.append(size)
    else:
        values = np.reshape(np.asarray(values), shape)
        if values.size == 0:
            body = "[]"
            if values.ndim != 1:
                suffixes.append(size)
        else:
            body = _body(values, opts, indent)
            if opts.edgeitems == 0:
                suffixes.append(size)
    if show_dtype:
        suffixes.append(f"dtype=ember.{dtype_name}")
    suffixes.extend(extras)
    return _add_suffixes(prefix + body, suffixes, indent, opts.linewidth)
