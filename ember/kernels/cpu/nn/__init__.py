"""CPU kernels of the nn ops, one module for each module of ``ember/ops/nn/`` (same names).

The functors have checked every argument; these kernels only compute. Half types (float16,
bfloat16) compute in float32 and are written back at the end. Heavy ops are vectorized: a
convolution is one strided window view (im2col) and one batched matmul per call, pooling
reduces over a window view, separable resampling is a small matrix per axis.
"""

from . import attention, conv, cross_entropy, dropout, embedding, fold, linear, losses, norm, pooling, resample, rnn, softmax

__all__ = ["attention", "conv", "cross_entropy", "dropout", "embedding", "fold", "linear", "losses", "norm", "pooling", "resample", "rnn", "softmax"]
