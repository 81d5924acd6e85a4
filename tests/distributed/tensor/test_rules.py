"""SBP rules, proved by property: for every op with a rule and every combination of input
layouts (a split of each dim, broadcast, partial sum, partial max/min), on 1-D meshes of 2 and 3
ranks (uneven and empty pieces included) and a sample on a 2x2 mesh, the global op gives the
local op's value and gradients on the gathered tensors. One process (``simulated_world``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.dispatch.sbp import broadcast, partial_max, partial_min, partial_sum, split
from ember.distributed.tensor import GLOBAL, distribute, simulated_world

from ._rules_harness import Case, check

RNG = np.random.default_rng(7)


def _r(*shape):
    return RNG.standard_normal(shape)


def _layouts(ndim: int, partials=(partial_sum, partial_max)):
    return (*(split(d) for d in range(ndim)), broadcast, *partials)


def _sweep(fn, values, n, *, layouts=None, grad=True, rtol=1e-9):
    """Every combination of layouts of the inputs (``layouts[i]``, or every layout of input i's rank)."""
    with simulated_world(n):
        p = ember.placement("cpu", list(range(n)))
        options = [layouts[i] if layouts and layouts[i] is not None else _layouts(v.ndim) for i, v in enumerate(values)]
        for combo in itertools.product(*options):
            check(fn, [Case(v, s) for v, s in zip(values, combo, strict=True)], p, n, grad=grad, rtol=rtol, atol=rtol)


A, B3, C = _r(5, 3), _r(5, 3), _r(3)
IDX = np.array([3, 0, 4, 4, 1], dtype=np.int64)

# name -> (fn, input values, layouts per input or None for all, grad)
UNARY = {
    "neg": lambda x: -x,
    "relu": F.relu,
    "exp": ember.exp,
    "tanh": ember.tanh,
    "sigmoid": ember.sigmoid,
    "atan": ember.atan,
    "erf": ember.erf,
    "abs": ember.abs,
    "sin": ember.sin,
    "floor": ember.floor,
    "round": ember.round,
    "sign": ember.sign,
    "clamp": lambda x: x.clamp(-0.5, 0.4),
    "hardtanh": F.hardtanh,
    "mul_scalar": lambda x: x * 2.5,
    "mul_negative_scalar": lambda x: x * -2.0,
    "div_scalar": lambda x: x / 3.0,
    "div_negative_scalar": lambda x: x / -4.0,
    "add_scalar": lambda x: x + 1.5,
    "sub_scalar": lambda x: x - 1.5,
    "rsub_scalar": lambda x: 1.5 - x,
    "maximum_scalar": lambda x: ember.clamp(x, min=0.1),
    "pow_scalar": lambda x: x**2,
    "gt_scalar": lambda x: x > 0.1,
    "conj_physical": ember.conj_physical,
    "gelu": F.gelu,
}

BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / (y.abs() + 1.0),
    "add_alpha": lambda x, y: ember.add(x, y, alpha=2.0),
    "sub_alpha": lambda x, y: ember.sub(x, y, alpha=0.5),
    "maximum": ember.maximum,
    "minimum": ember.minimum,
    "atan2": ember.atan2,
    "eq": lambda x, y: x == y,
    "lt": lambda x, y: x < y,
    "lerp_scalar": lambda x, y: ember.lerp(x, y, 0.3),
    "where": lambda x, y: ember.where(x > y, x, y),
    "where_zero": lambda x, y: ember.where(y > 0, x, 0.0),
}


# Derivatives that build a tensor from a shape (zeros(shape), arange) run with the global
# gradient's placement ambient (dispatch/sbp.py), so those tensors are global too: gradients checked
# for these as for the rest (the sets name them, should one need leaving out again)
ZERO_GRAD: set = set()
LOCAL_IN_DERIVATIVE: set = set()


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, n):
    _sweep(UNARY[name], [A], n, layouts=[_layouts(2, (partial_sum, partial_max, partial_min))], grad=name not in ZERO_GRAD)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, n):
    _sweep(BINARY[name], [A, B3], n)


