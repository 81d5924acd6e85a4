"""What the reductions share: ``dim`` as PyTorch reads it, the reduced shape, the one-input
reduction primitive, PyTorch's dtype names for messages, the named tuples of multi-result ops,
and the pieces their derivatives are written with.
"""

from __future__ import annotations

import collections

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ...dispatch import OpExpr, dispatch
from ..common import check_dtype

# PyTorch's ScalarType names, for messages that quote them ("Got: Long").
_TORCH_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "float16": "Half", "bfloat16": "BFloat16",
    "float32": "Float", "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}  # fmt: skip


def torch_name(dtype: _dt.DType) -> str:
    """PyTorch's name of a dtype, as its error messages spell it (``Long`` for int64)."""
    return _TORCH_NAMES.get(dtype.name, dtype.name)


class return_types:
    """Named tuples of multi-result ops, as ``torch.return_types``."""

    __module__ = "ember.ops.reduction"  # its public home: pickles of the named tuples name it


def named_tuple(name: str, fields: tuple[str, ...]) -> type:
    """The named tuple ``return_types.<name>``, picklable under ``ember.ops.reduction``."""
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "ember.ops.reduction"
    cls.__qualname__ = f"return_types.{name}"
    setattr(return_types, name, cls)
    return cls


def reduce_dims(dim, ndim: int, *, empty_means_all: bool = True) -> tuple[int, ...]:
    """``dim`` (None, or a tuple from the schema's ``IntList?``) as sorted non-negative dims.

    None and ``()`` mean every dimension, as in PyTorch's sum and mean; its all and any read
    ``()`` as no dimension (``empty_means_all=False``). A 0-d tensor accepts 0 and -1 and
    reduces nothing.

    >>> reduce_dims(None, 3), reduce_dims((-1, 0), 3), reduce_dims((0,), 0)
    ((0, 1, 2), (0, 2), ())
    """
    if dim is None or (len(dim) == 0 and empty_means_all):
        return tuple(range(ndim))
    dims = [wrap_dim(d, ndim) % max(ndim, 1) for d in dim]  # a 0-d tensor's -1 is its 0
    seen = set()
    for d in dims:
        if d in seen:  # checked for a 0-d tensor too, whose 0 and -1 are the same dim
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return () if ndim == 0 else tuple(sorted(dims))


def reduced_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    """``shape`` with ``dims`` reduced: kept as size 1 with ``keepdim``, dropped otherwise.

    >>> reduced_shape((2, 3, 4), (0, 2), True), reduced_shape((2, 3, 4), (0, 2), False)
    ((1, 3, 1), (3,))
    """
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def run(op: OpExpr, x, attrs: dict, out):
    """Dispatch a one-input, one-output reduction, into ``out`` when given."""
    if out is None:
        return dispatch(op, (x,), attrs)[0]
    return dispatch(op, (x,), attrs, (out,))[0]


NUMERIC = ("bool", "numeric")
ORDERED = ("bool", "integral", "real floating")


def reduction_op(name: str, kinds, result) -> OpExpr:
    """A one-input reduction primitive; attrs ``dims``, ``keepdim`` and ``dtype`` (requested).
    ``result(input dtype, requested dtype)`` gives the output dtype (or raises)."""
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        check_dtype(name, "input", x._dtype, kinds)
        return ((reduced_shape(x._shape, attrs["dims"], attrs["keepdim"]), result(x._dtype, attrs.get("dtype"))),)

    return op


# --- for the derivatives (PyTorch's formulas, derivatives.yaml / FunctionsManual), written with
# ember's ops so they differentiate again; integer inputs get no gradient


def float_input(ctx, i: int = 0) -> bool:
    """Whether input ``i`` is floating or complex (integer inputs get no gradient)."""
    dtype = ctx.input_meta[i][1]
    return dtype.is_floating_point or dtype.is_complex


def unreduce(g, shape: tuple, dims: tuple, keepdim: bool):
    """``g`` (a reduction's gradient) with the reduced dims restored as size 1 (keepdim)."""
    kept = reduced_shape(shape, dims, True)
    return g if keepdim or g._shape == kept else g.reshape(kept)


def count(shape: tuple, dims: tuple) -> int:
    """How many elements each output element reduces."""
    n = 1
    for d in dims:
        n *= shape[d]
    return n
