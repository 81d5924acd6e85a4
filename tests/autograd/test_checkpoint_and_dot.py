"""Activation checkpointing, the DOT export of the backward graph, and nn.Module full backward hooks."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.autograd import grad
from ember.autograd.dot import save_dot, to_dot
from ember.utils.checkpoint import checkpoint, checkpoint_sequential
from tests._oracle import require_torch


def _grads(tensors):
    return [t.grad.numpy().copy() for t in tensors]


def _net():
    ember.manual_seed(3)
    return nn.Sequential(
        nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 2)
    )


def _compare(run):
    """Gradients of run(net, x) against the plain forward, with the same random numbers."""
    net = _net()
    x = ember.randn(5, 4, requires_grad=True)
    state = ember.default_generator.get_state()
    plain = net(x)
    plain.square().sum().backward()
    expected = _grads([x, *net.parameters()])
    net.zero_grad()
    x.grad = None
    ember.default_generator.set_state(state)
    out = run(net, x)
    np.testing.assert_allclose(out.detach().numpy(), plain.detach().numpy(), rtol=1e-6)
    out.square().sum().backward()
    for got, want in zip(_grads([x, *net.parameters()]), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    return out


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_gives_the_plain_gradients_with_dropout(use_reentrant):
    out = _compare(lambda net, x: checkpoint(net, x, use_reentrant=use_reentrant))
    assert out.grad_fn.name() == "CheckpointFunctionBackward"
    # only the input and the parameters are kept: the node's edges go to their AccumulateGrads
    assert all(n.name() == "AccumulateGrad" for n, _ in out.grad_fn.next_functions if n is not None)


def test_checkpoint_sequential_gives_the_plain_gradients():
    _compare(lambda net, x: checkpoint_sequential(net, 3, x))
    _compare(lambda net, x: checkpoint_sequential(list(net), 1, x))


def test_checkpoint_recomputes_in_backward_and_keeps_the_rng_stream():
    calls = []

    def block(a, b, scale):
        calls.append(ember.is_grad_enabled())
        return (a * b).sin() * scale + ember.rand(a.shape, dtype=a.dtype)

    a = ember.tensor([0.5, 1.0], dtype=ember.float64, requires_grad=True)
    b = ember.tensor([2.0, -1.0], dtype=ember.float64)  # needs no grad
    out = checkpoint(block, a, b, 3.0)
    assert calls == [False]
    ember.default_generator.manual_seed(7)
    before = ember.default_generator.get_state().tolist()
    out.sum().backward()
    assert calls == [False, True]
    assert ember.default_generator.get_state().tolist() == before  # the recomputation's draws do not advance the stream
    np.testing.assert_allclose(a.grad.numpy(), 3.0 * np.cos([1.0, -1.0]) * np.array([2.0, -1.0]))


def test_checkpoint_reaches_parameters_with_autograd_grad_and_inputs_without_grad():
    lin = nn.Linear(3, 2).double()
    x = ember.randn(4, 3, dtype=ember.float64)  # no input requires grad: the parameters still get theirs
    out = checkpoint(lambda t: lin(t).tanh(), x)
    gw, gb = grad(out.sum(), (lin.weight, lin.bias))
    ref_w, ref_b = grad(lin(x).tanh().sum(), (lin.weight, lin.bias))
    np.testing.assert_allclose(gw.numpy(), ref_w.numpy())
    np.testing.assert_allclose(gb.numpy(), ref_b.numpy())
    with ember.no_grad():
        assert checkpoint(lin, x).grad_fn is None


def test_checkpoint_with_several_outputs_and_kwargs():
    def block(a, *, power):
        return a**power, (a * 2).sum()

    a = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    p, s = checkpoint(block, a, power=3)
    (p.sum() + s).backward()
    assert a.grad.tolist() == [5.0, 14.0]


def test_to_dot_structure(tmp_path):
    w = ember.ones(2, 3, requires_grad=True)
    x = ember.ones(4, 2)
    y = (x @ w).relu().sum()
    text = to_dot(y)
    assert text.startswith("digraph backward {") and text.rstrip().endswith("}")
    matmul = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert '"SumBackward0"' in text and '"ReluBackward0"' in text and f'"{matmul.name()}"' in text
    assert '"AccumulateGrad\\n(2, 3)"' in text
    labels = dict(line.strip().split(" [label=", 1) for line in text.splitlines() if " [label=" in line and "->" not in line)
    labels = {k: v.split('"')[1] for k, v in labels.items()}
    edges = [tuple(line.strip().rstrip(";").split(" -> ")) for line in text.splitlines() if "->" in line]
    # edges follow next_functions: each node points to the nodes of its inputs
    names = {(labels[a], labels[b].split("\\n")[0]) for a, b in edges}
    assert ("SumBackward0", "ReluBackward0") in names and ("tensor ()", "SumBackward0") in names
    relu_id = next(k for k, v in labels.items() if v == "ReluBackward0")
    (relu_next,) = [b for a, b in edges if a == relu_id]
    assert labels[relu_next] == y.grad_fn.next_functions[0][0].next_functions[0][0].name()
    # an input that needs no grad has no box; a node shared by two paths is drawn once
    z = w.sum() * w.sum()
    text2 = to_dot(z.grad_fn, params={"w": w})
    assert text2.count("AccumulateGrad") == 1 and '"AccumulateGrad\\nw (2, 3)"' in text2
    assert "t0" not in text2
    with_saved = to_dot(y, show_saved=True)
    assert "saved input" in with_saved and "style=dashed" in with_saved
    path = save_dot(y, tmp_path / "g.dot")
    with open(path) as f:
        assert f.read() == text


def test_to_dot_for_leaves_and_custom_functions():
    from ember.autograd.function import Function

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = ember.ones(3, requires_grad=True)
    text = to_dot(Twice.apply(x), show_saved=True)
    assert '"TwiceBackward"' in text and '"AccumulateGrad\\n(3,)"' in text and '"saved 0\\n(3,)"' in text
    assert '"AccumulateGrad\\n(3,)"' in to_dot(x)
    assert "->" not in to_dot(ember.ones(2))
    with pytest.raises(TypeError):
        to_dot(3)


# -- module full backward hooks, against PyTorch -----------------------------------------


class _Pair(nn.Module):
    """Two inputs (one may not need grad), two outputs, and a non-tensor argument."""

    def forward(self, a, b, k):
        return a * b * k, a + b


def _torch_pair(torch):
    class Pair(torch.nn.Module):
        def forward(self, a, b, k):
            return a * b * k, a + b

    return Pair()


def _log_hooks(module, name, log, scale=None):
    def pre(mod, grad_output):
        log.append(("pre", name, [None if g is None else g.detach().numpy().round(6).tolist() for g in grad_output]))
        if scale is not None:
            return tuple(None if g is None else g * scale for g in grad_output)
        return None

    def post(mod, grad_input, grad_output):
        log.append(
            (
                "post",
                name,
                [None if g is None else g.detach().numpy().round(6).tolist() for g in grad_input],
                [None if g is None else g.detach().numpy().round(6).tolist() for g in grad_output],
            )
        )

    return module.register_full_backward_pre_hook(pre), module.register_full_backward_hook(post)


def test_full_backward_hooks_match_torch_order_and_values():
    torch = require_torch()
    torch.manual_seed(0)
    tnet = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)).double()
    enet = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).double()
    enet.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tnet.state_dict().items()})
    xs = np.random.default_rng(0).standard_normal((5, 3))
    logs = {}
    for kind, net, x in (
        ("torch", tnet, torch.tensor(xs, requires_grad=True)),
        ("ember", enet, ember.tensor(xs, requires_grad=True)),
    ):
        log = logs[kind] = []
        for name, mod in [("net", net), *[(str(i), m) for i, m in enumerate(net)]]:
            _log_hooks(mod, name, log, scale=2.0 if name == "1" else None)
        net(x).sum().backward()
        log.append(("x.grad", x.grad.detach().numpy().round(6).tolist()))
    assert logs["ember"] == logs["torch"]
    order = [(e[0], e[1]) for e in logs["ember"][:-1]]
    assert order == [
        ("pre", "net"),
        ("pre", "2"),
        ("post", "2"),
        ("pre", "1"),
        ("post", "1"),
        ("pre", "0"),
        ("post", "0"),
        ("post", "net"),
    ]


def test_full_backward_hooks_match_torch_with_several_inputs_and_outputs():
    torch = require_torch()
    av, bv = [1.0, 2.0], [3.0, -1.0]
    logs = {}
    for kind in ("torch", "ember"):
        lib = torch if kind == "torch" else ember
        mod = _torch_pair(torch) if kind == "torch" else _Pair()
        log = logs[kind] = []
        _log_hooks(mod, "pair", log)
        # the hook may replace grad_input
        mod.register_full_backward_hook(lambda m, gi, go: tuple(None if g is None else g * 10 for g in gi))
        a = lib.tensor(av, dtype=lib.float64, requires_grad=True)
        b = lib.tensor(bv, dtype=lib.float64)  # needs no grad: None in grad_input
        p, _unused = mod(a, b, 3.0)
        p.sum().backward()  # the second output is unused: its grad_output is None
        log.append(("a.grad", a.grad.detach().numpy().tolist()))
        # no input requires grad: the hooks run from the outputs' node with grad_input all None
        c = lib.tensor(av, dtype=lib.float64)
        w = lib.tensor(bv, dtype=lib.float64, requires_grad=True)
        out = mod(c, c, 1.0)
        (out[0] * w).sum().backward()
        log.append(("w.grad", w.grad.detach().numpy().tolist()))
    assert logs["ember"] == logs["torch"]
    assert logs["ember"][0] == ("pre", "pair", [[1.0, 1.0], None])


def test_backward_hook_handles_remove_and_no_grad_calls():
    lin = nn.Linear(2, 2)
    seen = []
    h = lin.register_full_backward_hook(lambda m, gi, go: seen.append(len(gi)))
    with ember.no_grad():
        lin(ember.ones(1, 2))  # nothing to hook
    lin(ember.ones(1, 2, requires_grad=True)).sum().backward()
    assert seen == [1]
    h.remove()
    lin(ember.ones(1, 2, requires_grad=True)).sum().backward()
    assert seen == [1]