@pytest.mark.parametrize("n", [2, 3])
def test_binary_broadcasting_shapes(n):
    _sweep(lambda x, y: x * y, [A, C], n)
    _sweep(lambda x, y: x + y, [_r(5, 1), _r(1, 3)], n)
    _sweep(lambda x, y: x - y, [C, A], n)


@pytest.mark.parametrize("n", [2, 3])
def test_ternary(n):
    _sweep(lambda x, y, w: ember.lerp(x, y, w), [A, B3, _r(5, 3)], n, layouts=[None, None, (split(0), split(1), broadcast)])
    _sweep(lambda c, x, y: ember.where(c > 0, x, y), [C, A, B3], n, layouts=[(split(0), broadcast, partial_sum), None, None])


@pytest.mark.parametrize("n", [2, 3])
def test_threshold_backward(n):
    # relu's gradient in one kernel: taken when no graph is recorded, so call it directly under no_grad
    from ember.dispatch import OP_REGISTRY, dispatch

    op = OP_REGISTRY["threshold_backward"]
    with ember.no_grad():
        _sweep(lambda g, y: dispatch(op, (g, y), {"threshold": 0.0})[0], [A, F.relu(ember.tensor(B3)).numpy()], n, grad=False)


PRODUCTS = {
    "matmul": (lambda a, b: a @ b, [_r(5, 4), _r(4, 3)]),
    "matmul_batched": (lambda a, b: a @ b, [_r(3, 5, 4), _r(4, 3)]),
    "bmm": (lambda a, b: ember.bmm(a, b), [_r(3, 5, 4), _r(3, 4, 2)]),
    "matmul_vector": (lambda a, b: a @ b, [_r(5, 4), _r(4)]),
    "matmul_batch_of_other": (lambda a, b: a @ b, [_r(5, 4), _r(3, 4, 2)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), [_r(5, 4), _r(3, 4), _r(3)]),
    "linear_no_bias": (lambda x, w: F.linear(x, w), [_r(2, 5, 4), _r(3, 4)]),
}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products(name, n):
    fn, values = PRODUCTS[name]
    _sweep(fn, values, n, layouts=[_layouts(v.ndim, (partial_sum,)) for v in values])


@pytest.mark.parametrize("n", [2, 3])
def test_linear_backward_fused(n):
    # the fused kernel runs where no graph is recorded (the usual backward); sweep it directly
    from ember.dispatch import OP_REGISTRY, dispatch

    op = OP_REGISTRY["linear_backward"]
    for mask in ((True, True, True), (False, True, False)):
        _sweep(
            lambda g, x, w, mask=mask: dispatch(op, (g, x, w), {"output_mask": mask}),
            [_r(5, 3), _r(5, 4), _r(3, 4)],
            n,
            layouts=[_layouts(2, (partial_sum,))] * 3,
            grad=False,
        )


@pytest.mark.parametrize("n", [2, 3])
def test_embedding(n):
    _sweep(lambda w, i: F.embedding(i, w), [_r(6, 4), IDX], n, layouts=[None, (split(0), broadcast)])
    _sweep(lambda w, i: F.embedding(i, w), [_r(6, 4), IDX.reshape(1, 5)], n, layouts=[None, (split(0), split(1), broadcast)])


