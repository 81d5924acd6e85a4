"""0-d tensors in promotion: PyTorch's rule at the top level, the array API's in ``ember.array_api``.

The rule these tests hold ember to, written out (not read from ember's own ``result_type``):
operands fall in three groups, dimensioned tensors, 0-d tensors and Python scalars. Each group
is promoted within itself; a lower group only counts when its category (bool < integer <
floating < complex) is above the result of the groups over it, and then a 0-d tensor brings its
own dtype, a Python scalar its category's default (int64, the default float). A floating result
lifted by a complex operand keeps its precision (float32 with a 0-d complex128 is complex64).
Without a dimensioned tensor, the 0-d tensors lead. The array API promotes every array alike.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.array_api as xp
import ember.graph as eg
from tests._oracle import REFUSALS, needs_torch, torch

_CATEGORY = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1,
             "float16": 2, "bfloat16": 2, "float32": 2, "float64": 2, "complex64": 3, "complex128": 3}  # fmt: skip

# (input dtype, its shape, other dtype, its shape, the promoted dtype by the rule above)
CASES = [
    # same category: the dimensioned tensor decides
    ("float32", (2,), "float64", (), "float32"),
    ("float64", (2,), "float32", (), "float64"),
    ("int32", (2,), "int64", (), "int32"),
    ("int8", (2,), "uint8", (), "int8"),
    ("float16", (2,), "bfloat16", (), "float16"),
    ("complex64", (2,), "complex128", (), "complex64"),
    # a higher category in the 0-d tensor: its own dtype
    ("int32", (2,), "float64", (), "float64"),
    ("uint8", (2,), "float16", (), "float16"),
    ("int16", (2,), "complex128", (), "complex128"),
    ("float32", (2,), "complex128", (), "complex64"),  # the floating precision stays
    # a lower category in the 0-d tensor: nothing
    ("float32", (2,), "int64", (), "float32"),
    ("complex64", (2,), "float64", (), "complex64"),
    ("int8", (2,), "bool", (), "int8"),
    # bool
    ("bool", (2,), "int32", (), "int32"),
    ("bool", (2,), "float64", (), "float64"),
    ("bool", (2,), "bool", (), "bool"),
    # 0-d on the left, dimensioned on the right
    ("float64", (), "float32", (2,), "float32"),
    ("int64", (), "int8", (2,), "int8"),
    ("float64", (), "int32", (2,), "float64"),
    # 0-d with 0-d: plain promotion
    ("int32", (), "int64", (), "int64"),
    ("float32", (), "float64", (), "float64"),
    ("int64", (), "float16", (), "float16"),
    # dimensioned with dimensioned: plain promotion
    ("float32", (2,), "float64", (2,), "float64"),
    ("int32", (2,), "int64", (1,), "int64"),
]

_INT, _FLOAT, _ALL = {1}, {2}, {0, 1, 2, 3}


def _same(promoted: str) -> str:
    return promoted


def _to_float(promoted: str) -> str:
    return promoted if _CATEGORY[promoted] >= 2 else "float32"


def _to_bool(promoted: str) -> str:
    return "bool"


# name: (ember call, torch call, result dtype from the promoted one, categories the hand table checks)
OPS = {
    "add": (ember.add, "add", _same, _ALL),
    "sub": (ember.sub, "sub", _same, {1, 2, 3}),
    "mul": (ember.mul, "mul", _same, _ALL),
    "div": (ember.div, "div", _to_float, _ALL),
    "maximum": (ember.maximum, "maximum", _same, {0, 1, 2}),
    "minimum": (ember.minimum, "minimum", _same, {0, 1, 2}),
    "atan2": (ember.atan2, "atan2", _to_float, _FLOAT),
    "pow": (ember.pow, "pow", _same, {1, 2, 3}),
    "eq": (ember.eq, "eq", _to_bool, _ALL),
    "lt": (ember.lt, "lt", _to_bool, {0, 1, 2}),
    "bitwise_and": (ember.bitwise_and, "bitwise_and", _same, {0, 1}),
    "bitwise_xor": (ember.bitwise_xor, "bitwise_xor", _same, {0, 1}),
    "copysign": (ember.copysign, "copysign", _to_float, _FLOAT),
    "fmod": (ember.fmod, "fmod", _same, {1, 2}),
    "remainder": (ember.remainder, "remainder", _same, {1, 2}),
    "floor_divide": (ember.floor_divide, "floor_divide", _same, {1, 2}),
    "hypot": (ember.hypot, "hypot", _same, _FLOAT),
    "logaddexp": (ember.logaddexp, "logaddexp", _same, _FLOAT),
    "where": (lambda a, b: ember.where(ember.tensor(True), a, b), "where", _same, _ALL),
    "clamp_min": (lambda a, b: ember.clamp(a, b), "clamp_min", _same, {1, 2}),
    "add_alpha": (lambda a, b: ember.add(a, b, alpha=2), "add_alpha", _same, {1, 2, 3}),
}

_TORCH_CALLS = {
    "where": lambda a, b: torch.where(torch.tensor(True), a, b),
    "clamp_min": lambda a, b: torch.clamp(a, b),
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2),
}


def _ember(dtype: str, shape: tuple) -> ember.Tensor:
    return ember.ones(shape, dtype=getattr(ember, dtype))


def _case_id(case) -> str:
    a, sa, b, sb, _ = case
    return f"{a}{list(sa)}-{b}{list(sb)}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("name", sorted(OPS))
def test_zero_dim_promotion_follows_the_rule(name, case):
    fn, _, result, categories = OPS[name]
    a, sa, b, sb, promoted = case
    if not {_CATEGORY[a], _CATEGORY[b], _CATEGORY[promoted]} <= categories:
        pytest.skip(f"{name} is checked on {a} and {b} against torch only")
    out = fn(_ember(a, sa), _ember(b, sb))
    assert out.dtype == getattr(ember, result(promoted)), (name, case)


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("name", sorted(OPS))
def test_zero_dim_promotion_matches_torch(name, case):
    fn, torch_name, _, _ = OPS[name]
    a, sa, b, sb, _ = case
    torch_fn = _TORCH_CALLS.get(name) or getattr(torch, torch_name)
    try:
        expected = torch_fn(torch.ones(sa, dtype=getattr(torch, a)), torch.ones(sb, dtype=getattr(torch, b)))
    except REFUSALS:
        with pytest.raises(REFUSALS):
            fn(_ember(a, sa), _ember(b, sb))
        return
    out = fn(_ember(a, sa), _ember(b, sb))
    assert str(out.dtype) == str(expected.dtype).replace("torch.", "ember."), (name, case)


# three groups at once: (input, other, Python scalar or None, expected)
SCALAR_CASES = [
    (("int32", (2,)), ("int64", ()), 2.5, "float32"),  # the scalar lifts to the default float
    (("int32", (2,)), ("float64", ()), 2.5, "float64"),  # the 0-d float64 is over the scalar
    (("float32", (2,)), ("float64", ()), 1j, "complex64"),
    (("int8", ()), ("int16", ()), 1000, "int16"),  # 0-d tensors lead, an int scalar adds nothing
    (("int32", ()), ("int64", ()), 2.5, "float32"),
    (("bool", (2,)), ("bool", ()), 3, "int64"),
]


@pytest.mark.parametrize("case", SCALAR_CASES, ids=str)
def test_three_groups(case):
    (a, sa), (b, sb), scalar, expected = case
    out = ember.add(ember.add(_ember(a, sa), _ember(b, sb)), scalar)
    assert out.dtype == getattr(ember, expected)
    assert ember.result_type(_ember(a, sa), _ember(b, sb), scalar) == getattr(ember, expected)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_a_zero_dim_tensor_with_a_python_scalar(dtype):
    # 0-d with a Python scalar: the tensor's dtype unless the scalar's category is higher
    t = _ember(dtype, ())
    assert (t + 2).dtype == (ember.int64 if dtype == "bool" else getattr(ember, dtype))
    assert (t * 2.5).dtype == (getattr(ember, dtype) if dtype == "float32" else ember.float32)
    if torch is not None:
        tt = torch.ones((), dtype=getattr(torch, dtype))
        assert str((tt + 2).dtype)[6:] == str((t + 2).dtype)[6:]
        assert str((tt * 2.5).dtype)[6:] == str((t * 2.5).dtype)[6:]


def test_result_type_and_ternary_ops():
    i32, f32 = _ember("int32", (2,)), _ember("float32", (2,))
    f64_0d, c128_0d = _ember("float64", ()), _ember("complex128", ())
    assert ember.result_type(f32, f64_0d) is ember.float32
    assert ember.result_type(i32, f64_0d) is ember.float64
    assert ember.result_type(f32, c128_0d) is ember.complex64
    assert ember.clamp(f32, f64_0d, f64_0d).dtype is ember.float32
    assert ember.clamp(i32, f64_0d).dtype is ember.float64
    assert ember.lerp(f32, f32, f64_0d).dtype is ember.float32  # a 0-d weight is weak
    assert ember.lerp(f32, f32, _ember("int64", ())).dtype is ember.float32
    with pytest.raises(RuntimeError, match=r"lerp.*weight"):
        ember.lerp(f32, f32, _ember("float64", (2,)))


def test_in_place_and_out_follow_the_result_dtype():
    a = _ember("float32", (3,))
    a += ember.tensor(2.0, dtype=ember.float64)  # float32 result: writes into float32
    assert a.dtype is ember.float32 and a.tolist() == [3.0, 3.0, 3.0]
    i = _ember("int32", (3,))
    i += ember.tensor(2, dtype=ember.int64)
    assert i.dtype is ember.int32 and i.tolist() == [3, 3, 3]
    with pytest.raises(RuntimeError, match=r"add\(\): result type float64 can't be cast to the desired output type int32"):
        i += ember.tensor(2.5, dtype=ember.float64)  # a higher category: float64, as in torch


def test_kernels_compute_in_the_result_dtype():
    # PyTorch casts the 0-d operand to the common dtype first: 2**40 + 5 wraps to 5 in int32,
    # an int8 -1 next to uint8 tensors is 255
    big = ember.tensor(2**40 + 5)
    small = ember.tensor([1, 7], dtype=ember.int32)
    assert (small + big).dtype is ember.int32
    assert (small + big).tolist() == [6, 12]
    assert (small < big).tolist() == [True, False]
    shifted = ember.bitwise_right_shift(ember.tensor(-1, dtype=ember.int8), ember.tensor([5], dtype=ember.uint8))
    assert shifted.dtype is ember.uint8 and shifted.tolist() == [7]
    if torch is not None:
        tb, ts = torch.tensor(2**40 + 5), torch.tensor([1, 7], dtype=torch.int32)
        assert (ts + tb).tolist() == (small + big).tolist()
        assert (ts < tb).tolist() == (small < big).tolist()


def test_gradients_keep_each_inputs_dtype():
    a = ember.ones(3, requires_grad=True)
    b = ember.tensor(2.0, dtype=ember.float64, requires_grad=True)
    out = a * b
    assert out.dtype is ember.float32
    out.sum().backward()
    assert a.grad.dtype is ember.float32 and b.grad.dtype is ember.float64
    assert a.grad.tolist() == [2.0, 2.0, 2.0] and b.grad.item() == 3.0
    if torch is not None:
        ta = torch.ones(3, requires_grad=True)
        tb = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
        (ta * tb).sum().backward()
        assert (ta.grad.dtype, tb.grad.dtype) == (torch.float32, torch.float64)


def test_graph_unknown_rank_counts_as_dimensioned():
    with eg.Graph().as_default():
        unknown = eg.placeholder(ember.float32, shape=None)
        scalar = eg.placeholder(ember.float32, shape=[])
        c = ember.tensor(1.0, dtype=ember.float64)
        assert (unknown + c).dtype is ember.float32
        assert (scalar + c).dtype is ember.float64  # two 0-d tensors: plain promotion
        with eg.Session() as sess:
            np.testing.assert_array_equal(sess.run(unknown + c, {unknown: [1.0, 2.0]}), [2.0, 3.0])


# --------------------------------------------------------------------------------------
# ember.array_api: every array promotes alike, 0-d or not


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_array_api_promotes_zero_dim_arrays_as_any_other(case):
    a, sa, b, sb, _ = case
    x1, x2 = _ember(a, sa), _ember(b, sb)
    expected = xp.result_type(getattr(ember, a), getattr(ember, b))  # its table of dtypes, shapes aside
    assert xp.add(x1, x2).dtype == expected
    assert xp.result_type(x1, x2) == expected
    assert xp.where(xp.asarray(True), x1, x2).dtype == expected
    assert xp.equal(x1, x2).dtype == xp.bool


def test_array_api_examples():
    f32, f64_0d = xp.ones(3, dtype=xp.float32), xp.asarray(1.0, dtype=xp.float64)
    assert xp.add(f32, f64_0d).dtype == xp.float64
    assert xp.multiply(xp.asarray(2, dtype=xp.int64), xp.ones(2, dtype=xp.int8)).dtype == xp.int64
    assert xp.add(f32, 2.0).dtype == xp.float32  # Python scalars stay weak
    assert (f32 + f64_0d).dtype == xp.float32  # the operators are ember's (PyTorch's rule)
