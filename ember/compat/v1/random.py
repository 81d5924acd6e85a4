"""``tf.random``: TensorFlow 1's random ops under their ``tf.random.*`` names (see ``random_ops.py``)."""

from __future__ import annotations

from .random_gamma import random_gamma as gamma
from .random_ops import (
    categorical,
    get_seed,
    multinomial,
    random_normal as normal,
    random_shuffle as shuffle,
    random_uniform as uniform,
    set_random_seed,
    truncated_normal,
)

__all__ = ["categorical", "gamma", "get_seed", "multinomial", "normal", "set_random_seed", "shuffle", "truncated_normal", "uniform"]