REDUCTIONS = {
    "sum": lambda x: x.sum(),
    "sum0": lambda x: x.sum(0),
    "sum1_keepdim": lambda x: x.sum(1, keepdim=True),
    "mean": lambda x: x.mean(),
    "mean0": lambda x: x.mean(0),
    "mean1_keepdim": lambda x: x.mean(1, keepdim=True),
    "amax0": lambda x: x.amax(0),
    "amax1_keepdim": lambda x: x.amax(1, keepdim=True),
    "amin": lambda x: x.amin(),
    "max_dim": lambda x: x.max(0),
    "min_dim_keepdim": lambda x: x.min(1, keepdim=True),
    "argmax0": lambda x: x.argmax(0),
    "argmin1": lambda x: x.argmin(1),
    "argmax": lambda x: x.argmax(),
    "prod0": lambda x: x.prod(0),
    "var0": lambda x: x.var(0),
    "std1": lambda x: x.std(1),
    "logsumexp1": lambda x: x.logsumexp(1),
    "count_nonzero0": lambda x: ember.count_nonzero(x > 0, 0),
    "any1": lambda x: (x > 0).any(1),
}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name, n):
    grad = name not in LOCAL_IN_DERIVATIVE
    _sweep(REDUCTIONS[name], [A], n, layouts=[_layouts(2, (partial_sum, partial_max, partial_min))], grad=grad)
    _sweep(REDUCTIONS[name], [_r(2, 5)], n, layouts=[_layouts(2, ())], grad=grad)  # 2 rows over 3 ranks: an empty piece


X3 = _r(4, 3, 2)


