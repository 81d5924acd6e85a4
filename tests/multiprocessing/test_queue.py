"""Tensors through Queues and Pipes between processes (fork and spawn): the same memory on both
sides, views kept as views of one storage, autograd's rules, and many tensors in flight."""

import pytest

import ember
import ember.multiprocessing as emp
from ember.nn import Parameter

TIMEOUT = 60  # seconds: spawn imports ember in the child; nothing here waits without a bound


def _serve(inbox, outbox) -> None:
    """A worker that runs commands, reused by every test of its start method."""
    kept = {}
    while True:
        message = inbox.get()
        if message is None:
            return
        command, payload = message
        if command == "strategy":
            emp.set_sharing_strategy(payload)
            reply = emp.get_sharing_strategy()
        elif command == "write":
            payload[0] = 42.0
            reply = payload.is_shared()
        elif command == "keep":
            kept["t"] = payload
            reply = payload.is_shared()
        elif command == "same_storage_as_kept":
            reply = payload.untyped_storage() is kept["t"].untyped_storage()
        elif command == "views":
            a, b = payload
            reply = (a.untyped_storage() is b.untyped_storage(), b.storage_offset(), b.tolist())
        elif command == "make":
            with emp.shared_memory():
                kept["made"] = ember.stack([ember.zeros(2), ember.ones(2)])
            reply = kept["made"]
        elif command == "read_made":
            reply = kept["made"].tolist()
        elif command == "describe":
            reply = (type(payload).__name__, payload.requires_grad, payload.is_shared(), payload.tolist())
        elif command == "sum_many":
            reply = sum(inbox.get(timeout=TIMEOUT)[0].item() for _ in range(payload))
        elif command == "pipe":
            payload.send(payload.recv() * 2)
            reply = True
        else:
            reply = f"unknown command {command!r}"
        outbox.put(reply)


class Worker:
    def __init__(self, method: str) -> None:
        self.ctx = emp.get_context(method)
        self.inbox, self.outbox = self.ctx.Queue(), self.ctx.Queue()
        self.process = self.ctx.Process(target=_serve, args=(self.inbox, self.outbox), daemon=True)
        self.process.start()

    def ask(self, command, payload=None):
        self.inbox.put((command, payload))
        return self.outbox.get(timeout=TIMEOUT)

    def stop(self) -> None:
        self.inbox.put(None)
        self.process.join(TIMEOUT)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        assert self.process.exitcode == 0


@pytest.fixture(scope="module", params=["fork", "spawn"])
def worker(request):
    w = Worker(request.param)
    yield w
    w.stop()


@pytest.fixture(params=sorted(emp.get_all_sharing_strategies()))
def strategy(request, worker):
    old = emp.get_sharing_strategy()
    emp.set_sharing_strategy(request.param)
    assert worker.ask("strategy", request.param) == request.param
    yield request.param
    emp.set_sharing_strategy(old)


def test_writes_are_seen_both_ways(worker, strategy):
    t = ember.zeros(4)
    assert worker.ask("write", t) is True
    assert t.tolist() == [42.0, 0.0, 0.0, 0.0]  # the child wrote into our memory
    assert t.is_shared()
    made = worker.ask("make")  # born shared in the child
    assert made.is_shared() and made.tolist() == [[0.0, 0.0], [1.0, 1.0]]
    made[1, 1] = -3.0
    assert worker.ask("read_made") == [[0.0, 0.0], [1.0, -3.0]]


def test_views_arrive_as_views_of_one_storage(worker, strategy):
    base = ember.arange(10.0)
    assert worker.ask("views", (base[:3], base[5:8])) == (True, 5, [5.0, 6.0, 7.0])
    assert worker.ask("keep", base[1:2]) is True
    assert worker.ask("same_storage_as_kept", base[7:]) is True  # a later message, the same storage
    assert worker.ask("same_storage_as_kept", ember.arange(10.0)) is False


def test_requires_grad_and_parameters_cross(worker):
    assert worker.ask("describe", ember.ones(2, requires_grad=True)) == ("Tensor", True, True, [1.0, 1.0])
    assert worker.ask("describe", Parameter(ember.zeros(2))) == ("Parameter", True, True, [0.0, 0.0])
    ours, _ = worker.ctx.Pipe()
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        ours.send(ember.ones(2, requires_grad=True) * 3)  # Connection.send pickles right here


def test_pipe_carries_tensors(worker):
    ours, theirs = worker.ctx.Pipe()
    worker.inbox.put(("pipe", theirs))
    t = ember.arange(3.0)
    ours.send(t)
    assert ours.poll(TIMEOUT)
    doubled = ours.recv()
    assert doubled.tolist() == [0.0, 2.0, 4.0]
    assert worker.outbox.get(timeout=TIMEOUT) is True


def test_ten_thousand_small_tensors_through_one_queue(worker):
    """Descriptors in flight are bounded by RLIMIT_NOFILE, which importing ember.multiprocessing raised."""
    if worker.ctx.get_start_method() != "fork":
        pytest.skip("one start method is enough for the volume test")
    n = 10_000
    worker.inbox.put(("sum_many", n))
    for i in range(n):
        worker.inbox.put((ember.full((1,), float(i)),))
    assert worker.outbox.get(timeout=TIMEOUT) == n * (n - 1) / 2


def test_the_fd_limit_was_raised():
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert soft == (1 << 20 if hard == resource.RLIM_INFINITY else min(hard, 1 << 20))


def _put_and_exit(queue) -> None:
    with emp.shared_memory("file_descriptor"):
        queue.put(ember.ones(2))


def test_a_sender_gone_before_its_descriptor_is_fetched_gives_a_clear_error():
    if "file_descriptor" not in emp.get_all_sharing_strategies():
        pytest.skip("no memfd on this system")
    ctx = emp.get_context("fork")
    queue = ctx.Queue()
    sender = ctx.Process(target=_put_and_exit, args=(queue,))
    sender.start()
    sender.join(TIMEOUT)
    assert sender.exitcode == 0
    with pytest.raises(RuntimeError, match="the sender must stay alive until its tensors are received"):
        queue.get(timeout=TIMEOUT)
