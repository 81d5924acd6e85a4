"""Ranges and grids: ``arange``, ``linspace``, ``logspace``, ``eye``, ``tril_indices``/``triu_indices``
and ``meshgrid``.

>>> ember.arange(0, 1, 0.25).tolist()
[0.0, 0.25, 0.5, 0.75]
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ..._core.device import CPU
from ..._core.literals import check_fill_value
from ...dispatch import OpExpr, dispatch
from ...dispatch.sbp import AMBIENT
from ..functor import functor
from ..schema import schema_family
from ._common import check_kinds, check_requires_grad, global_factory

declare = schema_family("creation")


def _real(value, op: str, arg: str) -> float | int:
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError(f"{op}(): argument '{arg}' must be real, got {value}")
        value = value.real
    return value


def _is_float(value) -> bool:
    return isinstance(value, (float, np.floating))


ARANGE = OpExpr("arange", (), ("out",))


@ARANGE.shape_rule
def _infer_arange(attrs):
    return (((attrs["size"],), attrs["dtype"]),)


def arange_size(start, end, step, dtype: _dt.DType) -> int:
    """torch.arange's length: integer arithmetic for int64, a float64 ceil for the others."""
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    for v in (start, end):
        if not math.isfinite(v):
            raise RuntimeError(f"arange(): unsupported range: {start} -> {end}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError(f"arange(): upper bound and lower bound inconsistent with step sign (start={start}, end={end}, step={step})")
    if any(isinstance(v, int) and type(v) not in (int, bool) for v in (start, end, step)):
        # a graph's unknown size (an int subclass carrying its formula): integer arithmetic keeps
        # the formula, where int() or float() would keep only its placeholder value
        if any(_is_float(v) for v in (start, end, step)):
            raise NotImplementedError("arange(): a float range up to a size known only when the graph runs is not supported")
        return (end - start + step - (1 if step > 0 else -1)) // step
    if dtype is _dt.int64:  # torch's int64 path: (end - start + step - sign(step)) / step, truncated
        s, e, st = int(start), int(end), int(step)
        if st == 0:  # (other integer dtypes size by the float step and repeat start, as torch does)
            raise RuntimeError(f"arange(): step must be nonzero (step={step} truncates to 0 for int64)")
        num = e - s + st - (1 if st > 0 else -1)
        size = abs(num) // abs(st) * (1 if (num >= 0) == (st > 0) else -1)
    else:
        quotient = (float(end) - float(start)) / float(step)
        if not math.isfinite(quotient):  # arange(0, 1e300, 1e-300): a count no float holds
            raise RuntimeError("arange(): invalid size, possible overflow?")
        size = math.ceil(quotient)
    if size < 0 or size > 2**63 - 1:
        raise RuntimeError("arange(): invalid size, possible overflow?")
    return int(size)


declare(
    "arange",
    "Tensor (Scalar? start=None, Scalar? end=None, Scalar step=1, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Arange",
    out=True, differentiable=False,
    doc="""
    Values from start (default 0) up to end, exclusive, by step: int64 when all of them are ints, else the default dtype.

    >>> ember.arange(5).tolist()
    [0, 1, 2, 3, 4]
    >>> ember.arange(1, 0, -0.25).tolist()
    [1.0, 0.75, 0.5, 0.25]
    """,
    tf="Range",
)
@functor("Arange")
def arange(start=None, end=None, step=1, dtype=None, device=None, requires_grad=False, placement=None, sbp=None, out=None):
    if end is None:
        if start is None:
            raise TypeError("arange(): missing required argument 'end'")
        start, end = 0, start
    elif start is None:
        start = 0
    start, end, step = (_real(v, "arange", n) for v, n in ((start, "start"), (end, "end"), (step, "step")))
    if dtype is None:
        dtype = out._dtype if out is not None else _dt.get_default_dtype() if any(_is_float(v) for v in (start, end, step)) else _dt.int64
    check_kinds("arange", "dtype", dtype, ("integral", "real floating"))
    size = arange_size(start, end, step, dtype)
    if dtype.kind in "iu":  # (an int subclass, a graph's unknown size, keeps its formula)
        start, step = (v if isinstance(v, int) and not isinstance(v, bool) else int(v) for v in (start, step))
    attrs = {"size": size, "dtype": dtype, "device": CPU if device is None else device, "start": start, "step": step}
    if out is not None:
        attrs["device"] = out.device
        return dispatch(ARANGE, (), attrs, (out,))[0]
    if placement is not None or sbp is not None or AMBIENT.placement is not None:  # each rank's piece is cut from the whole (one vector)
        return global_factory("arange", placement, sbp, (size,), dtype, requires_grad, whole=dispatch(ARANGE, (), attrs)[0])
    return check_requires_grad(dispatch(ARANGE, (), attrs)[0], requires_grad)


LINSPACE = OpExpr("linspace", (), ("out",))


@LINSPACE.shape_rule
def _infer_linspace(attrs):
    return (((attrs["steps"],), attrs["dtype"]),)


def _linspace_attrs(op, start, end, steps, dtype, device, out, endpoint=True, base=None):
    if steps < 0:
        raise RuntimeError(f"{op}(): number of steps must be non-negative, got {steps}")
    if dtype is None:
        if out is not None:
            dtype = out._dtype
        elif isinstance(start, complex) or isinstance(end, complex):
            dtype = _dt.get_default_complex_dtype()
        else:
            dtype = _dt.get_default_dtype()
    check_kinds(op, "dtype", dtype, ("integral", "real floating", "complex floating"))
    if op == "linspace" and dtype.kind in "iuf":
        check_fill_value(start, dtype, op)  # ends the dtype cannot hold are refused, not wrapped
        check_fill_value(end, dtype, op)
    device = out.device if out is not None else CPU if device is None else device
    return {"steps": steps, "dtype": dtype, "device": device, "start": start, "end": end, "endpoint": endpoint, "base": base}


declare(
    "linspace",
    "Tensor (Scalar start, Scalar end, Int steps, *, Bool endpoint=True, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Linspace",
    out=True, differentiable=False,
    doc="""
    steps evenly spaced values from start to end (end excluded with endpoint=False, as in the array API).

    >>> ember.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """,
)
@functor("Linspace")
def linspace(start, end, steps, endpoint=True, dtype=None, device=None, requires_grad=False, out=None):
    attrs = _linspace_attrs("linspace", start, end, steps, dtype, device, out, endpoint)
    if out is not None:
        return dispatch(LINSPACE, (), attrs, (out,))[0]
    return check_requires_grad(dispatch(LINSPACE, (), attrs)[0], requires_grad)


declare(
    "logspace",
    "Tensor (Scalar start, Scalar end, Int steps, Float base=10.0, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Logspace",
    out=True, differentiable=False, op="linspace",
    doc="""
    base ** linspace(start, end, steps).

    >>> ember.logspace(0, 3, 4, dtype=ember.int64).tolist()
    [1, 10, 100, 1000]
    """,
)
@functor("Logspace")
def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False, out=None):
    attrs = _linspace_attrs("logspace", start, end, steps, dtype, device, out, True, base)
    if out is not None:
        return dispatch(LINSPACE, (), attrs, (out,))[0]
    return check_requires_grad(dispatch(LINSPACE, (), attrs)[0], requires_grad)