def _reversed_t(x):
    """x.T on a 3-D tensor (the T primitive), without PyTorch's deprecation warning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return x.T


SHAPES = {
    "transpose": (lambda x: x.transpose(0, 2), X3),
    "permute": (lambda x: x.permute(2, 0, 1), X3),
    "movedim": (lambda x: x.movedim(0, -1), X3),
    "mT": (lambda x: x.mT, X3),
    "t": (lambda x: x.t(), A),
    "T": (_reversed_t, X3),
    "unsqueeze": (lambda x: x.unsqueeze(1), A),
    "unsqueeze_last": (lambda x: x.unsqueeze(-1), A),
    "squeeze": (lambda x: x.squeeze(1), _r(5, 1, 3)),
    "flatten": (lambda x: x.flatten(), A),
    "flatten_inner": (lambda x: x.flatten(1), X3),
    "reshape_split_leading": (lambda x: x.reshape(4, 6), X3),
    "reshape_merge": (lambda x: x.reshape(12, 2), X3),
    "reshape_regroup": (lambda x: x.reshape(2, 12), _r(6, 4)),
    "reshape_noncontiguous": (lambda x: x.t().reshape(15), A),
    "view": (lambda x: x.view(2, 2, 3, 2), _r(4, 6)),
    "unflatten": (lambda x: x.unflatten(1, (3, 2)), _r(4, 6)),
    "expand": (lambda x: x.expand(4, 5, 3), A),
    "expand_unit": (lambda x: x.expand(5, 3), _r(5, 1)),
    "broadcast_to": (lambda x: ember.broadcast_to(x, (2, 5, 3)), A),
    "narrow": (lambda x: x.narrow(1, 1, 2), A),
    "narrow0": (lambda x: x.narrow(0, 1, 3), A),
    "select": (lambda x: x.select(1, 0), A),
    "select0": (lambda x: x[2], A),
    "getitem_slice": (lambda x: x[:, 1:], A),
    "getitem_rows": (lambda x: x[1:4], A),
    "getitem_none": (lambda x: x[..., None, :], A),
    "getitem_int": (lambda x: x[:, -1], A),
    "clone": (lambda x: x.clone(), A),
    "contiguous": (lambda x: x.t().contiguous(), A),
    "detach": (lambda x: x.detach() * 1.0, A),
    "to_float32": (lambda x: x.to(ember.float32), A),
    "to_int": (lambda x: x.to(ember.int64), A * 3),
}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_ops(name, n):
    fn, value = SHAPES[name]
    rtol = 1e-6 if name == "to_float32" else 1e-9
    layouts = [_layouts(value.ndim, (partial_sum, partial_max, partial_min))]
    _sweep(fn, [value], n, layouts=layouts, rtol=rtol, grad=name not in LOCAL_IN_DERIVATIVE)


@pytest.mark.parametrize("n", [2, 3])
def test_multi_views_and_index_select(n):
    lay = [_layouts(2, (partial_sum, partial_max, partial_min))]
    x = _r(4, 6)
    for fn in (lambda x: x.chunk(2, 1), lambda x: x.split([1, 3], 0), lambda x: x.tensor_split(3, 1), lambda x: x.unbind(1)):
        _sweep(lambda x, fn=fn: [t * 1.0 for t in fn(x)], [x], n, layouts=lay)
    _sweep(lambda x, i: ember.index_select(x, 1, i), [x, np.array([5, 0, 2, 2])], n, layouts=[None, (split(0), broadcast)])
    _sweep(lambda x, i: ember.index_select(x, 0, i), [x, np.array([3, 1])], n, layouts=[None, (split(0), broadcast)])


ALONG = {
    "cumsum": lambda x: x.cumsum(1),
    "cumsum0": lambda x: x.cumsum(0),
    "cumprod": lambda x: x.cumprod(1),
    "flip": lambda x: x.flip([0]),
    "roll": lambda x: x.roll(1, 1),
    "roll_flat": lambda x: x.roll(2),
    "tril": lambda x: x.tril(),
    "triu_batched": lambda x: x.reshape(2, 2, 3).triu(1),
    "masked_fill": lambda x: x.masked_fill(x.detach() > 0.3, 2.0),
    "one_hot": lambda x: F.one_hot((x.detach().abs() * 2).to(ember.int64), 6),
}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(ALONG))
def test_along_dims(name, n):
    value = _r(4, 3)
    _sweep(ALONG[name], [value], n, layouts=[_layouts(2, (partial_sum, partial_max, partial_min))])


LOSSES = {
    "mse": F.mse_loss,
    "l1": F.l1_loss,
    "smooth_l1": F.smooth_l1_loss,
    "huber": F.huber_loss,
    "bce_logits": F.binary_cross_entropy_with_logits,
    "bce": lambda x, t, reduction: F.binary_cross_entropy(x.sigmoid(), t, reduction=reduction),
}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_pointwise_losses(name, reduction, n):
    target = RNG.random((5, 3))
    _sweep(lambda x, t: LOSSES[name](x, t, reduction=reduction), [A, target], n,
           layouts=[(split(0), split(1), broadcast, partial_sum), (split(0), split(1), broadcast)])  # fmt: skip


@pytest.mark.parametrize("n", [2, 3])
def test_cat_stack(n):
    _sweep(lambda x, y: ember.cat([x, y], 1), [A, B3], n)
    _sweep(lambda x, y: ember.cat([x, y], 0), [A, _r(2, 3)], n)
    _sweep(lambda x, y: ember.stack([x, y], 1), [A, B3], n)


NN = {
    "softmax1": (lambda x: F.softmax(x, 1), [A]),
    "softmax0": (lambda x: F.softmax(x, 0), [A]),
    "log_softmax": (lambda x: F.log_softmax(x, -1), [X3]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (2,), w, b), [X3, _r(2), _r(2)]),
    "layer_norm_2d": (lambda x: F.layer_norm(x, (3, 2)), [X3]),
    "rms_norm": (lambda x, w: F.rms_norm(x, (2,), w), [X3, _r(2)]),
}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(NN))
def test_nn(name, n):
    fn, values = NN[name]
    _sweep(fn, values, n, layouts=[_layouts(v.ndim, (partial_sum,)) for v in values])


TARGET_LAYOUTS = (split(0), broadcast)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_class_targets(reduction, n):
    # mean with grad on float64 goes through the cross_entropy_with_probs primitive
    _sweep(
        lambda x, t: F.cross_entropy(x, t, reduction=reduction), [A, np.array([0, 2, 1, 1, 0])], n, layouts=[None, TARGET_LAYOUTS]
    )
    _sweep(lambda x, t: F.cross_entropy(x, t, reduction=reduction, ignore_index=1), [A, np.array([0, 2, 1, 1, 0])], n,
           layouts=[(split(0), broadcast), TARGET_LAYOUTS])  # fmt: skip


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_probability_targets(reduction, n):
    probs = F.softmax(ember.tensor(_r(5, 3)), 1).numpy()
    _sweep(lambda x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.1), [A, probs], n,
           layouts=[(split(0), split(1), broadcast, partial_sum), (split(0), broadcast)])  # fmt: skip


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_backward_fused(reduction):
    from ember.dispatch import OP_REGISTRY, dispatch

    op = OP_REGISTRY["cross_entropy_backward"]
    g = _r(5) if reduction == "none" else np.array(0.7)
    t = np.array([0, 2, 1, 1, 0])
    with ember.no_grad():
        _sweep(lambda g, x, t: dispatch(op, (g, x, t), {"reduction": reduction})[0], [g, A, t], 3,
               layouts=[(split(0), broadcast) if g.ndim else (broadcast,), (split(0), broadcast), (split(0), broadcast)], grad=False)  # fmt: skip


@pytest.mark.parametrize("n", [2, 3])
def test_cross_entropy_probs_backward_fused(n):
    from ember.dispatch import OP_REGISTRY, dispatch

    op = OP_REGISTRY["cross_entropy_probs_backward"]
    probs = F.softmax(ember.tensor(_r(5, 3)), 1).numpy().T.copy()  # (C, N), as the forward keeps it
    t = np.array([0, 2, 1, 1, 0])
    with ember.no_grad():
        _sweep(lambda g, pr, t: dispatch(op, (g, pr, t))[0], [np.array(0.7), probs, t], n,
               layouts=[(broadcast,), (split(0), split(1), broadcast), (split(0), broadcast)], grad=False)  # fmt: skip


# -- the layouts the rules choose (the property above holds for boxing everything too) ---------


def _global(value, sbp, n=2):
    p = ember.placement("cpu", list(range(n)))
    return distribute(ember.tensor(value), p, sbp)


def test_rules_avoid_boxing_where_they_should():
    with simulated_world(2):
        x0, x1, b = _global(A, split(0)), _global(_r(3, 4), split(1)), _global(_r(3, 4), broadcast)
        w0 = _global(_r(4, 3), split(0))
        assert (x0 @ b).sbp == (split(0),)
        assert (_global(A, split(1)) @ _global(_r(3, 4), split(0))).sbp == (partial_sum,)
        assert (_global(A, broadcast) @ x1).sbp == (split(1),)
        assert F.linear(_global(A, broadcast), w0).sbp == (split(1),)  # column parallel
        assert F.linear(_global(A, split(1)), _global(_r(4, 3), split(1))).sbp == (partial_sum,)  # row parallel
        assert x0.sum(0).sbp == (partial_sum,) and x0.mean(0).sbp == (partial_sum,) and x0.amax(0).sbp == (partial_max,)
        assert x0.sum(1).sbp == (split(0),) and x0.sum(1, keepdim=True).sbp == (split(0),)
        assert x0.t().sbp == (split(1),) and x0.unsqueeze(0).sbp == (split(1),)
        assert _global(_r(4, 6), split(0)).reshape(4, 2, 3).sbp == (split(0),)
        assert _global(_r(4, 6), split(0)).reshape(2, 12).sbp == (split(0),)  # 2 rows of 12 over 2 ranks: whole rows
        assert F.softmax(x0, 1).sbp == (split(0),) and F.softmax(x0, 0).sbp == (broadcast,)
        assert F.embedding(_global(IDX, split(0)), _global(_r(6, 4), broadcast)).sbp == (split(0),)
        assert F.embedding(_global(IDX, broadcast), _global(_r(6, 4), split(1))).sbp == (split(1),)
        ps = x0.sum(0)
        assert (ps + ps).sbp == (partial_sum,) and (ps * 2).sbp == (partial_sum,) and (-ps).sbp == (partial_sum,)
        assert F.relu(ps).sbp == (broadcast,) and (ps > 0).sbp == (broadcast,)
        pm = x0.amax(0)
        assert F.relu(pm).sbp == (partial_max,) and (-pm).sbp == (partial_min,) and (pm > 0).sbp == (broadcast,)
    with simulated_world(3):  # 2 rows of 12 over 3 ranks would cut rows: boxed
        assert _global(_r(6, 4), split(0), 3).reshape(2, 12).sbp == (broadcast,)


def test_integer_partials_never_wrap():
    # a split made partial holds iinfo.min (max) in the other ranks' places: negating or shifting
    # it would wrap around, so integer partial max/min are boxed first
    ints = np.arange(-6, 9, dtype=np.int64).reshape(5, 3)
    with simulated_world(3):
        p = ember.placement("cpu", [0, 1, 2])
        for kind in (partial_max, partial_min):
            x = distribute(ember.tensor(ints), p, split(0)).to_global(sbp=kind)
            for fn in (
                lambda t: -t,
                lambda t: t + 2,
                lambda t: t - 2,
                lambda t: t * -3,
                lambda t: F.relu(t),
                lambda t: ember.maximum(t, t),
            ):
                np.testing.assert_array_equal(fn(x).numpy(), fn(ember.tensor(ints)).numpy())


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_data_parallel_mlp_step_needs_no_fallback(reduction):
    """A batch split over ranks, parameters broadcast: forward and backward run on the rules
    alone (no op boxed for want of one), and the parameters' gradients equal the local ones."""
    values = [_r(6, 4), np.array([0, 1, 2, 1, 0, 2]), _r(8, 4), _r(8), _r(3, 8)]
    layouts = [split(0), split(0), broadcast, broadcast, broadcast]

    def mlp(x, t, w1, b1, w2):
        return F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2), t, reduction=reduction)

    with simulated_world(3):
        p = ember.placement("cpu", [0, 1, 2])
        GLOBAL.fallbacks.clear()
        check(mlp, [Case(v, s) for v, s in zip(values, layouts, strict=True)], p, 3)
        assert GLOBAL.fallbacks == {}


