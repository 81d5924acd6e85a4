"""``tf.random``: TensorFlow 1's random ops under their ``tf.random.*`` names (see ``random_ops.py``)."""

from __future__ import annotations

from .random_ops import categorical, get_seed, multinomial, set_random_seed
from .random_ops import random_normal as normal
from .random_ops import random_shuffle as shuffle
from .random_ops import random_uniform as uniform
from .random_ops import truncated_normal

__all__ = ["categorical", "get_seed", "multinomial", "normal", "set_random_seed", "shuffle", "truncated_normal", "uniform"]
