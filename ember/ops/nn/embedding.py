"""embedding (rows of a weight matrix at integer ids; ``max_norm`` renormalizes the rows it
uses, in place) and one_hot. Kernels: ``ember/kernels/cpu/nn/embedding.py``.

>>> import ember
>>> ember.one_hot(ember.tensor([1]), 3).tolist()
[[0, 1, 0]]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ...dispatch.grad_mode import no_grad
from .. import sbp_rules
from ..common import functional as _F
from ..functor import functor
from ..indexing._common import check_index_dtype
from ..schema import schema_family

declare = schema_family("nn", namespaces=("nn.functional",))


declare(
    "embedding",
    "Tensor (Tensor input, Tensor weight, Int? padding_idx=None, Float? max_norm=None, Float norm_type=2.0, Bool scale_grad_by_freq=False, Bool sparse=False) => Embedding",
    op=("embedding", "embedding_renorm"),
    doc="""
    Rows of ``weight`` at the integer ids in ``input``; ``max_norm`` renormalizes the used rows in place.

    >>> ember.embedding(ember.tensor([1]), ember.tensor([[0.0], [5.0]])).tolist()
    [[5.0]]
    """,
)
@functor("Embedding")
def embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse):
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    check_index_dtype("embedding", input)
    if padding_idx is not None and not -weight._shape[0] <= padding_idx < weight._shape[0]:
        raise AssertionError("Padding_idx must be within num_embeddings")  # PyTorch's type (an assert there)
    if max_norm is not None:  # as PyTorch: the renormalization is no part of the graph
        attrs = {"max_norm": float(max_norm), "norm_type": float(norm_type)}
        with no_grad():
            dispatch(_EMBEDDING_RENORM, (weight, input), attrs, (weight,))
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight._shape[0]
    attrs = {"padding_idx": padding_idx, "scale_grad_by_freq": bool(scale_grad_by_freq)}
    return dispatch(_EMBEDDING, (weight, input), attrs)[0]


_EMBEDDING = OpExpr("embedding", ("weight", "indices"), ("out",)).tag(sbp=sbp_rules.embedding)
_EMBEDDING_RENORM = OpExpr("embedding_renorm", ("weight", "indices"), ("weight_out",))
_EMBEDDING_RENORM.differentiable = False  # max_norm renormalises rows in place, under no_grad, as PyTorch does


@_EMBEDDING.shape_rule
def _embedding_infer(attrs, w, idx):
    return ((idx._shape + w._shape[1:], w._dtype),)


@_EMBEDDING_RENORM.shape_rule
def _embedding_renorm_infer(attrs, w, idx):
    return ((w._shape, w._dtype),)


@_EMBEDDING.grad_rule(saves=("indices",))
def _embedding_grad(ctx, g):
    F = _F()
    _, idx = ctx.inputs
    (v, d), dtype = ctx.input_meta[0]
    flat = idx.reshape(-1)
    rows = g.reshape(-1, d)
    pad = ctx.attrs.get("padding_idx")
    if pad is not None:
        rows = rows * (flat != pad).unsqueeze(-1)
    if ctx.attrs.get("scale_grad_by_freq"):
        counts = F.zeros((v,), dtype=dtype).index_add(0, flat, F.ones(flat._shape, dtype=dtype))
        rows = rows / F.take(counts, flat).unsqueeze(-1)
    return (F.zeros((v, d), dtype=dtype).index_add(0, flat, rows), None)


declare(
    "one_hot",
    "Tensor (Tensor input, Int num_classes=-1) => OneHot",  # (its documentation says tensor; the binding takes input)
    differentiable=False,
    doc="""
    int64 one-hot encoding along a new last dimension (``num_classes=-1``: max + 1).

    >>> ember.one_hot(ember.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """,
    tf="OneHot",
)
@functor("OneHot")
def one_hot(tensor, num_classes):
    if tensor._dtype is not _dt.int64:
        raise RuntimeError(f"one_hot is only applicable to index tensor of type LongTensor, but got {tensor._dtype}.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        if tensor.is_meta:
            raise RuntimeError("one_hot(): num_classes must be given for meta tensors (it would be read from the data)")
        num_classes = max(int(tensor._host_array().max()) + 1, 0)
    elif num_classes < 0:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return dispatch(_ONE_HOT, (tensor,), {"num_classes": num_classes})[0]


_ONE_HOT = OpExpr("one_hot", ("input",), ("out",)).tag(sbp=sbp_rules.shape.identity_split)


@_ONE_HOT.shape_rule
def _one_hot_infer(attrs, x):
    return (((*x._shape, attrs["num_classes"]), _dt.int64),)