# -- a 2x2 mesh: a sample of the same checks, the rules applied per mesh dimension ------------

MESH_CASES = [
    ("add", lambda x, y: x + y, [A, B3], [(split(0), split(1)), (split(0), broadcast)]),
    ("mul_partial", lambda x, y: x * y, [A, B3], [(partial_sum, split(0)), (broadcast, split(0))]),
    ("matmul", lambda a, b: a @ b, [_r(5, 4), _r(4, 3)], [(split(0), split(1)), (broadcast, split(0))]),
    ("matmul_2", lambda a, b: a @ b, [_r(5, 4), _r(4, 3)], [(split(1), broadcast), (split(0), split(1))]),
    ("sum", lambda x: x.sum(0), [A], [(split(0), split(1))]),
    ("mean", lambda x: x.mean(), [A], [(split(0), split(1))]),
    ("mean0", lambda x: x.mean(0), [A], [(split(1), split(0))]),
    ("amax", lambda x: x.amax(1), [_r(5, 4)], [(split(0), split(1))]),
    ("reshape", lambda x: x.reshape(4, 6), [X3], [(split(0), split(2))]),
    ("reshape_2", lambda x: x.reshape(8, 3), [_r(4, 2, 3)], [(split(0), split(1))]),
    ("transpose", lambda x: x.transpose(0, 1), [A], [(split(0), split(1))]),
    ("softmax", lambda x: F.softmax(x, 1), [A], [(split(0), split(1))]),
    ("layer_norm", lambda x: F.layer_norm(x, (2,)), [X3], [(split(1), split(0))]),
    ("linear", lambda x, w: F.linear(x, w), [_r(5, 4), _r(3, 4)], [(split(0), broadcast), (broadcast, split(0))]),
    ("cat", lambda x, y: ember.cat([x, y], 1), [A, B3], [(split(0), broadcast), (split(0), partial_sum)]),
    ("getitem", lambda x: x[:, 1:] * 1.0, [A], [(split(0), partial_sum)]),
    # one dim split on both mesh dims (nested pieces): the size-counting rules decline
    ("reshape_nested", lambda x: x.reshape(2, 12), [_r(6, 4)], [(split(0), split(0))]),
    ("amax_nested", lambda x: x.amax(0), [_r(3, 4)], [(split(0), split(0))]),
    ("add_nested", lambda x, y: x + y, [A, B3], [(split(0), split(0)), (split(0), split(0))]),
]


