"""What the creation ops share with each other and with conversion and random: dtype of a fill
value, memory formats and the strides they give, the ``fill`` primitive behind zeros/ones/full.
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.device import CPU, Device, as_device
from ..._core.memory_format import MemoryFormat, channels_last_strides
from ..._core.shape import check_size, contiguous_strides, is_non_overlapping_and_dense
from ..._core.tensor import Tensor, empty_tensor, scalar_for
from ...dispatch import OpExpr, dispatch
from ...dispatch.sbp import AMBIENT, broadcast


def dtype_of_scalar(value) -> _dt.DType:
    """The dtype ``full`` infers from its fill value (torch.full's rule)."""
    if isinstance(value, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(value, (int, np.integer)):
        return _dt.int64
    if isinstance(value, (complex, np.complexfloating)):
        return _dt.get_default_complex_dtype()
    if isinstance(value, (bytes, str)):
        return _dt.string
    if isinstance(value, Tensor):
        return value._dtype
    return _dt.get_default_dtype()


def check_kinds(op: str, arg: str, dtype: _dt.DType, kinds) -> None:
    """Refuse a dtype outside the array-API kinds ``kinds`` (a name or a tuple of names)."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    if not any(_dt.isdtype(dtype, k) for k in kinds):
        raise TypeError(f"{op}(): argument '{arg}' must have a {' or '.join(kinds)} dtype, got {dtype}")


def broadcastable_to(shape: tuple, target: tuple) -> bool:
    """Whether ``shape`` broadcasts to exactly ``target``."""
    n, k = len(target), len(shape)
    return k <= n and all(s == 1 or s == t for s, t in zip(shape, target[n - k :], strict=True))


def check_requires_grad(out: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        out.requires_grad = True  # the setter refuses integer and bool dtypes, as PyTorch does
    return out


# Set by ember.distributed.tensor: fn(op, placement, sbp, shape, dtype, build, whole) -> a global tensor.
# ``build(shape)`` makes one rank's piece; ``whole`` (a local tensor of the logical value, for the
# factories whose values depend on position or on a generator's stream) is cut into pieces instead.
GLOBAL_FACTORY: list = [None]


def global_factory(op: str, placement, sbp, shape: tuple, dtype, requires_grad: bool, build=None, whole: Tensor | None = None) -> Tensor:
    """The global form of factory ``op`` (``placement=``/``sbp=`` given, or neither inside the
    derivative of a global op: then broadcast on its placement, ``dispatch/sbp.py``'s AMBIENT):
    see ``GLOBAL_FACTORY``."""
    if placement is None and sbp is None:
        placement = AMBIENT.placement
        sbp = (broadcast,) * placement.ndim
    if placement is None or sbp is None:
        missing = "sbp" if sbp is None else "placement"
        raise TypeError(f"{op}(): a global tensor needs both placement= and sbp=, but {missing}= is missing")
    return check_requires_grad(GLOBAL_FACTORY[0](op, placement, sbp, shape, dtype, build, whole), requires_grad)


def memory_format(value, op: str) -> str:
    """``None`` / ``ember.preserve_format`` / ``contiguous_format`` / ``channels_last`` /
    ``channels_last_3d`` (or torch's objects or the names) as ``"preserve"``, ``"contiguous"``,
    ``"channels_last"`` or ``"channels_last_3d"``."""
    if value is None:
        return "preserve"
    name = value.name if isinstance(value, MemoryFormat) else str(value).rpartition(".")[2]
    if name in ("preserve_format", "contiguous_format"):
        return name.partition("_")[0]
    if name in ("channels_last", "channels_last_3d"):
        return name
    raise TypeError(f"{op}(): argument 'memory_format' must be ember.memory_format, not {type(value).__name__} ({value!r})")


def dense_strides(shape: tuple, stride: tuple) -> tuple:
    """PyTorch's ``infer_dense_strides``: contiguous strides in the input's dimension order."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * ndim
    cur = 1
    for idx in perm:
        out[idx] = cur
        if shape[idx] > 1:
            cur *= shape[idx]
    return tuple(out)


def preserved_strides(x: Tensor, fmt: str = "preserve") -> tuple:
    """The strides of a copy of ``x`` under ``memory_format`` (PyTorch's preserve_format: a
    dense layout such as a transpose keeps its strides, others get dense ones in the same order)."""
    shape, stride = x._shape, x._stride
    if fmt == "contiguous":
        return contiguous_strides(shape)
    if fmt in ("channels_last", "channels_last_3d"):
        return channels_last_strides(shape, fmt)
    if stride == contiguous_strides(shape):
        return stride
    if is_non_overlapping_and_dense(shape, stride) and all(s > 0 or (n == 1 and s == 0) for n, s in zip(shape, stride, strict=True)):
        return stride  # size-1 dims keep their strides too, as in PyTorch
    return dense_strides(shape, stride)


def factory_args(op: str, size, dtype, device, default=None) -> tuple:
    shape = tuple(size)
    dtype = (default or _dt.get_default_dtype()) if dtype is None else dtype
    check_size(shape, op, dtype.itemsize)
    device = CPU if device is None else device if type(device) is Device else as_device(device, op=op)
    return shape, dtype, device


def _scalar_for(value, dtype: _dt.DType, op: str):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"{op}(): only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        if dtype is not _dt.string and value._dtype is not _dt.string:
            return _cast_like_copy(value._host_array()[()], dtype)  # a tensor value casts (wraps) as copy_ does
        value = value.item()
    return scalar_for(value, dtype, op)


def _cast_like_copy(value: np.generic, dtype: _dt.DType):
    if np.iscomplexobj(value) and not dtype.is_complex and dtype is not _dt.bool_:
        value = value.real
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(dtype.numpy_dtype)[()].item()


FILL = OpExpr("fill", (), ("out",))


@FILL.shape_rule
def _infer_fill(attrs):
    return ((attrs["shape"], attrs["dtype"]),)


# ``fill`` has no tensor inputs, so nothing flows back through it; the rule exists so the op is
# complete. (An in-place ``fill_`` on a tensor with history is the interpreter's business: the
# old value is overwritten, so PyTorch gives it a zero gradient.)
@FILL.grad_rule(saves="none")
def _fill_grad(ctx, g):
    return ()


def fill_into(out: Tensor, value, op: str = "fill_") -> Tensor:
    """Write ``value`` into every element of ``out`` (checked: overflow, read-only, expanded)."""
    value = _scalar_for(value, out._dtype, op)
    attrs = {"shape": out._shape, "dtype": out._dtype, "device": out._storage._device, "value": value}
    dispatch(FILL, (), attrs, (out,))
    return out


def new_filled(shape: tuple, dtype: _dt.DType, device: Device, value, op: str, stride: tuple | None = None) -> Tensor:
    """A fresh tensor of ``value``s; ``stride`` (when not contiguous) gives its layout."""
    value = _scalar_for(value, dtype, op)
    kind = device.type
    if (stride is None or stride == contiguous_strides(shape)) and (kind == "cpu" or kind == "meta"):
        return dispatch(FILL, (), {"shape": shape, "dtype": dtype, "device": device, "value": value})[0]
    out = empty_tensor(shape, dtype, device, stride=stride)
    if kind != "meta":
        out._storage._materialize()  # a device without an allocator (cuda) fails here, clearly
    dispatch(FILL, (), {"shape": shape, "dtype": dtype, "device": device, "value": value}, (out,))
    out._storage._version = 0  # a fresh tensor starts at version 0
    return out
