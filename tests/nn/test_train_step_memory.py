"""What a training step holds, from the allocator's statistics: saved tensors go with their
backward, gradients accumulate in place, an SGD step allocates nothing after its first, and
``zero_grad`` gives the gradients back. Each would show as a larger peak-memory figure."""

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim


def _allocated() -> int:
    return ember.memory_stats()["allocated_bytes.current"]


def _peak() -> int:
    return ember.memory_stats()["allocated_bytes.peak"]


def _nbytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


@pytest.fixture
def mlp():
    ember.manual_seed(0)
    net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    x, y = ember.randn(32, 64), ember.randint(0, 10, (32,))
    return net, x, y


def test_saved_tensors_are_released_by_backward_while_the_loss_lives(mlp):
    net, x, y = mlp
    before = _allocated()
    loss = F.cross_entropy(net(x), y)
    assert _allocated() - before > _nbytes([x]) // 2  # activations saved for backward
    loss.backward()
    grads = _nbytes(p.grad for p in net.parameters())
    # left: the gradients and the 0-d loss, not the activations its graph saved
    assert _allocated() - before <= grads + 64
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_gradients_accumulate_in_place(mlp):
    net, x, y = mlp
    F.cross_entropy(net(x), y).backward()
    first = [(p.grad.data_ptr(), p.grad.clone()) for p in net.parameters()]
    F.cross_entropy(net(x), y).backward()
    for p, (ptr, old) in zip(net.parameters(), first, strict=True):
        assert p.grad.data_ptr() == ptr  # the same memory, not a new sum
        assert ember.allclose(p.grad, 2 * old, atol=1e-6)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd_steps_allocate_nothing_after_the_first(mlp, momentum):
    net, x, y = mlp
    opt = optim.SGD(net.parameters(), lr=0.01, momentum=momentum)
    for step in range(3):
        opt.zero_grad()
        F.cross_entropy(net(x), y).backward()
        before = _allocated()
        ember.reset_peak_memory_stats()
        opt.step()
        if step == 0:  # momentum buffers are made once, as PyTorch's are
            expected = _nbytes(net.parameters()) if momentum else 0
            assert _allocated() - before == expected
        else:
            assert _allocated() == before and _peak() == before


def test_zero_grad_gives_the_gradients_back(mlp):
    net, x, y = mlp
    F.cross_entropy(net(x), y).backward()
    with_grads = _allocated()
    grads = _nbytes(p.grad for p in net.parameters())
    optim.SGD(net.parameters(), lr=0.1).zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert with_grads - _allocated() == grads
