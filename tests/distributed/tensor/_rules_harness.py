"""The differential check of SBP rules, shared by the one-process and the MPI tests: an op on
global inputs laid out every way gives the same logical value and the same gradients as the
local op on the whole tensors.

Partial inputs are built with genuinely different pieces (a B -> P box would give rank 0 the
value and zeros or copies elsewhere, which many wrong rules survive): the input is stacked as
``n`` parts along a new leading dim, split there, and reduced (sum, amax, amin) by the global
interpreter; the local side reduces the same stack locally, so gradients reach the same leaf.
"""

from __future__ import annotations

import numpy as np

import ember
from ember.dispatch.sbp import SBP, broadcast, partial_max, partial_min, partial_sum, split
from ember.distributed.tensor import distribute

_RNG = np.random.default_rng(0)


def parts_of(value: np.ndarray, sbp: SBP, n: int, rng) -> np.ndarray:
    """``n`` parts stacked on a new dim 0 whose reduction by ``sbp``'s kind gives ``value``."""
    if sbp.reduce == "sum":
        rest = rng.standard_normal((n - 1, *value.shape))
        return np.concatenate([(value - rest.sum(0))[None], rest])
    sign = 1.0 if sbp.reduce == "max" else -1.0
    stack = value[None] - sign * (0.5 + rng.random((n, *value.shape)))
    owner = rng.integers(0, n, value.shape)  # which part holds the extreme, per element
    np.put_along_axis(stack, owner[None], value[None], axis=0)
    return stack


class Case:
    """One input: its whole value and the layout to give it (an SBP, or a tuple for an N-D mesh)."""

    def __init__(self, value: np.ndarray, sbp) -> None:
        self.value = value
        self.sbp = sbp

    def differentiable(self) -> bool:
        return self.value.dtype.kind == "f"


def _leaf(array: np.ndarray) -> ember.Tensor:
    t = ember.tensor(array)
    if array.dtype.kind == "f":
        t.requires_grad_(True)
    return t


_REDUCE = {"sum": lambda t: t.sum(0), "max": lambda t: t.amax(0), "min": lambda t: t.amin(0)}


def build(case: Case, placement, n: int):
    """(local input, global input, local leaf, global leaf) for one input."""
    sbp = case.sbp
    if isinstance(sbp, SBP) and sbp.is_partial:
        stack = parts_of(case.value, sbp, n, _RNG)
        leaf_l, leaf_g = _leaf(stack), _leaf(stack)
        local = _REDUCE[sbp.reduce](leaf_l)
        glob = _REDUCE[sbp.reduce](distribute(leaf_g, placement, split(0)))
        assert glob.sbp == (sbp,), f"the harness meant {sbp} and got {glob.sbp}"
        return local, glob, leaf_l, leaf_g
    leaf_l, leaf_g = _leaf(case.value), _leaf(case.value)
    entries = sbp if isinstance(sbp, tuple) else (sbp,)
    if case.value.ndim == 0:  # distribute() of a 0-d tensor gives 1-d pieces (np.ascontiguousarray in api.py; reported)
        glob = distribute(leaf_g.reshape(1), placement, (broadcast,) * len(entries)).reshape(())
    else:
        glob = distribute(leaf_g, placement, (broadcast,) * len(entries))
    if entries != glob.sbp:  # to_global to the layout it has returns a local tensor (api.py's _Box; reported)
        glob = glob.to_global(sbp=entries)
    return leaf_l, glob, leaf_l, leaf_g


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def check(fn, cases, placement, n: int, *, grad: bool = True, rtol: float = 1e-9, atol: float = 1e-9, what: str = ""):
    """``fn`` on global inputs laid out as ``cases`` says equals ``fn`` on the local ones, values
    and gradients. Returns the global outputs (for layout assertions)."""
    built = [build(c, placement, n) for c in cases]
    outs_l = _as_tuple(fn(*(b[0] for b in built)))
    outs_g = _as_tuple(fn(*(b[1] for b in built)))
    label = what or ", ".join(repr(c.sbp) for c in cases)
    assert len(outs_l) == len(outs_g)
    for ol, og in zip(outs_l, outs_g, strict=True):
        assert tuple(og.shape) == tuple(ol.shape), f"{label}: shape {tuple(og.shape)} != {tuple(ol.shape)}"
        np.testing.assert_allclose(
            og.detach().numpy(), ol.detach().numpy(), rtol=rtol, atol=atol, err_msg=f"{label}: values (sbp {og.sbp})"
        )
    leaves = [(b[2], b[3]) for b, c in zip(built, cases, strict=True) if c.differentiable()]
    floats = [i for i, o in enumerate(outs_l) if o.dtype.is_floating_point and o.requires_grad]
    if not grad or not leaves or not floats:
        return outs_g
    loss_l = loss_g = None
    for i in floats:
        shape = tuple(outs_l[i].shape)
        w = _RNG.standard_normal(shape)
        if not shape:  # distribute() of a 0-d tensor gives 1-d pieces (np.ascontiguousarray in api.py; reported)
            w = float(w)
            term_l, term_g = (outs_l[i] * w).sum(), (outs_g[i] * w).sum()
        else:
            term_l = (outs_l[i] * ember.tensor(w)).sum()
            term_g = (outs_g[i] * distribute(ember.tensor(w), placement, (broadcast,) * placement.ndim)).sum()
        loss_l = term_l if loss_l is None else loss_l + term_l
        loss_g = term_g if loss_g is None else loss_g + term_g
    loss_l.backward()
    loss_g.backward()
    for k, (ll, lg) in enumerate(leaves):
        if ll.grad is None:
            assert lg.grad is None or not np.any(lg.grad.numpy()), f"{label}: input {k} got a gradient the local op does not give"
            continue
        assert lg.grad is not None, f"{label}: input {k} got no gradient"
        np.testing.assert_allclose(
            lg.grad.numpy(), ll.grad.numpy(), rtol=1e-8, atol=1e-8, err_msg=f"{label}: gradient of input {k}"
        )
    return outs_g


SBPS_2D = (split(0), split(1), broadcast, partial_sum, partial_max)
PARTIALS = (partial_sum, partial_max, partial_min)
