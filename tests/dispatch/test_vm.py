"""The VM: synchronous by default, an asynchronous stream in a scope, errors at sync points."""

import threading

import pytest

import ember
from ember.dispatch import OpExpr, dispatch, vm
from ember.dispatch.interpreter import EAGER


def test_the_default_stream_is_synchronous():
    assert not vm.is_asynchronous()
    assert not vm.stream_for(ember.device("cpu")).asynchronous


def test_asynchronous_results_are_right_at_sync_points():
    x = ember.arange(1000.0) if hasattr(ember, "arange") else ember.tensor([float(i) for i in range(1000)])
    with ember.vm.asynchronous():
        assert vm.is_asynchronous()
        y = x
        for _ in range(20):
            y = y + 1.0
        assert y.tolist()[:3] == [20.0, 21.0, 22.0]  # tolist is a sync point
        z = ember.relu(y - 500.0)
        assert float(z.numpy()[0]) == 0.0
    assert not vm.is_asynchronous()


def test_a_failing_kernel_surfaces_at_the_next_sync_with_the_op_and_call_site():
    op = OpExpr("test_async_failure", ("x",), ("y",))
    op.infer = lambda attrs, x: ((x._shape, x._dtype),)

    def kernel(outs, ins, attrs):
        raise ValueError("bad values")

    op.kernels["cpu"] = kernel
    x = ember.ones(2)
    with pytest.raises(vm.AsyncKernelError) as info:
        with ember.vm.asynchronous():
            (y,) = dispatch(op, (x,))  # returns at once
            z = y + 1  # queued behind the failure, dropped
            z.tolist()
    message = str(info.value)
    assert "test_async_failure" in message and "bad values" in message
    assert "test_vm.py" in message  # the user's line, not ember's
    EAGER._cache.clear()


def test_async_streams_belong_to_the_thread_that_opened_them():
    seen = []
    with ember.vm.asynchronous():
        t = threading.Thread(target=lambda: seen.append(vm.is_asynchronous()))
        t.start()
        t.join()
    assert seen == [False]
