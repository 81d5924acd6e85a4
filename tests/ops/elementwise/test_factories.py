"""What every elementwise op shares through its factory: type promotion (Python scalars weak,
the default dtype followed), computing in the promoted dtype, ``out=`` and in-place shapes, meta
tensors, silent IEEE specials, gradients cast back to each input's dtype, the family's aliases,
and the errors of argument parsing, broadcasting, casting and devices."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember.autograd import grad
from tests.ops.elementwise._grad_helpers import F64, leaf


def test_out_with_the_wrong_shape_is_refused():
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        ember.add(ember.ones(2, 3), ember.ones(3), out=ember.zeros(3))


def test_inplace_cannot_broadcast_self():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.ones(3).add_(ember.ones(2, 3))


def test_scalars_are_weak_in_promotion():
    i8 = ember.tensor([1, 2], dtype=ember.int8)
    assert (i8 + 1).dtype is ember.int8
    assert (i8 + 1000).tolist() == [-23, -22]  # wraps, as PyTorch
    assert (i8 * 2.5).dtype is ember.get_default_dtype()
    assert (i8 / 2).dtype is ember.float32
    assert (ember.tensor([True]) + True).dtype is ember.bool
    assert (ember.tensor([True]) + 1).dtype is ember.int64
    assert (ember.tensor([1.0], dtype=ember.float16) * 2.5).dtype is ember.float16
    assert (ember.tensor([1.0]) + 1j).dtype is ember.complex64
    assert (2 - ember.tensor([1, 5], dtype=ember.uint8)).tolist() == [1, 253]
    assert (2 ** ember.tensor([1, 3], dtype=ember.int16)).dtype is ember.int16
    assert (2.5 ** ember.tensor([2])).dtype is ember.float32


def test_results_follow_a_changed_default_dtype():
    i8 = ember.tensor([1, 2], dtype=ember.int8)
    assert (i8 * 2.5).dtype is ember.float32 and ember.sqrt(i8).dtype is ember.float32
    with ember.default_dtype(ember.float64):
        assert ember.sqrt(i8).tolist() == [1.0, math.sqrt(2.0)]  # the kernel computes in float64
        assert (i8 * 2.5).dtype is ember.float64
        assert ember.sqrt(i8).dtype is ember.float64


def test_mixed_dtypes_compute_in_the_promoted_dtype():
    # int32 2049 next to a float16 is first cast to float16 (2048), as PyTorch does
    a = ember.tensor([2049], dtype=ember.int32)
    h = ember.tensor([0.0], dtype=ember.float16)
    assert (a + h).dtype is ember.float16
    assert (a + h).tolist() == [2048.0]
    assert (a == h + 2048).tolist() == [True]
    # int8 + int8 wraps even into a wider out=
    out = ember.zeros(1, dtype=ember.int64)
    ember.add(ember.tensor([100], dtype=ember.int8), ember.tensor([100], dtype=ember.int8), out=out)
    assert out.tolist() == [-56]


@pytest.mark.parametrize(
    "fn, dtype",
    [
        (lambda x: x + 1, "uint16"), (lambda x: x * x, "uint32"), (lambda x: x // 2, "uint64"), (lambda x: x % 3, "uint16"),
        (lambda x: x << 1, "uint32"), (lambda x: x & 6, "uint64"), (lambda x: x < 3, "uint16"), (lambda x: abs(x - 1), "uint32"),
        (lambda x: -x, "uint16"), (lambda x: x * (x > 2), "uint64"),
    ],
)  # fmt: skip
def test_wide_unsigned_dtypes_against_numpy(fn, dtype):
    a = np.array([0, 1, 5, 200], dtype=dtype)
    result = fn(ember.from_numpy(a))
    with np.errstate(all="ignore"):
        expected = np.asarray(fn(a))
    if expected.dtype == np.int64 and dtype != "uint64":  # NumPy's where promotes a Python 0 to int64
        expected = expected.astype(dtype)
    assert result.dtype.name == expected.dtype.name
    np.testing.assert_array_equal(result.numpy(), expected)


def test_meta_tensors_infer_shape_and_dtype():
    a = ember.empty(2, 1, 3, device="meta", dtype=ember.int32)
    b = ember.empty(4, 1, device="meta", dtype=ember.float16)
    r = a + b
    assert r.shape == (2, 4, 3) and r.dtype is ember.float16 and r.is_meta
    assert ember.sqrt(a).dtype is ember.float32
    assert (a < 2).dtype is ember.bool
    assert ember.where(a > 0, a, 1.5).dtype is ember.float32
    assert ember.real(ember.empty(3, device="meta", dtype=ember.complex128)).dtype is ember.float64


def test_aliases_and_methods():
    t = ember.tensor([0.5, -0.5])
    pairs = [
        ("absolute", "abs"), ("negative", "neg"), ("subtract", "sub"), ("multiply", "mul"), ("divide", "div"),
        ("true_divide", "div"), ("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"), ("greater", "gt"),
        ("greater_equal", "ge"), ("bitwise_invert", "bitwise_not"), ("arccos", "acos"), ("arcsin", "asin"),
        ("arctan", "atan"), ("arccosh", "acosh"), ("arcsinh", "asinh"), ("arctanh", "atanh"), ("arctan2", "atan2"),
        ("clip", "clamp"), ("fix", "trunc"),
    ]  # fmt: skip
    for alias, name in pairs:
        assert getattr(ember, alias) is getattr(ember, name), alias
        assert getattr(ember.Tensor, alias) is getattr(ember.Tensor, name), alias
    assert t.abs().tolist() == [0.5, 0.5]
    assert t.add(1, alpha=2).tolist() == [2.5, 1.5]
    assert t.sub_(1) is t and t.tolist() == [-0.5, -1.5]
    assert ember.tensor([1, 2]).equal(ember.tensor([1, 2])) is True


def test_error_messages():
    f, i = ember.ones(2), ember.ones(2, dtype=ember.int64)
    with pytest.raises(
        TypeError,
        match=r"add\(\): argument 'other' \(position 2\) must be Tensor, not str|add\(\) received an invalid combination",
    ):
        ember.add(f, "a")
    with pytest.raises(
        RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1"
    ):
        ember.ones(2, 3) + ember.ones(2, 4)
    with pytest.raises(RuntimeError, match=r"result type float32 can't be cast to the desired output type int64"):
        i += 1.5
    with pytest.raises(TypeError, match=r"type promotion between ember\.int64 and ember\.uint64 is not defined"):
        i + ember.ones(2, dtype=ember.uint64)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        f + ember.ones(2, device="meta")


def test_ieee_special_results_are_silent_like_pytorch():
    code = "import ember; x = ember.tensor([float('inf'), 0.0]); print((x * 0).tolist(), ember.log(x).tolist(), (x / 0).tolist())"
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[nan, 0.0] [inf, -inf] [inf, nan]"


def test_mixed_dtypes_cast_gradients_back():
    a = leaf([1.0, 2.0], dtype=ember.float32)
    b = leaf([3.0, 4.0])
    ga, gb = grad(a * b, (a, b), ember.ones(2, dtype=F64))
    assert ga.dtype is ember.float32 and gb.dtype is F64
    assert ga.tolist() == [3.0, 4.0]
