"""The engine's final callbacks (queue_callback) and the post-accumulate-grad hooks they pair with."""

import threading

import pytest

import ember
from ember.autograd import engine
from tests._oracle import require_torch


def leaf(values):
    return ember.tensor(values, requires_grad=True)


def test_outside_backward_is_an_error():
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
        engine.queue_callback(lambda: None)
    with pytest.raises(TypeError, match="callback must be callable, not int"):
        engine.queue_callback(3)


def test_runs_once_after_every_leaf_is_accumulated():
    a, b, c = leaf([1.0, 2.0]), leaf([3.0]), leaf([5.0, 6.0])
    events = []

    def finish():
        events.append(("done", [t.grad.tolist() for t in (a, b, c)]))
        queued.clear()

    queued = []

    def hook(p):
        events.append(("hook", id(p)))
        if not queued:  # the first hook of a backward queues the finish, as DDP's reducer does
            queued.append(True)
            engine.queue_callback(finish)

    for t in (a, b, c):
        t.register_post_accumulate_grad_hook(hook)
    ((a * b).sum() + (c * c).sum()).backward()
    assert [kind for kind, _ in events] == ["hook", "hook", "hook", "done"]
    assert events[-1][1] == [[3.0, 3.0], [3.0], [10.0, 12.0]]
    events.clear()
    (a * a).sum().backward()  # a new backward queues its own; the last one's is gone
    assert [kind for kind, _ in events] == ["hook", "done"]


def test_order_and_callbacks_queued_by_callbacks():
    w = leaf([1.0])
    order = []

    def first():
        order.append("first")
        engine.queue_callback(lambda: order.append("queued by first"))

    def hook(p):
        engine.queue_callback(first)
        engine.queue_callback(lambda: order.append("second"))

    w.register_post_accumulate_grad_hook(hook)
    (w * 2).sum().backward()
    assert order == ["first", "second", "queued by first"]  # PyTorch's order


def test_runs_in_the_backwards_grad_mode():
    w = leaf([1.0, 2.0])
    modes = []
    w.register_post_accumulate_grad_hook(lambda p: engine.queue_callback(lambda: modes.append(ember.is_grad_enabled())))
    (w * w).sum().backward()
    (w * w).sum().backward(create_graph=True)
    assert modes == [False, True]
    assert ember.is_grad_enabled()


def test_with_grad_and_tensor_hooks():
    x = leaf([2.0])
    y = x * x
    seen = []
    y.register_hook(lambda g: engine.queue_callback(lambda: seen.append(g.tolist())))
    (gx,) = ember.autograd.grad(y.sum(), x)
    assert gx.tolist() == [4.0] and seen == [[1.0]]


def test_backward_with_inputs_runs_the_hooks_callbacks():
    x, y = leaf([1.0]), leaf([2.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda p: engine.queue_callback(lambda: seen.append(p.grad.item())))
    (x * y).sum().backward(inputs=[x])
    assert seen == [2.0] and y.grad is None


def test_an_error_in_backward_skips_the_callbacks_and_leaves_no_state():
    a, b = leaf([1.0]), leaf([1.0])
    ran = []

    def queue(p):
        engine.queue_callback(lambda: ran.append("callback"))

    def fail(p):
        raise ValueError("hook failed")

    a.register_post_accumulate_grad_hook(queue)
    b.register_post_accumulate_grad_hook(fail)
    with pytest.raises(ValueError, match="hook failed"):
        ((a * 2) + (b * 3)).sum().backward()
    assert ran == []
    with pytest.raises(RuntimeError, match="only be installed during backward"):
        engine.queue_callback(lambda: None)


def test_an_error_in_a_callback_reaches_the_caller():
    w = leaf([1.0])

    def boom():
        raise RuntimeError("callback failed")

    w.register_post_accumulate_grad_hook(lambda p: engine.queue_callback(boom))
    with pytest.raises(RuntimeError, match="callback failed"):
        (w * 2).sum().backward()
    with pytest.raises(RuntimeError, match="only be installed during backward"):
        engine.queue_callback(lambda: None)


def test_a_backward_inside_a_hook_finishes_its_own_callbacks():
    outer, inner = leaf([1.0]), leaf([3.0])
    order = []
    inner.register_post_accumulate_grad_hook(lambda p: engine.queue_callback(lambda: order.append("inner done")))

    def hook(p):
        engine.queue_callback(lambda: order.append("outer done"))
        with ember.enable_grad():  # (hooks run with grad mode as the backward sets it: off here)
            (inner * inner).sum().backward()
        order.append("inner returned")

    outer.register_post_accumulate_grad_hook(hook)
    (outer * 2).sum().backward()
    assert order == ["inner done", "inner returned", "outer done"]


def test_callbacks_belong_to_the_thread_running_the_backward():
    w = leaf([1.0])
    errors = []

    def other_thread():
        try:
            engine.queue_callback(lambda: None)
        except RuntimeError as e:
            errors.append(str(e))

    def hook(p):
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()

    w.register_post_accumulate_grad_hook(hook)
    (w * 2).sum().backward()
    assert errors == ["Final callbacks can only be installed during backward pass."]


def test_post_accumulate_hook_sees_and_may_replace_the_gradient():
    w = leaf([1.0, 2.0])
    buffer = ember.zeros(4)

    def hook(p):
        # DDP's use: move the gradient into a bucket and let .grad be a view of it
        view = buffer[1:3]
        view.copy_(p.grad)
        p.grad = view

    w.register_post_accumulate_grad_hook(hook)
    (w * w).sum().backward()
    assert buffer.tolist() == [0.0, 2.0, 4.0, 0.0]
    (w * w).sum().backward()  # accumulation now adds into the view, in place
    assert buffer.tolist() == [0.0, 4.0, 8.0, 0.0] and w.grad._base is buffer


def test_post_accumulate_hook_refuses_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        ember.zeros(2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (leaf([1.0]) * 2).register_post_accumulate_grad_hook(print)


def test_same_events_as_torch():
    torch = require_torch()

    def record(lib, queue):
        events = []
        a, b = lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([3.0], requires_grad=True)

        def hook(name):
            def on_accumulate(p):
                events.append((name, p.grad.tolist()))
                queue(lambda: events.append(("finished", name)))

            return on_accumulate

        a.register_post_accumulate_grad_hook(hook("a"))
        b.register_post_accumulate_grad_hook(hook("b"))
        ((a * b).sum() * 2).backward()
        return events

    ours = record(ember, engine.queue_callback)
    theirs = record(torch, torch.autograd.Variable._execution_engine.queue_callback)
    # the two engines may accumulate a and b in either order; callbacks come after both, in queue order
    assert sorted(ours[:2]) == sorted(theirs[:2])
    assert ours[2:] == [("finished", name) for name, _ in ours[:2]]
    assert theirs[2:] == [("finished", name) for name, _ in theirs[:2]]
