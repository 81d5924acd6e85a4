"""Modules on global tensors: ``nn.Module.to_global(placement, sbp)`` lays every parameter and
buffer out over a placement (OneFlow's ``module.to_global``, DTensor's ``parallelize_module``
with one plan for the whole tree).

``sbp`` says each tensor's layout, in one of three forms:

- one SBP (or nd-SBP tuple): every parameter and buffer gets it;
- a dict from dotted names (``"0.weight"``, as ``named_parameters`` gives them) to layouts;
  names it leaves out are broadcast, a name that is no parameter or buffer is an error;
- a callable ``fn(name, tensor) -> layout or None`` (None: broadcast).

Parameters stay leaves that require grad (as they did), so optimizers made afterwards update
them in place, unchanged; a local parameter is taken as the whole logical value (the same on
every rank, as a model built after the same ``manual_seed`` is) and each rank keeps its piece.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...dispatch import sbp as _sbp
from ...dispatch.sbp import SBP, broadcast
from .api import distribute
from .comm import current_world
from .global_tensor import GlobalTensor, check_placement, make_global

__all__ = ["module_to_global"]


def _layouts(sbp, names: list[str], fn: str) -> Callable:
    """``sbp`` (any of the three forms) as ``layout(name, tensor)``."""
    if isinstance(sbp, (SBP, tuple, list)):
        return lambda name, t: sbp
    if isinstance(sbp, Mapping):
        unknown = sorted(set(sbp) - set(names))
        if unknown:
            raise KeyError(f"{fn}(): sbp names {unknown}, which are not parameters or buffers of the module (it has {names})")
        return lambda name, t: sbp.get(name, broadcast)
    if callable(sbp):
        return lambda name, t: sbp(name, t)
    raise TypeError(
        f"{fn}(): sbp must be an sbp, a tuple of them, a dict by parameter name or a callable, got {type(sbp).__name__}"
    )


def _leaf(t, placement, sbp, requires_grad: bool) -> GlobalTensor:
    """``t`` laid out as ``sbp``, as a fresh leaf (no history) over the pieces."""
    g = t.detach().to_global(placement, sbp) if type(t) is GlobalTensor else distribute(t.detach(), placement, sbp)
    out = make_global({r: p.detach().clone() for r, p in g._pieces.items()}, g._shape, g._dtype, g._placement, g._sbp, g._world)
    if requires_grad:
        out.requires_grad = True
    return out


def module_to_global(module, placement, sbp=None):
    """Every parameter and buffer of ``module`` (and its children) as global tensors on
    ``placement`` (see the module docstring for ``sbp``); returns the module.

    >>> import ember, ember.nn as nn
    >>> from ember.distributed.tensor import simulated_world
    >>> with simulated_world(2):
    ...     p = ember.placement("cpu", [0, 1])
    ...     m = nn.Linear(3, 4).to_global(p, {"weight": ember.sbp.split(0)})
    ...     m.weight.sbp, m.bias.sbp, m.weight.is_leaf, m.weight.to_local(rank=1).shape
    ((sbp.split(dim=0),), (sbp.broadcast,), True, ember.Size([2, 3]))
    """
    fn = "Module.to_global"
    placement = check_placement(placement, current_world(), fn)
    names = [n for n, _ in module.named_parameters(remove_duplicate=False)] + [
        n for n, _ in module.named_buffers(remove_duplicate=False)
    ]
    layout_of = _layouts(sbp, names, fn)
    done: dict[int, GlobalTensor] = {}  # a shared parameter becomes one global tensor
    for prefix, mod in module.named_modules(remove_duplicate=False):
        head = prefix + "." if prefix else ""
        for table in (mod._parameters, mod._buffers):
            for name, t in table.items():
                if t is None:
                    continue
                if id(t) not in done:
                    entry = layout_of(head + name, t)
                    entry = (broadcast,) * placement.ndim if entry is None or entry == broadcast else entry
                    try:
                        entry = _sbp.normalize(entry, placement.ndim, t.ndim, fn)
                    except ValueError as exc:
                        raise ValueError(f"{exc} (the layout of '{head + name}', shape {list(t.shape)})") from None
                    done[id(t)] = _leaf(t, placement, entry, t.requires_grad)
                table[name] = done[id(t)]
    return module
