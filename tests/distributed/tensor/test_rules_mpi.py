"""SBP rules for real on MPI: a sample of test_rules.py's property checks, each rank hosting one
piece. Every rank draws the same inputs (one seeded generator, the same tests in the same
order) and checks the gathered value and the gradients against the local op."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
import ember.distributed as dist
import ember.nn.functional as F
from ember.dispatch.sbp import broadcast, partial_max, partial_sum, split

from ._rules_harness import Case, check

RNG = np.random.default_rng(11)


def _r(*shape):
    return RNG.standard_normal(shape)


def _line():
    n = dist.get_world_size()
    return ember.placement("cpu", list(range(n))), n


LAYOUTS = (split(0), split(1), broadcast, partial_sum, partial_max)


def _sweep(fn, values, layouts, grad=True):
    p, n = _line()
    for combo in itertools.product(*layouts):
        check(fn, [Case(v, s) for v, s in zip(values, combo, strict=True)], p, n, grad=grad)


@pytest.mark.mpi(n=2)
def test_elementwise_and_partials_mpi():
    a, b = _r(5, 3), _r(5, 3)
    _sweep(lambda x, y: x + y, [a, b], [LAYOUTS, LAYOUTS])
    _sweep(lambda x, y: x * y, [a, b], [LAYOUTS, (split(0), broadcast, partial_sum)])
    _sweep(lambda x: F.relu(-x * 2.0), [a], [LAYOUTS])
    _sweep(lambda x, y: ember.where(y > 0, x, 0.0), [a, b], [LAYOUTS, (split(1), broadcast)])


@pytest.mark.mpi(n=2)
def test_products_mpi():
    lay = (split(0), split(1), broadcast, partial_sum)
    _sweep(lambda x, y: x @ y, [_r(5, 4), _r(4, 3)], [lay, lay])
    _sweep(
        lambda x, w, b: F.linear(x, w, b),
        [_r(5, 4), _r(3, 4), _r(3)],
        [lay, (split(0), split(1), broadcast), (split(0), broadcast)],
    )


@pytest.mark.mpi(n=2)
def test_reductions_views_nn_mpi():
    a = _r(5, 3)
    for fn in (
        lambda x: x.sum(0),
        lambda x: x.mean(),
        lambda x: x.mean(1, keepdim=True),
        lambda x: x.amax(0),
        lambda x: x.argmax(1),
    ):
        _sweep(fn, [a], [LAYOUTS])
    x3 = _r(4, 3, 2)
    for fn in (
        lambda x: x.reshape(4, 6),
        lambda x: x.transpose(0, 2).reshape(2, 12),
        lambda x: x.permute(1, 2, 0),
    ):
        _sweep(fn, [x3], [(split(0), split(1), split(2), broadcast, partial_sum)])
    # values only: getitem's derivative scatters into a local zeros tensor (see test_rules.py)
    _sweep(lambda x: x[:, 1:], [x3], [(split(0), split(1), partial_sum)], grad=False)
    _sweep(lambda x: F.softmax(x, 1), [a], [LAYOUTS])
    _sweep(lambda x: F.layer_norm(x, (2,)), [x3], [(split(0), split(2), broadcast)])
    _sweep(lambda x, y: ember.cat([x, y], 1), [a, _r(5, 2)], [(split(0), broadcast), (split(0), split(1))])
    target = np.array([0, 2, 1, 1, 0])
    for reduction in ("mean", "sum", "none"):
        _sweep(
            lambda x, t, r=reduction: F.cross_entropy(x, t, reduction=r),
            [a, target],
            [(split(0), broadcast), (split(0), broadcast)],
        )
    probs = F.softmax(ember.tensor(_r(5, 3)), 1).numpy()
    _sweep(lambda x, t: F.cross_entropy(x, t), [a, probs], [(split(0), broadcast), (split(0), broadcast)])


@pytest.mark.mpi(n=2)
def test_fallback_mpi():
    _sweep(lambda x: x.repeat(2, 1), [_r(5, 3)], [(split(0), partial_sum)])


@pytest.mark.mpi(n=4)
def test_uneven_line_of_four_mpi():
    a, b = _r(5, 3), _r(5, 3)  # 5 rows over 4 ranks: 2, 1, 1, 1; 3 columns: one rank empty
    _sweep(lambda x, y: x * y + y, [a, b], [LAYOUTS, (split(0), broadcast)])
    _sweep(lambda x: x.mean(0) + x.amax(1).sum(), [a], [LAYOUTS])
    _sweep(lambda x, y: x @ y, [_r(5, 4), _r(4, 3)], [(split(0), split(1), partial_sum), (split(0), split(1), broadcast)])


@pytest.mark.mpi(n=4)
def test_mesh_2x2_mpi():
    p = ember.placement("cpu", [[0, 1], [2, 3]])
    a, b = _r(5, 4), _r(4, 3)
    cases = [
        (lambda x, y: x @ y, [a, b], [(split(0), split(1)), (broadcast, split(0))]),
        (lambda x, y: x @ y, [a, b], [(split(1), broadcast), (split(0), split(1))]),
        (lambda x: x.mean(), [a], [(split(0), split(1))]),
        (lambda x: F.softmax(x, 1).sum(0), [a], [(split(0), split(1))]),
        (lambda x: x.reshape(10, 2), [a], [(split(0), split(1))]),
    ]
    for fn, values, layouts in cases:
        check(fn, [Case(v, s) for v, s in zip(values, layouts, strict=True)], p, 2)
