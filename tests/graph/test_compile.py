"""ember.compile: traced functions and modules equal eager, retrace per signature, whole training steps."""

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(100, 200)
        self.activation = nn.ReLU()
        self.linear2 = nn.Linear(200, 10)

    def forward(self, x):
        return self.linear2(self.activation(self.linear1(x)))


def test_compiled_module_equals_eager_and_retraces_on_new_shapes():
    ember.manual_seed(0)
    model = TinyModel()
    compiled = ember.compile(model)
    with ember.no_grad():
        for batch in (4, 4, 4, 7, 7, 7):
            x = ember.randn(batch, 100)
            np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-6)
    assert compiled.traces == 2  # one per signature (the first call of each runs eagerly)
    double = ember.compile(lambda x: x * 2)
    for dtype in (ember.float32, ember.float32, ember.float64, ember.float64):
        out = double(ember.ones(2, dtype=dtype))
        assert out.dtype is dtype and out.tolist() == [2.0, 2.0]
    assert double.traces == 2  # float64 is a new signature


def test_compiled_function_sees_parameter_updates_between_calls():
    w = ember.ones(3)

    @ember.compile
    def f(x, scale=2.0):
        return {"y": (x * w * scale).sum(), "pair": (x + 1, x.relu())}

    x = ember.tensor([1.0, -2.0, 3.0])
    for _ in range(3):
        out = f(x)
    assert out["y"].item() == 4.0 and out["pair"][1].tolist() == [1.0, 0.0, 3.0]
    w.fill_(10.0)  # the weight is fed live at every call, not baked in
    assert f(x)["y"].item() == 40.0
    assert f(x, scale=3.0)["y"].item() == 60.0  # a new non-tensor argument: a new signature


@pytest.mark.parametrize("make_opt", [
    lambda p: ember.optim.SGD(p, lr=0.05, momentum=0.9),
    lambda p: ember.optim.Adam(p, lr=0.01),
    lambda p: ember.optim.Adadelta(p, lr=0.5),  # no step count read back: traceable as it is
    lambda p: ember.optim.Rprop(p, lr=0.01),  # its sign masks as where(), not boolean-mask writes
])
def test_compiled_training_step_matches_eager(make_opt):
    ember.manual_seed(0)
    m1 = TinyModel()
    m2 = TinyModel()
    m2.load_state_dict(m1.state_dict())
    o1, o2 = make_opt(m1.parameters()), make_opt(m2.parameters())

    def make_step(m, o):
        def step(x, y):
            o.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            o.step()
            return loss

        return step

    eager, compiled = make_step(m1, o1), ember.compile(make_step(m2, o2))
    x, y = ember.randn(32, 100), ember.randint(0, 10, (32,))
    for _ in range(6):
        l1, l2 = eager(x, y), compiled(x, y)
        assert abs(l1.item() - l2.item()) < 1e-4
    assert l2.grad_fn is None  # the step ran its own backward: no second autograd node around the call
    for a, b in zip(m1.parameters(), m2.parameters(), strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-6)
    assert compiled.traces == 1


def test_buffers_updated_in_place_are_written_back():
    ember.manual_seed(0)
    bn1, bn2 = nn.BatchNorm1d(4), nn.BatchNorm1d(4)
    compiled = ember.compile(bn2)
    for _ in range(4):
        x = ember.randn(8, 4)
        np.testing.assert_allclose(compiled(x).detach().numpy(), bn1(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn2.running_mean.numpy(), bn1.running_mean.numpy(), rtol=1e-5)
    assert bn2.num_batches_tracked.item() == bn1.num_batches_tracked.item() == 4


def test_reading_a_modified_value_during_a_trace_is_refused():
    counter = ember.zeros(())

    @ember.compile
    def f(x):
        counter.add_(1)
        return x * counter.item()

    f(ember.ones(2))
    with pytest.raises(RuntimeError, match="reads the value of a tensor it also modifies"):
        f(ember.ones(2))


def test_compile_refuses_non_callables():
    with pytest.raises(TypeError, match=r"expected a function or an nn\.Module"):
        ember.compile(3)


def test_a_row_wise_forward_runs_in_blocks_of_rows_with_the_same_results():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10), nn.LogSoftmax(dim=1))
    compiled = ember.compile(model)
    x = ember.randn(300, 784)  # not a multiple of the block: the last block is short
    with ember.no_grad():
        expected = model(x).numpy()
        for _ in range(3):
            got = compiled(x).numpy()
    plan = next(iter(compiled._runners.values())).arrays
    assert 16 <= plan.row_block < 300 and "for r0 in range" in plan.source
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert plan.peak_bytes < 2 * 300 * 1024 * 4  # less than two whole activations


