"""einsum and tensordot against torch (shapes, dtypes, errors), and their derivatives."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, to_ember, to_torch, torch

from ._helpers import GRAD_RNG, R, close, grads_match_torch, rand

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("...ij->...", [(2, 3, 4)]),
    ("i...->i", [(2, 3, 4)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,i->", [(3,), (3,)]),
    ("i,i->i", [(3,), (1,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("b i d, b j d -> b i j", [(2, 3, 4), (2, 5, 4)]),
    ("Aa,aB->AB", [(2, 3), (3, 2)]),
    ("i...,i...->...", [(2, 3), (2, 1)]),
    ("ij,jk->ik", [(0, 3), (3, 2)]),
]


@needs_torch
@pytest.mark.parametrize("equation,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_einsum_matches_torch(equation, shapes, dtype):
    arrays = [rand(s, dtype) for s in shapes]
    expected = torch.einsum(equation, *[to_torch(a) for a in arrays])
    result = ember.einsum(equation, [to_ember(a) for a in arrays])
    assert result.shape == tuple(expected.shape) and result.dtype.name == dtype
    close(result.numpy(), expected.numpy(), dtype, equation)


def test_einsum_noncontiguous_out_and_half():
    a = rand((4, 3))
    e = to_ember(a).t()
    out = ember.empty(3, 3, dtype=ember.float64)
    assert ember.einsum("ij,jk->ik", [e, to_ember(a)], out=out) is out
    close(out.numpy(), a.T @ a, "float64")
    h = ember.einsum("ij,jk->ik", [to_ember(a.astype("float16")), to_ember(a.T.astype("float16"))])
    assert h.dtype is ember.float16
    close(h.numpy(), a @ a.T, "float16")


def test_einsum_errors():
    with pytest.raises(
        RuntimeError,
        match="einsum\\(\\): subscript j has size 3 for operand 1 which does not broadcast with previously seen size 2",
    ):
        ember.einsum("ij,jk", [ember.ones(2, 2), ember.ones(3, 2)])
    with pytest.raises(RuntimeError, match="fewer operands were provided than specified in the equation"):
        ember.einsum("ij,jk", [ember.ones(2, 2)])
    with pytest.raises(
        RuntimeError,
        match=r"the number of subscripts in the equation \(3\) does not match the number of dimensions \(2\) for operand 0",
    ):
        ember.einsum("ijk,jk", [ember.ones(2, 2), ember.ones(2, 2)])
    with pytest.raises(RuntimeError, match="output subscript k does not appear"):
        ember.einsum("ij->k", [ember.ones(2, 2)])
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.einsum("i,i", [ember.ones(2), ember.ones(2, dtype=ember.float64)])


@needs_torch
@pytest.mark.parametrize(
    "sa,sb,dims",
    [
        ((2, 3, 4), (3, 4, 5), 2),
        ((2, 3), (3, 4), 1),
        ((2, 3), (4, 5), 0),
        ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
        ((2, 3), (3,), ([1], [0])),
        ((2, 3), (1, 4), ([1], [0])),
    ],
)
def test_tensordot_matches_torch(sa, sb, dims):
    a, b = rand(sa), rand(sb)
    expected = torch.tensordot(to_torch(a), to_torch(b), dims=dims)
    result = ember.tensordot(to_ember(a), to_ember(b), dims=dims)
    assert result.shape == tuple(expected.shape)
    close(result.numpy(), expected.numpy(), "float64")


def test_tensordot_errors():
    with pytest.raises(
        RuntimeError, match="contracted dimensions need to match, but first has size 4 in dim 2 and second has size 5 in dim 1"
    ):
        ember.tensordot(ember.ones(2, 3, 4), ember.ones(3, 5, 5), dims=([1, 2], [0, 1]))
    with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
        ember.tensordot(ember.ones(2, 3), ember.ones(3, dtype=ember.float64), 1)


# ---------------------------------------------------------------------------------------
# derivatives

CASES = {
    "tensordot_int": (lambda a, b: ember.tensordot(a, b, 1), lambda: (R(3, 4), R(4, 2))),
    "tensordot_lists": (lambda a, b: ember.tensordot(a, b, dims=([1, 0], [0, 2])), lambda: (R(3, 4, 2), R(4, 5, 3))),
    "einsum_mm": (lambda a, b: ember.einsum("ij,jk->ik", a, b), lambda: (R(3, 4), R(4, 2))),
    "einsum_diag": (lambda a: ember.einsum("ii->i", a), lambda: (R(3, 3),)),
    "einsum_trace_and_sum": (lambda a, b: ember.einsum("iij,k->j", a, b), lambda: (R(3, 3, 2), R(4))),
    "einsum_ellipsis_broadcast": (lambda a, b: ember.einsum("...ij,...jk", a, b), lambda: (R(2, 3, 4), R(1, 4, 2))),
    "einsum_three": (lambda a, b, c: ember.einsum("ij,jk,kl->il", a, b, c), lambda: (R(2, 3), R(3, 4), R(4, 2))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", ["einsum_three", "tensordot_lists"])
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


@needs_torch
def test_einsum_gradient_matches_torch():
    grads_match_torch(
        lambda a, b: ember.einsum("bii,bj->bj", a, b),
        lambda a, b: torch.einsum("bii,bj->bj", a, b),
        [GRAD_RNG.standard_normal((2, 3, 3)), GRAD_RNG.standard_normal((2, 4))],
    )


# --- integers and bools: a subscript summed within one operand promotes it to int64, as sum does --

_INTEGER_EQUATIONS = {
    "ij->i": ([(2, 3)], "int64"),
    "ij->": ([(2, 3)], "int64"),
    "ii->": ([(3, 3)], "int64"),
    "iij->i": ([(3, 3, 2)], "int64"),
    "ii->i": ([(3, 3)], None),
    "ij->ji": ([(2, 3)], None),
    "ij,jk->ik": ([(2, 3), (3, 4)], None),
    "ij,j->i": ([(2, 3), (3,)], None),
    "ij,k->i": ([(2, 3), (4,)], "int64"),
    "ij,i->i": ([(2, 3), (2,)], "int64"),
    "ij,j->": ([(2, 3), (3,)], RuntimeError),
    "ij,jk->i": ([(2, 3), (3, 4)], RuntimeError),
}


@pytest.mark.parametrize("dtype", ["int16", "uint8", "int32", "int64"])
@pytest.mark.parametrize("equation", sorted(_INTEGER_EQUATIONS))
def test_einsum_integer_dtype(equation, dtype):
    shapes, expected = _INTEGER_EQUATIONS[equation]
    operands = [ember.full(s, 100, dtype=getattr(ember, dtype)) for s in shapes]
    if expected is RuntimeError and dtype != "int64":
        with pytest.raises(RuntimeError, match=r"einsum.*expected scalar type Long"):
            ember.einsum(equation, *operands)
        return
    out = ember.einsum(equation, *operands)
    assert out.dtype == getattr(ember, expected if expected not in (None, RuntimeError) else dtype)
    if expected == "int64":  # summed in int64: no wrap-around in the narrow dtype
        assert out.tolist() == np.einsum(equation, *[np.full(s, 100, dtype=np.int64) for s in shapes]).tolist()


@pytest.mark.parametrize("equation", ["ij->i", "ii->", "ii->i", "ij->ji", "i,j->ij", "ij,k->i"])
def test_einsum_bool(equation):
    shapes = {
        "ij->i": [(2, 3)],
        "ii->": [(3, 3)],
        "ii->i": [(3, 3)],
        "ij->ji": [(2, 3)],
        "i,j->ij": [(2,), (3,)],
        "ij,k->i": [(2, 3), (4,)],
    }[equation]
    out = ember.einsum(equation, *[ember.ones(s, dtype=ember.bool) for s in shapes])
    expected = ember.bool if equation in ("ii->i", "ij->ji", "i,j->ij") else ember.int64
    assert out.dtype == expected
    with pytest.raises(NotImplementedError, match="bmm"):
        ember.einsum("ij,jk->ik", ember.ones((2, 3), dtype=ember.bool), ember.ones((3, 4), dtype=ember.bool))


@needs_torch
@pytest.mark.parametrize("dtype", ["int16", "uint8", "bool"])
@pytest.mark.parametrize("equation", sorted(_INTEGER_EQUATIONS))
def test_einsum_integer_dtype_matches_torch(equation, dtype):
    shapes = _INTEGER_EQUATIONS[equation][0]
    e_ops = [ember.ones(s, dtype=getattr(ember, dtype)) for s in shapes]
    t_ops = [torch.ones(s, dtype=getattr(torch, dtype)) for s in shapes]
    try:
        expected = torch.einsum(equation, *t_ops)
    except (RuntimeError, NotImplementedError):
        with pytest.raises((RuntimeError, NotImplementedError)):
            ember.einsum(equation, *e_ops)
        return
    out = ember.einsum(equation, *e_ops)
    assert str(out.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert out.tolist() == expected.tolist()
