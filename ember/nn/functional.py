"""``ember.nn.functional``: PyTorch's ``torch.nn.functional`` names over ember's op library.

The ops are not reimplemented here: every schema entry of family ``nn`` (and the activations, ``pad``)
is re-exported from ``ember.ops.functional.FUNCTIONS``, and the entries named ``nn.functional.*``
(``unfold``, ``fold``: PyTorch has them here only) from ``NAMESPACES["nn.functional"]``; a few composites PyTorch also has live in
``_composite``.

>>> import ember.nn.functional as F
>>> F.relu is ember.relu
True
>>> F.softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()
[0.5, 0.5]
"""

from __future__ import annotations

from ..ops.functional import FUNCTIONS, NAMESPACES, export_to
from ..ops.schema import load_schema
from ._composite import (
    celu,
    cosine_similarity,
    glu,
    hardsigmoid,
    hardswish,
    logsigmoid,
    mish,
    multi_head_attention_forward,
    normalize,
    pairwise_distance,
    prelu,
    relu6,
    selu,
    softsign,
    tanhshrink,
    triplet_margin_loss,
)
from ._embedding_bag import embedding_bag
from ._grid import affine_grid, grid_sample
from ._instance import instance_norm, local_response_norm
from ._losses import (
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    soft_margin_loss,
)
from ._shrink import hardshrink, rrelu, rrelu_, softshrink, threshold, threshold_
from ._stochastic import alpha_dropout, channel_shuffle, feature_alpha_dropout, gumbel_softmax, lp_pool1d, lp_pool2d


def _schema_names() -> list[str]:
    """The generated functions whose schema entries list ``nn.functional`` among their
    namespaces (the nn family's, and activations and pad of others), with in-place forms and aliases."""
    names: list[str] = []
    for entry in load_schema():
        if "nn.functional" not in entry.namespaces:
            continue
        for name in (entry.python_name, entry.inplace, *entry.aliases):
            if name and name in FUNCTIONS and name not in names:
                names.append(name)
    return names


_REEXPORTED = export_to(globals(), {name: FUNCTIONS[name] for name in _schema_names()})
_REEXPORTED += export_to(globals(), NAMESPACES.get("nn.functional", {}))

__all__ = [
    *_REEXPORTED,
    "celu",
    "cosine_similarity",
    "glu",
    "hardsigmoid",
    "hardswish",
    "logsigmoid",
    "mish",
    "multi_head_attention_forward",
    "normalize",
    "pairwise_distance",
    "prelu",
    "relu6",
    "selu",
    "softsign",
    "tanhshrink",
    "triplet_margin_loss",
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "soft_margin_loss",
    "embedding_bag",
    "alpha_dropout",
    "channel_shuffle",
    "feature_alpha_dropout",
    "gumbel_softmax",
    "lp_pool1d",
    "lp_pool2d",
    "affine_grid",
    "grid_sample",
    "instance_norm",
    "local_response_norm",
    "hardshrink",
    "softshrink",
    "threshold",
    "threshold_",
    "rrelu",
    "rrelu_",
]
