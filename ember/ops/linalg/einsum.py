"""Einstein summation and tensor contraction: ``einsum`` and ``tensordot``.

The equation is checked against the operand shapes with PyTorch's messages, every ellipsis is
spelled out in letters, and the kernel is one ``np.einsum``. Both derivatives are einsums of the
incoming gradient with the other operands.

>>> import ember
>>> ember.einsum("ij,jk->ik", ember.ones((2, 3)), ember.ones((3, 2))).tolist()
[[3.0, 3.0], [3.0, 3.0]]
"""

from __future__ import annotations

import operator
import string

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..._core.tensor import Tensor
from ...dispatch import OpExpr
from ..common import broadcast_pair, functional as _F, sum_to
from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family
from ._common import run

declare = schema_family("linalg")


# --- einsum -------------------------------------------------------------------------------


def _einsum_parse(equation: str, shapes: list[tuple]) -> tuple[str, tuple]:
    """Check an einsum equation against the operand shapes; returns the equation with every
    ellipsis spelled out in letters (so '...' summed away works as in PyTorch) and the output
    shape."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = {c for c in eq if c.isalpha()}
    for c in eq:
        if not (c.isalpha() and c.isascii()) and c not in ".,->":
            raise RuntimeError(f"einsum(): invalid subscript given in the equation string: {c!r}")
    free = [c for c in string.ascii_letters if c not in used]
    sizes: dict[str, int] = {}
    ell_ndim = 0
    ell_shape: tuple = ()
    parsed = []
    for k, (term, shape) in enumerate(zip(terms, shapes, strict=True)):
        if term.count("...") > 1 or term.replace("...", "").count(".") > 0:
            raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of any ellipsis")
        if "..." in term:
            before, after = term.split("...")
            n = len(shape) - len(before) - len(after)
            if n < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(before) + len(after)}) is more than the number "
                    f"of dimensions ({len(shape)}) for operand {k}"
                )
            ell_ndim = max(ell_ndim, n)
            ell_shape = broadcast_pair(ell_shape, shape[len(before) : len(before) + n])
            labels = before + after
            label_sizes = shape[: len(before)] + shape[len(before) + n :]
            parsed.append((before, n, after))
        else:
            if len(term) != len(shape):
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(term)}) does not match the number of "
                    f"dimensions ({len(shape)}) for operand {k} and no ellipsis was given"
                )
            labels, label_sizes = term, shape
            parsed.append((term, None, ""))
        for c, s in zip(labels, label_sizes, strict=True):
            seen = sizes.get(c)
            if seen is None or seen == 1:
                sizes[c] = s
            elif s != seen and s != 1:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {s} for operand {k} which does not broadcast with previously seen size {seen}"
                )
    if len(free) < ell_ndim:
        raise RuntimeError("einsum(): too many subscripts in the equation")
    ell = "".join(free[:ell_ndim])
    if not arrow:
        once = sorted(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    out_shape: list[int] = []
    if rhs.count("...") > 1 or rhs.replace("...", "").count(".") > 0:
        raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis")
    for c in rhs.replace("...", "*"):
        if c == "*":
            out_shape.extend(ell_shape)
            continue
        if c not in sizes:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
        if rhs.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        out_shape.append(sizes[c])
    new_terms = [before + (ell[ell_ndim - n :] if n is not None else "") + after for before, n, after in parsed]
    return ",".join(new_terms) + "->" + rhs.replace("...", ell), tuple(out_shape)


EINSUM = OpExpr("einsum", ("operands",), ("out",))


@EINSUM.shape_rule
def _einsum_infer(attrs, *operands):
    dtype = operands[0]._dtype if operands else _dt.get_default_dtype()
    for t in operands[1:]:
        if t._dtype is not dtype:
            raise RuntimeError(
                f"einsum(): expected all operands to have the same dtype, but got {dtype.name} and {t._dtype.name}"
            )
    if dtype is _dt.string:
        raise RuntimeError(f"einsum(): not implemented for '{torch_name(dtype)}'")
    equation, shape = _einsum_parse(attrs["user_equation"], [t._shape for t in operands])
    if dtype.kind in "biu":
        dtype = _einsum_integer_dtype(equation, dtype)
    return ((shape, dtype),)


def _einsum_integer_dtype(equation: str, dtype: _dt.DType) -> _dt.DType:
    """PyTorch's result dtype for integer and bool operands: an operand with a subscript found in
    no other operand nor the output is summed over it first, with ``sum``'s promotion to int64; the
    products that follow keep the dtype, and contracting (a subscript in several operands, not in
    the output: ``bmm``) int64 with the narrower dtype, or bools, is refused."""
    lhs, rhs = equation.split("->")
    terms = lhs.split(",")
    counts = {c: sum(c in t for t in terms) for c in set(lhs) - {","}}
    dtypes = {_dt.int64 if any(counts[c] == 1 and c not in rhs for c in t) else dtype for t in terms}
    contracts = len(terms) > 1 and any(n > 1 and c not in rhs for c, n in counts.items())
    if contracts and len(dtypes) > 1:
        raise RuntimeError(f"einsum(): expected scalar type Long but found {torch_name(dtype)}")
    if contracts and dtype is _dt.bool_:
        raise NotImplementedError("einsum(): \"bmm\" not implemented for 'Bool'")
    return _dt.int64 if _dt.int64 in dtypes else dtype


declare(
    "einsum",
    "Tensor (String equation, TensorList operands) => Einsum",
    out=True,
    doc="""
    Einstein summation (``...`` broadcasts; implicit outputs as in NumPy and PyTorch).

    >>> ember.einsum("ij,j->i", [ember.ones((2, 3)), ember.ones(3)]).tolist()
    [3.0, 3.0]
    """,
    tf="Einsum",
)
@functor("Einsum")
def einsum(equation, operands, out=None):
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    normalized, _ = _einsum_parse(equation, [t._shape for t in operands])
    attrs = {"user_equation": equation, "equation": normalized, "optimize": len(operands) > 1}
    return run(EINSUM, tuple(operands), attrs, out)


def _einsum_grads(equation: str, operands: tuple, g) -> tuple:
    """The gradient of each operand of ``einsum(equation, operands)`` (an equation with an
    explicit output and no ellipsis), each one an einsum of ``g`` and the other operands: letters
    only the operand has are broadcast with a ones vector, a repeated letter (a diagonal) is tied
    to a fresh letter by an identity matrix, and broadcast size-1 dims are summed back."""
    F = _F()
    lhs, rhs = equation.split("->")
    terms = lhs.split(",")
    free = [c for c in string.ascii_letters if c not in equation]
    grads = []
    for k, (term, x) in enumerate(zip(terms, operands, strict=True)):
        in_terms, ops = [rhs], [g]
        for j, (t, y) in enumerate(zip(terms, operands, strict=True)):
            if j != k:
                in_terms.append(t)
                ops.append(y.conj())
        available = set("".join(in_terms))
        out, seen = [], set()
        for pos, c in enumerate(term):
            size = x._shape[pos]
            if c not in available:  # summed within this operand only: broadcast back
                in_terms.append(c)
                ops.append(F.ones(size, dtype=g._dtype))
                available.add(c)
            if c in seen:  # a diagonal: the gradient lies on it
                f = free.pop(0)
                in_terms.append(c + f)
                ops.append(F.eye(size, dtype=g._dtype))
                out.append(f)
            else:
                seen.add(c)
                out.append(c)
        grad = F.einsum(",".join(in_terms) + "->" + "".join(out), *ops)
        grads.append(sum_to(grad, x._shape))
    return tuple(grads)


@EINSUM.grad_rule()
def _einsum_grad(ctx, g):
    return _einsum_grads(ctx.attrs["equation"], ctx.inputs, g)


# --- tensordot: an einsum over the contracted dims ---------------------------------------------


TENSORDOT = OpExpr("tensordot", ("a", "b"), ("out",))


@TENSORDOT.shape_rule
def _tensordot_infer(attrs, a, b):
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    da, db = attrs["dims_a"], attrs["dims_b"]
    for i, j in zip(da, db, strict=True):
        if a._shape[i] != b._shape[j] and a._shape[i] != 1 and b._shape[j] != 1:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a._shape[i]} in dim {i} and second has size {b._shape[j]} in dim {j}"
            )
    shape = tuple(s for i, s in enumerate(a._shape) if i not in da) + tuple(s for j, s in enumerate(b._shape) if j not in db)
    return ((shape, a._dtype),)


def _dims_list(value, ndim: int, which: str) -> tuple[int, ...]:
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, int):
        value = [value]
    try:
        dims = tuple(wrap_dim(operator.index(d), ndim) for d in value)
    except TypeError:
        raise TypeError(f"tensordot(): expected dims_{which} to be a list of ints, got {value!r}") from None
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"tensordot(): dim appears multiple times in dims_{which}: {list(dims)}")
    return dims


declare(
    "tensordot",
    "Tensor (Tensor a, Tensor b, Object dims=2) => Tensordot",
    out=True,
    doc="""
    Contract the last ``dims`` dims of ``a`` with the first of ``b``, or the dims named
    by a pair of lists.

    >>> ember.tensordot(ember.ones((2, 3)), ember.ones((3, 4)), dims=([1], [0])).shape
    ember.Size([2, 4])
    """,
)
@functor("Tensordot")
def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int,)) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da = tuple(range(a.ndim - dims, a.ndim))
        db = tuple(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        da = _dims_list(dims[0], a.ndim, "a")
        db = _dims_list(dims[1], b.ndim, "b")
        if len(da) != len(db):
            raise RuntimeError(f"both dimension lists should have same length, got {len(da)} and {len(db)}")
    else:
        raise TypeError(f"tensordot(): argument 'dims' must be an int or a pair of lists of ints, not {dims!r}")
    return run(TENSORDOT, (a, b), {"dims_a": da, "dims_b": db}, out)


@TENSORDOT.grad_rule()
def _tensordot_grad(ctx, g):
    a, b = ctx.inputs
    da, db = ctx.attrs["dims_a"], ctx.attrs["dims_b"]
    letters = iter(string.ascii_letters)
    ta = [next(letters) for _ in range(a.ndim)]
    tb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(da, db, strict=True):
        tb[j] = ta[i]
    out = [c for i, c in enumerate(ta) if i not in da] + [c for j, c in enumerate(tb) if j not in db]
    return _einsum_grads("".join(ta) + "," + "".join(tb) + "->" + "".join(out), (a, b), g)
