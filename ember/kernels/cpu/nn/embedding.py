"""embedding (a gather of rows), its max_norm renormalization in place, and one_hot;
indices out of range raise PyTorch's errors.
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ....ops.indexing._common import check_index_range
from ..common import compute_dtype


@register_kernel("embedding")
def _embedding(outs, ins, attrs):
    weight, idx = ins
    check_index_range("embedding", idx, weight.shape[0])
    np.take(weight, idx, axis=0, out=outs[0], mode="clip")


@register_kernel("embedding_renorm")
def _embedding_renorm(outs, ins, attrs):
    weight, idx = outs[0], ins[1]
    if idx.size == 0:
        return
    check_index_range("embedding", idx, weight.shape[0])
    rows = np.unique(idx)
    ct = compute_dtype(weight.dtype)
    sel = weight[rows].astype(ct)
    norms = np.linalg.norm(sel, ord=attrs["norm_type"], axis=1)
    max_norm = attrs["max_norm"]
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1).astype(ct)
    weight[rows] = (sel * scale[:, None]).astype(weight.dtype)


@register_kernel("one_hot")
def _one_hot(outs, ins, attrs):
    out, idx = outs[0], ins[0]
    n = out.shape[-1]
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0:
            raise RuntimeError(f"Class values must be non-negative. (one_hot() got {lo})")
        if hi >= n:
            raise RuntimeError(f"Class values must be smaller than num_classes. (one_hot() got {hi} with num_classes={n})")
    out[...] = 0
    if idx.size:
        flat = out.reshape(-1, n)
        flat[np.arange(flat.shape[0]), idx.reshape(-1)] = 1