@pytest.mark.parametrize("name", [c[0] for c in MESH_CASES])
def test_mesh_2x2(name):
    _, fn, values, layouts = next(c for c in MESH_CASES if c[0] == name)
    with simulated_world(4):
        p = ember.placement("cpu", [[0, 1], [2, 3]])
        check(
            fn, [Case(v, s) for v, s in zip(values, layouts, strict=True)], p, 2, grad=name != "getitem"
        )  # see LOCAL_IN_DERIVATIVE


# -- without a rule: boxed to broadcast, right, and said in the trace --------------------------


def test_op_without_rule_boxes_and_says_so():
    from ember.dispatch import OP_REGISTRY

    assert OP_REGISTRY["repeat"].sbp_rule is None
    with simulated_world(3):
        p = ember.placement("cpu", [0, 1, 2])
        check(lambda x: x.repeat(2, 1), [Case(A, split(0))], p, 3)
        before = GLOBAL.fallbacks.get("repeat", 0)
        x = distribute(ember.tensor(A), p, split(0))
        with ember.trace() as t:
            y = x.repeat(1, 2)
        assert y.sbp == (broadcast,)
        np.testing.assert_array_equal(y.numpy(), np.tile(A, (1, 2)))
        notes = [j.details.get("rule") for j in t.journeys if j.op == "repeat"]
        assert any(n and "no SBP rule" in n for n in notes), [j.details for j in t.journeys]
        assert GLOBAL.fallbacks["repeat"] == before + 1


