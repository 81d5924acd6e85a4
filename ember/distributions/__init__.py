"""Probability distributions with sampling, log-densities and KL divergences, as ``torch.distributions``.

Parameters broadcast against each other; ``rsample`` keeps the graph (the reparametrization
trick), ``sample`` does not; validation of parameters and samples is on unless turned off with
``validate_args=False`` or ``Distribution.set_default_validate_args(False)``.

>>> from ember.distributions import Categorical
>>> policy = Categorical(logits=ember.tensor([0.0, 0.0]))
>>> round(policy.log_prob(ember.tensor(1)).item(), 4)
-0.6931
"""

from . import constraints
from .continuous import Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl

__all__ = [
    "Bernoulli", "Categorical", "Distribution", "Exponential", "Independent", "Laplace", "Normal",
    "OneHotCategorical", "Uniform", "constraints", "kl_divergence", "register_kl",
]  # fmt: skip
