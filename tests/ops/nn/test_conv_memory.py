"""Convolution kernels make their im2col columns a few samples at a time: the peak memory of a
convolution (forward, input and weight gradients) stays far below the whole batch's columns, and
the results do not depend on how the batch is cut."""

import tracemalloc

import numpy as np
import pytest

import ember
from ember.kernels.cpu.nn import conv as conv_kernels


def _traced_peak(fn) -> tuple[object, int]:
    """fn's result and the most bytes NumPy (and Python) held above the start while it ran."""
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        result = fn()
        return result, tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


def test_conv2d_forward_and_backward_do_not_hold_the_whole_batch_columns():
    n, c_in, c_out, size = 64, 16, 32, 32
    x = ember.randn(n, c_in, size, size, requires_grad=True)
    w = ember.randn(c_out, c_in, 3, 3, requires_grad=True)
    columns = n * c_in * 9 * size * size * 4  # the batch's im2col: 37.7 MB, 9x the input
    y, forward = _traced_peak(lambda: ember.conv2d(x, w, padding=1))
    grad = ember.ones_like(y)
    _, backward = _traced_peak(lambda: y.backward(grad))
    # output (8 MB) and padded input (4.7 MB) are needed; one chunk of columns is ~2 MB
    assert forward < columns / 2, f"forward peaked at {forward / 2**20:.1f} MB"
    assert backward < columns / 2, f"backward peaked at {backward / 2**20:.1f} MB"
    assert x.grad is not None and w.grad is not None


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("kwargs", [{"padding": 1}, {"stride": 2, "dilation": 2, "groups": 2}])
def test_results_do_not_depend_on_the_chunk_size(monkeypatch, dtype, kwargs):
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((5, 4, 9, 9)).astype(np.float32)
    w0 = rng.standard_normal((6, 4 // kwargs.get("groups", 1), 3, 3)).astype(np.float32)

    def run():
        x = ember.from_numpy(x0).to(getattr(ember, dtype)).requires_grad_()
        w = ember.from_numpy(w0).to(getattr(ember, dtype)).requires_grad_()
        y = ember.conv2d(x, w, **kwargs)
        y.backward(ember.ones_like(y))
        return [t.detach().double().numpy() for t in (y, x.grad, w.grad)]

    whole = run()
    monkeypatch.setattr(conv_kernels, "COLUMN_BYTES", 1)  # one sample a chunk
    one_by_one = run()
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-2, "bfloat16": 1e-1}[dtype]
    for a, b in zip(whole, one_by_one, strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * 10)
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(x0).double().requires_grad_()
    w = torch.from_numpy(w0).double().requires_grad_()
    y = torch.nn.functional.conv2d(x, w, **kwargs)
    y.backward(torch.ones_like(y))
    for mine, theirs in zip(one_by_one, (y, x.grad, w.grad), strict=True):
        np.testing.assert_allclose(mine, theirs.detach().numpy(), rtol=tol, atol=tol * 30)
