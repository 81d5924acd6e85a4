"""dispatch, the eager-local interpreter, and the scoped mode."""

import threading

import numpy as np
import pytest

import ember
from ember.dispatch import EagerLocalInterpreter, Interpreter, OpExpr, current_interpreter, dispatch, interpreter_scope
from ember.dispatch.interpreter import EAGER
from ember.ops.elementwise import BINARY_OPS, UNARY_OPS

ADD = BINARY_OPS["add"][0]
NEG = UNARY_OPS["neg"]


def test_dispatch_runs_the_kernel_into_a_fresh_output():
    a, b = ember.tensor([1.0, 2.0]), ember.tensor([10.0, 20.0])
    (out,) = dispatch(ADD, (a, b))
    assert out.tolist() == [11.0, 22.0]
    assert out.untyped_storage().data_ptr() not in (a.untyped_storage().data_ptr(), b.untyped_storage().data_ptr())
    assert out.is_contiguous() and out.dtype is ember.float32


def test_inputs_on_two_devices_are_refused_with_pytorchs_message():
    a, m = ember.ones(2), ember.empty(2, device="meta")
    with pytest.raises(
        RuntimeError,
        match=r"^Expected all tensors to be on the same device, but found at least two devices, cpu \(positional 0\) and meta \(positional 1\)!$",
    ):
        a + m


def test_meta_tensors_run_inference_and_no_kernel():
    class Boom(Exception):
        pass

    def kernel(outs, ins, attrs):
        raise Boom

    op = OpExpr("test_meta_only", ("x",), ("y",))
    op.infer = lambda attrs, x: (((*x._shape, 2), ember.float64),)
    op.kernels["cpu"] = kernel
    m = ember.empty(3, device="meta")
    (y,) = dispatch(op, (m,))
    assert y.shape == (3, 2) and y.dtype is ember.float64 and y.is_meta
    with pytest.raises(Boom):
        dispatch(op, (ember.ones(3),))
    c = ember.add(ember.empty(2, 1, device="meta"), ember.empty(3, device="meta"))
    assert c.shape == (2, 3) and c.is_meta


def test_in_place_and_out_results_are_checked():
    a = ember.ones(3)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        a.add_(ember.ones(2, 3))
    i = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        i.add_(1.5)
    out = ember.empty(2)
    assert ember.add(ember.ones(2), 1, out=out) is out and out.tolist() == [2.0, 2.0]
    v = a._version
    a.add_(1)
    assert a._version == v + 1


def test_writes_into_read_only_or_expanded_outputs_are_refused():
    frozen = np.ones(2, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        ember.from_numpy(frozen).add_(1)
    e = ember.ones(1).expand(3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1)


def test_non_contiguous_inputs_reach_kernels_that_need_contiguity_contiguous():
    seen = []
    op = OpExpr("test_needs_contiguous", ("x",), ("y",), strided=False)
    op.infer = lambda attrs, x: ((x._shape, x._dtype),)

    def kernel(outs, ins, attrs):
        seen.append(ins[0].flags.c_contiguous)
        outs[0][...] = ins[0]

    op.kernels["cpu"] = kernel
    t = ember.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    (y,) = dispatch(op, (t,))
    assert seen == [True] and y.tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_inference_is_cached_per_signature_and_scalar_type():
    EAGER._cache.clear()
    i = ember.tensor([1, 2])
    assert (i + 2).dtype is ember.int64
    assert (i + 2.0).dtype is ember.float32  # 2 == 2.0 must not share a cache entry
    assert (i + True).dtype is ember.int64
    assert any(key[0] is BINARY_OPS["add"][1] for key in (k[0] if isinstance(k[0], tuple) else k for k in EAGER._cache))


class Recording(Interpreter):
    name = "recording"

    def __init__(self):
        self.seen = []

    def apply(self, op, inputs, attrs, outputs=None):
        self.seen.append(op.name)
        return EAGER.apply(op, inputs, attrs, outputs)


def test_interpreter_scope_is_scoped_and_per_thread():
    rec = Recording()
    default = current_interpreter()  # autograd's wrapper around EAGER, once ember is imported
    other_thread = []
    x = ember.ones(1)
    with interpreter_scope(rec):
        ember.neg(x)
        t = threading.Thread(target=lambda: other_thread.append(current_interpreter()))
        t.start()
        t.join()
    assert rec.seen == ["neg"]
    assert other_thread == [default]
    assert current_interpreter() is default
    with pytest.raises(ValueError), interpreter_scope(rec):
        raise ValueError
    assert current_interpreter() is default
    with pytest.raises(TypeError, match="expected an Interpreter"):
        with interpreter_scope("eager"):
            pass


def test_missing_kernel_is_a_clear_error():
    op = OpExpr("test_no_kernel", ("x",), ("y",))
    op.infer = lambda attrs, x: ((x._shape, x._dtype),)
    with pytest.raises(NotImplementedError, match="test_no_kernel: no kernel for device type 'cpu'"):
        dispatch(op, (ember.ones(1),))
    assert isinstance(EAGER, EagerLocalInterpreter)
