"""Every optimizer and scheduler that ember.optim exports takes torch's arguments: the same
names, positional ones in the same order, of the same kind, with the same defaults."""

import inspect

import pytest

import ember.optim
from ember.optim import lr_scheduler
from tests._oracle import require_torch

# torch's options for CUDA graphs, fused kernels and optimizers differentiated through: ember
# has none of these, so it does not take them
NOT_TAKEN = {"capturable", "differentiable", "fused"}


def _classes(module):
    return [name for name in module.__all__ if inspect.isclass(getattr(module, name))]


def _params(cls, drop=frozenset()):
    """Positional parameters in order, keyword-only ones by name (their order means nothing)."""
    params = [(p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values() if p.name not in drop]
    positional = [p for p in params if p[1] != inspect.Parameter.KEYWORD_ONLY]
    return positional + sorted(p for p in params if p[1] == inspect.Parameter.KEYWORD_ONLY)


@pytest.mark.parametrize("name", [n for n in _classes(ember.optim) if n != "Optimizer"])
def test_optimizer_arguments_match_torch(name):
    torch = require_torch()
    theirs = getattr(torch.optim, name)
    assert _params(getattr(ember.optim, name)) == _params(theirs, NOT_TAKEN)


@pytest.mark.parametrize("name", _classes(lr_scheduler))
def test_scheduler_arguments_match_torch(name):
    torch = require_torch()
    assert _params(getattr(lr_scheduler, name)) == _params(getattr(torch.optim.lr_scheduler, name))