def test_mixing_global_and_local_names_both():
    with simulated_world(2):
        x = _global(A, split(0))
        with pytest.raises(RuntimeError, match=r"local tensor of shape \[5, 3\].*global on placement") as err:
            x + ember.tensor(B3)
        assert "split(dim=0)" in str(err.value)


def test_two_placements_name_both():
    with simulated_world(3):
        x = distribute(ember.tensor(A), ember.placement("cpu", [0, 1]), split(0))
        y = distribute(ember.tensor(B3), ember.placement("cpu", [1, 2]), split(0))
        with pytest.raises(RuntimeError, match=r"ranks=\[0, 1\].*ranks=\[1, 2\]"):
            x * y


# the transforms are linear along their dims: splits of the other dims and partial sums pass
FFT = {
    "rfft_dim0": lambda x: ember.fft.rfft(x, dim=0),
    "fft_ortho": lambda x: ember.fft.fft(x, dim=1, norm="ortho"),
    "ifft_complex": lambda x: ember.fft.ifft(x * (1 + 1j), dim=0),
    "irfft": lambda x: ember.fft.irfft(x, dim=1),
    "hfft_odd": lambda x: ember.fft.hfft(x, n=5, dim=0),
    "rfftn": ember.fft.rfftn,
    "ihfft2": ember.fft.ihfft2,
}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", sorted(FFT))
def test_fft(name, n):
    _sweep(FFT[name], [_r(4, 3)], n, layouts=[_layouts(2, (partial_sum, partial_max))])