EYE = OpExpr("eye", (), ("out",))


@EYE.shape_rule
def _infer_eye(attrs):
    return (((attrs["n"], attrs["m"]), attrs["dtype"]),)


declare(
    "eye",
    "Tensor (Int n, Int? m=None, *, Int k=0, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Eye",
    out=True, differentiable=False,
    doc="""
    An n x m matrix with ones on diagonal k (0: the main one) and zeros elsewhere.

    >>> ember.eye(2, 3, dtype=ember.int64).tolist()
    [[1, 0, 0], [0, 1, 0]]
    """,
)
@functor("Eye")
def eye(n, m=None, k=0, dtype=None, device=None, requires_grad=False, out=None):
    if n < 0:
        raise RuntimeError(f"eye(): n must be greater or equal to 0, got {n}")
    if m is None:
        m = n
    elif m < 0:
        raise RuntimeError(f"eye(): m must be greater or equal to 0, got {m}")
    if dtype is None:
        dtype = out._dtype if out is not None else _dt.get_default_dtype()
    attrs = {"n": n, "m": m, "dtype": dtype, "device": out.device if out is not None else CPU if device is None else device, "k": k}
    if out is not None:
        return dispatch(EYE, (), attrs, (out,))[0]
    return check_requires_grad(dispatch(EYE, (), attrs)[0], requires_grad)


