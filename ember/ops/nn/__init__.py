"""Nn ops: the primitives, functors, inference rules and derivatives behind
``torch.nn.functional``, one module per sub-family:

- ``softmax``: softmax, log_softmax, softmin
- ``cross_entropy``: nll_loss, cross_entropy
- ``losses``: mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary cross entropy (on
  probabilities and on logits), kl_div
- ``linear``: linear, bilinear
- ``conv``: conv1d/2d/3d, conv_transpose1d/2d/3d
- ``pooling``: max, average, adaptive average and adaptive max pooling
- ``norm``: batch_norm, layer_norm, rms_norm, group_norm
- ``dropout``: dropout, dropout1d/2d/3d
- ``embedding``: embedding, one_hot
- ``resample``: interpolate
- ``attention``: scaled_dot_product_attention
- ``fold``: nn.functional.unfold (im2col) and nn.functional.fold (col2im)
- ``shuffle``: pixel_shuffle, pixel_unshuffle
- ``rnn``: the recurrences of LSTM and GRU, one op per layer and direction (no public entry)

In each, an op reads top to bottom: its schema entry, its functor, its primitive with the
inference rule, its derivative. The heavy ones are primitives with fused NumPy kernels in the
modules of the same names under ``ember/kernels/cpu/nn/``; the functors check arguments with
PyTorch's messages, fill in defaults and hand the kernels plain attributes (ints, floats,
tuples, strings). Optional tensor arguments (``weight``, ``bias``...) travel as extra inputs,
with ``has_*`` attributes saying which are present.

>>> import ember
>>> ember.softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()
[0.5, 0.5]
"""

# in the order their entries were declared in, which the generated functional API keeps
from . import softmax, cross_entropy, losses, linear, conv, pooling, norm, dropout, embedding, resample, attention, fold, shuffle, rnn  # isort: skip

__all__ = ["attention", "conv", "cross_entropy", "dropout", "embedding", "fold", "linear", "losses", "norm", "pooling", "resample", "rnn", "shuffle", "softmax"]