def test_a_reduction_over_the_batch_is_not_split():
    w = ember.randn(64, 64)
    compiled = ember.compile(lambda x: (x @ w).relu().sum(0))
    x = ember.randn(512, 64)
    for _ in range(3):
        got = compiled(x)
    plan = next(iter(compiled._runners.values())).arrays
    assert "for r0 in range" not in plan.source
    np.testing.assert_allclose(got.numpy(), (x @ w).relu().sum(0).numpy(), rtol=1e-5, atol=1e-4)


def test_views_of_weights_run_before_the_row_blocks_and_views_of_rows_keep_the_plan_whole():
    w = ember.randn(32, 512)
    of_weight = ember.compile(lambda x: (x @ w.T).relu())
    of_rows = ember.compile(lambda x: x.T @ x)
    x = ember.randn(1024, 512)
    for _ in range(3):
        a, b = of_weight(x), of_rows(x)
    np.testing.assert_allclose(a.numpy(), (x @ w.T).relu().numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(b.numpy(), (x.T @ x).numpy(), rtol=1e-4, atol=1e-3)
    assert "for r0 in range" in next(iter(of_weight._runners.values())).arrays.source
    assert "for r0 in range" not in next(iter(of_rows._runners.values())).arrays.source


def test_eager_backward_flows_through_a_compiled_forward():
    ember.manual_seed(0)
    eager = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 3))
    twin = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 3))
    twin.load_state_dict(eager.state_dict())
    compiled = ember.compile(twin)
    opt1 = ember.optim.SGD(eager.parameters(), lr=0.1)
    opt2 = ember.optim.SGD(twin.parameters(), lr=0.1)
    for _ in range(4):
        x = ember.randn(16, 5)
        x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
        y = ember.randint(0, 3, (16,))
        outs = []
        for opt, model, xi in ((opt1, eager, x1), (opt2, compiled, x2)):
            opt.zero_grad()
            outs.append(model(xi))
            F.cross_entropy(outs[-1], y).backward()
            opt.step()
        assert outs[1].grad_fn is not None
        np.testing.assert_allclose(x2.grad.numpy(), x1.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert outs[1].grad_fn.name() == "CompiledCallBackward"  # the last calls ran the compiled plan, as one node
    for a, b in zip(eager.parameters(), twin.parameters(), strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(twin[1].running_mean.numpy(), eager[1].running_mean.numpy(), rtol=1e-5, atol=1e-6)
    assert compiled.traces == 1


def test_a_session_runs_a_fed_batch_in_row_blocks_too():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 4))
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float32, (None, 256))
        y = model(x)
    feed = np.random.default_rng(0).standard_normal((700, 256)).astype(np.float32)
    sess = ember.Session(graph=g)
    got = sess.run(y, {x: feed})
    with ember.no_grad():
        np.testing.assert_allclose(got, model(ember.from_numpy(feed)).numpy(), rtol=1e-5, atol=1e-5)
    (runner,) = [r for _, _, plan in sess._plans.values() for r in plan.specialised.values()]
    assert "for r0 in range" in runner.arrays.source


def test_backward_through_a_compiled_call_with_an_unused_output():
    w = ember.randn(3, requires_grad=True)
    compiled = ember.compile(lambda x: (x * w, (x + w).exp()))
    x = ember.randn(3)
    for _ in range(3):
        first, _unused = compiled(x)
        (grad,) = ember.autograd.grad(first.sum(), [w])
    np.testing.assert_allclose(grad.numpy(), x.numpy(), rtol=1e-6)