TRI_INDICES = OpExpr("tri_indices", (), ("out",))


def _tril_count(row: int, col: int, offset: int) -> int:
    """How many (i, j) with j <= i + offset: row i holds clip(i + offset + 1, 0, col) of them.
    In closed form (rows [a, b) hold a growing count, rows from b a full one), so a huge
    row x col is counted, and refused by its size check, without memory."""
    if row == 0 or col == 0:
        return 0
    a = min(row, max(0, -offset))
    b = min(row, max(a, col - offset - 1))
    return (b - a) * (offset + 1) + (a + b - 1) * (b - a) // 2 + (row - b) * col


@TRI_INDICES.shape_rule
def _infer_tri_indices(attrs):
    row, col, offset = attrs["row"], attrs["col"], attrs["offset"]
    n = _tril_count(row, col, offset) if attrs["lower"] else row * col - _tril_count(row, col, offset - 1)
    return (((2, n), attrs["dtype"]),)


def _tri_indices(op, lower, row, col, offset, dtype, device):
    if row < 0:
        raise RuntimeError(f"{op}(): row must be non-negative, got {row}")
    if col < 0:
        raise RuntimeError(f"{op}(): col must be non-negative, got {col}")
    dtype = _dt.int64 if dtype is None else dtype
    check_kinds(op, "dtype", dtype, "integral")
    attrs = {"row": row, "col": col, "offset": offset, "lower": lower, "dtype": dtype, "device": CPU if device is None else device}
    return dispatch(TRI_INDICES, (), attrs)[0]


declare(
    "tril_indices",
    "Tensor (Int row, Int col, Int offset=0, *, DType? dtype=None, Device? device=None) => TrilIndices",
    differentiable=False, op="tri_indices",
    doc="""
    The (row, column) indices of the lower triangle of a row x col matrix, as a 2 x N tensor.

    >>> ember.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """,
)
@functor("TrilIndices")
def tril_indices(row, col, offset=0, dtype=None, device=None):
    return _tri_indices("tril_indices", True, row, col, offset, dtype, device)


declare(
    "triu_indices",
    "Tensor (Int row, Int col, Int offset=0, *, DType? dtype=None, Device? device=None) => TriuIndices",
    differentiable=False, op="tri_indices",
    doc="""
    The (row, column) indices of the upper triangle of a row x col matrix, as a 2 x N tensor.

    >>> ember.triu_indices(2, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """,
)
@functor("TriuIndices")
def triu_indices(row, col, offset=0, dtype=None, device=None):
    return _tri_indices("triu_indices", False, row, col, offset, dtype, device)


declare(
    "meshgrid",
    "TensorList (TensorList tensors, *, String? indexing=None) => Meshgrid",
    composite=True,
    doc="""
    Coordinate grids (expanded views) of 1-D inputs; indexing 'ij' (the default) or 'xy'. Takes a list of tensors.

    >>> x, y = ember.meshgrid([ember.tensor([1, 2]), ember.tensor([3, 4, 5])], indexing="ij")
    >>> x.shape, y.tolist()
    (ember.Size([2, 3]), [[3, 4, 5], [3, 4, 5]])
    """,
)
@functor("Meshgrid")
def meshgrid(tensors, indexing=None):
    """Views (expanded) of the 0-d/1-d inputs over the grid they span."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'meshgrid(): indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid(): expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid(): expected 0D or 1D tensors in the tensor list, but tensor {i} has {t.ndim} dimensions")
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError(f"meshgrid(): expected all tensors in the tensor list to have the same dtype, got {tensors[0]._dtype} and {t._dtype}")
        if t.device != tensors[0].device:
            raise RuntimeError(f"meshgrid(): expected all tensors in the tensor list to have the same device, got {tensors[0].device} and {t.device}")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    n = len(order)
    outs = []
    for i, t in enumerate(order):
        view_shape = [1] * n
        view_shape[i] = shape[i]
        outs.append(t.reshape(tuple(view_shape)).expand(shape))
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)
