"""CPU kernels of the elementwise ops.

NumPy's ufuncs write into ``out`` directly and handle broadcasting, strides and overlapping
input/output (in-place ops). When the inputs' dtype differs from the output's, the ufunc
computes in the output dtype (``dtype=``), as PyTorch computes in the promoted type.
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel


def _ufunc1(name: str, ufunc: np.ufunc) -> None:
    def kernel(outs, ins, attrs):
        y = outs[0]
        x = ins[0]
        if x.dtype == y.dtype:
            ufunc(x, out=y)
        else:
            ufunc(x, out=y, dtype=y.dtype, casting="unsafe")

    kernel.__name__ = kernel.__qualname__ = f"{name}_cpu"
    register_kernel(name)(kernel)


def _ufunc2(name: str, ufunc: np.ufunc) -> None:
    def kernel(outs, ins, attrs):
        out = outs[0]
        a, b = ins
        if a.dtype == out.dtype and b.dtype == out.dtype:
            ufunc(a, b, out=out)
        else:
            ct = _compute_dtype(a, b, out)
            ufunc(a, b, out=out, signature=(ct, ct, None), casting="unsafe")

    def kernel_scalar(outs, ins, attrs):
        out = outs[0]
        a = ins[0]
        if a.dtype == out.dtype or out.dtype == np.bool_:
            ufunc(a, attrs["other"], out=out)
        else:
            ufunc(a, attrs["other"], out=out, signature=(out.dtype, out.dtype, None), casting="unsafe")

    kernel.__name__ = kernel.__qualname__ = f"{name}_cpu"
    kernel_scalar.__name__ = kernel_scalar.__qualname__ = f"{name}_scalar_cpu"
    register_kernel(name)(kernel)
    register_kernel(name + "_scalar")(kernel_scalar)


def _compute_dtype(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.dtype:
    # comparisons output bool but compute in the promoted input dtype
    return np.promote_types(a.dtype, b.dtype) if out.dtype == np.bool_ else out.dtype


def relu(outs, ins, attrs):
    np.maximum(ins[0], 0, out=outs[0])


register_kernel("relu")(relu)
_ufunc1("neg", np.negative)
_ufunc1("exp", np.exp)
_ufunc2("add", np.add)
_ufunc2("sub", np.subtract)
_ufunc2("mul", np.multiply)
_ufunc2("eq", np.equal)
