"""DataLoader with worker processes: the same batches as in-process loading, seeds, errors, shutdown."""

import os
import random
import signal
import threading
import time

import numpy as np
import pytest

import ember
from ember.utils import data

# ---------------------------------------------------------------------------------------
# datasets (module level: a spawned worker imports them)


class Squares(data.Dataset):
    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.full((2,), float(i * i)), i


class WhoAmI(data.Dataset):
    """Each sample says which worker made it, with what seed, and what each global RNG drew."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = data.get_worker_info()
        return {
            "worker": info.id,
            "num_workers": info.num_workers,
            "seed": info.seed,
            "same_dataset_type": type(info.dataset) is WhoAmI,
            "ember": float(ember.rand(()).item()),
            "python": random.random(),
            "numpy": float(np.random.rand()),
            "init": _INIT_CALLS[:],
        }


_INIT_CALLS: list = []


def _record_init(worker_id):
    _INIT_CALLS.append(worker_id)


class Range(data.IterableDataset):
    def __init__(self, n, shard=True):
        self.n = n
        self.shard = shard

    def __iter__(self):
        info = data.get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


class Failing(Squares):
    def __init__(self, bad, exc):
        super().__init__(8)
        self.bad = bad
        self.exc = exc

    def __getitem__(self, i):
        if i == self.bad:
            raise_for_sample(self.exc)
        return super().__getitem__(i)


def raise_for_sample(exc):
    raise exc


class NeedsTwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class Dies(Squares):
    def __init__(self, how):
        super().__init__(8)
        self.how = how

    def __getitem__(self, i):
        if i == 5:
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(3)
        return super().__getitem__(i)


class Slow(Squares):
    def __init__(self, seconds, n=8):
        super().__init__(n)
        self.seconds = seconds

    def __getitem__(self, i):
        time.sleep(self.seconds)
        return super().__getitem__(i)


# helpers multiprocessing and ember keep for a whole session: not a test's leftovers
_SESSION_HELPERS = (b"resource_tracker", b"forkserver", b"_shm_manager")


def _children(ignore=()):
    """Pids of this process's children, zombies included (read from /proc), but neither those in
    ``ignore`` nor the session-long helpers of multiprocessing and ember."""
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in ignore:
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] != me:  # field 4: the parent's pid
            continue
        if not any(helper in cmdline for helper in _SESSION_HELPERS):
            found.append(int(entry))
    return found


def _no_children_within(seconds=3.0, ignore=()):
    deadline = time.monotonic() + seconds
    while _children(ignore) and time.monotonic() < deadline:
        time.sleep(0.02)
    return _children(ignore) == []


def _gone(pids, seconds=3.0):
    """True once none of ``pids`` is a child of this process any more (reaped, not a zombie)."""
    deadline = time.monotonic() + seconds
    while set(pids) & set(_children()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not set(pids) & set(_children())


def _batches(loader):
    return [(x.tolist(), y.tolist()) for x, y in loader]


@pytest.fixture(autouse=True)
def _leaves_no_children():
    before = set(_children())  # not ours to judge
    yield
    assert _no_children_within(ignore=before), "child processes left behind"


# ---------------------------------------------------------------------------------------
# same batches as num_workers=0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"batch_size": 3},
        {"batch_size": 3, "drop_last": True, "shuffle": True},
        {"batch_size": 4, "sampler": [9, 0, 4, 4, 7]},
        {"batch_sampler": [[1, 2], [8], [0, 3, 5]]},
        {"batch_size": 2, "collate_fn": lambda samples: (ember.stack([s[0] for s in samples]), ember.tensor([s[1] for s in samples]))},
    ],
)
def test_same_batches_as_in_process(kwargs):
    def run(num_workers):
        gen = ember.Generator().manual_seed(3) if kwargs.get("shuffle") else None
        loader = data.DataLoader(Squares(), num_workers=num_workers, generator=gen, **kwargs)
        return [_batches(loader), _batches(loader)], len(loader)

    (epochs, length), (epochs0, length0) = run(2), run(0)
    assert epochs == epochs0 and length == length0 == len(epochs[0])
    if kwargs.get("shuffle"):
        assert epochs[0] != epochs[1]  # a new order each epoch, the same one in both modes


def test_without_batching_and_prefetch():
    loader = data.DataLoader(Squares(5), batch_size=None, num_workers=2, prefetch_factor=1)
    out = [(x.tolist(), y) for x, y in loader]
    assert out == [([float(i * i)] * 2, i) for i in range(5)]


def test_batches_arrive_in_shared_memory():
    emp = pytest.importorskip("ember.multiprocessing")
    if not hasattr(emp, "shared_memory"):
        pytest.skip("ember.multiprocessing has no shared_memory() yet")
    x, y = next(iter(data.DataLoader(Squares(), batch_size=4, num_workers=2)))
    assert x.is_shared() and y.is_shared() and x.tolist()[3] == [9.0, 9.0]


def test_tensor_dataset_batches_are_gathered_into_shared_memory():
    # the one-gather road of a TensorDataset allocates in the worker's shared-memory scope too
    emp = pytest.importorskip("ember.multiprocessing")
    if not hasattr(emp, "shared_memory"):
        pytest.skip("ember.multiprocessing has no shared_memory() yet")
    ds = data.TensorDataset(ember.arange(24.0).reshape(12, 2), ember.arange(12))
    batches = list(data.DataLoader(ds, batch_size=5, num_workers=2))
    assert all(x.is_shared() and y.is_shared() for x, y in batches)
    assert [y.tolist() for _, y in batches] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11]]
    assert batches[1][0].tolist()[0] == [10.0, 11.0]


def test_spawn_context():
    ds = data.TensorDataset(ember.arange(12.0).reshape(6, 2), ember.arange(6))
    loader = data.DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="spawn")
    assert _batches(loader) == _batches(data.DataLoader(ds, batch_size=4))


# ---------------------------------------------------------------------------------------
# persistent workers, early exit


def test_persistent_workers_survive_epochs_and_an_early_break():
    loader = data.DataLoader(Squares(), batch_size=2, num_workers=2, persistent_workers=True)
    first = _batches(loader)
    pids = [w.pid for w in loader._iterator._workers]
    for x, _ in loader:  # leave an epoch after one batch, then start a new one
        assert x.tolist()[0] == [0.0, 0.0]
        break
    assert _batches(loader) == first == _batches(data.DataLoader(Squares(), batch_size=2))
    assert [w.pid for w in loader._iterator._workers] == pids and set(pids) <= set(_children())
    del loader  # the workers go with their loader


def test_early_break_leaves_no_process_and_no_segment_behind():
    emp = pytest.importorskip("ember.multiprocessing")
    loader = data.DataLoader(Squares(40), batch_size=2, num_workers=2)
    it = iter(loader)
    workers = {w.pid for w in it._workers}
    next(it)
    time.sleep(0.2)  # let the workers fill the queue: those batches must be released too
    del it
    assert _gone(workers)
    assert [s for s in emp.list_shared() if s.creator_pid in workers] == []
    assert len(list(loader)) == 20  # a new epoch starts new workers


# ---------------------------------------------------------------------------------------
# seeds, worker info, worker_init_fn


def test_worker_info_seeds_and_init_fn():
    def run(seed):
        gen = ember.Generator().manual_seed(seed)
        loader = data.DataLoader(WhoAmI(), batch_size=2, num_workers=2, generator=gen, worker_init_fn=_record_init)
        return list(loader)

    batches = run(5)
    assert [b["worker"].tolist() for b in batches] == [[0, 0], [1, 1], [0, 0], [1, 1]]  # round-robin
    for b in batches:
        worker = b["worker"][0].item()
        assert b["num_workers"].tolist() == [2, 2] and b["same_dataset_type"].tolist() == [True, True]
        assert [t.tolist() for t in b["init"]] == [[worker, worker]]  # called once, in this worker, with its id
    seeds = {b["worker"][0].item(): b["seed"][0].item() for b in batches}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker_id
    for rng in ("ember", "python", "numpy"):
        first_draws = [batches[0][rng][0].item(), batches[1][rng][0].item()]
        assert first_draws[0] != first_draws[1]  # each worker has its own stream
    again, other = run(5), run(6)
    assert [b["seed"].tolist() for b in again] == [b["seed"].tolist() for b in batches]
    assert [b["numpy"].tolist() for b in again] == [b["numpy"].tolist() for b in batches]
    assert [b["ember"].tolist() for b in again] == [b["ember"].tolist() for b in batches]
    assert other[0]["seed"].tolist() != batches[0]["seed"].tolist()
    assert data.get_worker_info() is None


def test_iterable_dataset_sharding_and_duplicates():
    loader = data.DataLoader(Range(11), batch_size=2, num_workers=2)
    got = [v for b in loader for v in b.tolist()]
    assert sorted(got) == list(range(11))
    # each worker iterates its own copy: without sharding every sample comes twice
    dup = [v for b in data.DataLoader(Range(5, shard=False), batch_size=2, num_workers=2) for v in b.tolist()]
    assert sorted(dup) == sorted(list(range(5)) * 2)
    dropped = [b.tolist() for b in data.DataLoader(Range(11), batch_size=2, num_workers=2, drop_last=True)]
    assert all(len(b) == 2 for b in dropped) and len(dropped) == 5  # 6 and 5 items: 3 + 2 full batches, [9] dropped
    persistent = data.DataLoader(Range(7), batch_size=3, num_workers=2, persistent_workers=True)
    assert [sorted(v for b in persistent for v in b.tolist()) for _ in range(2)] == [list(range(7))] * 2
    del persistent


# ---------------------------------------------------------------------------------------
# errors: re-raised, dead workers, timeouts, Ctrl-C


@pytest.mark.parametrize(
    ("exc", "raised"),
    [(ValueError("bad sample 3"), ValueError), (KeyError("k"), KeyError), (NeedsTwoArgs("a", "b"), RuntimeError)],
)
def test_worker_exception_is_reraised_with_its_traceback(exc, raised):
    loader = data.DataLoader(Failing(3, exc), batch_size=2, num_workers=2)
    with pytest.raises(raised) as info:
        list(loader)
    text = str(info.value)
    assert f"Caught {type(exc).__name__} in DataLoader worker process 1." in text
    assert "Original Traceback (most recent call last):" in text and "raise_for_sample" in text


def test_worker_exception_stops_the_workers_at_once():
    loader = data.DataLoader(Failing(0, ValueError("first")), batch_size=2, num_workers=2)
    it = iter(loader)
    workers = [w.pid for w in it._workers]
    with pytest.raises(ValueError, match="first") as info:
        next(it)
    assert _gone(workers)  # although the traceback still holds the iterator
    with pytest.raises(RuntimeError, match="shut down"):
        next(it)
    del info, it
    assert len(list(data.DataLoader(Squares(6), batch_size=2, num_workers=2))) == 3  # a new epoch works


def test_unpicklable_batch_is_an_error_not_a_hang():
    loader = data.DataLoader(Squares(4), batch_size=2, num_workers=2, collate_fn=lambda samples: lambda: samples)
    with pytest.raises(Exception, match="DataLoader worker process"):
        next(iter(loader))


def test_worker_init_fn_error():
    def bad_init(worker_id):
        raise ValueError(f"init {worker_id}")

    with pytest.raises(ValueError, match="init 0"):
        list(data.DataLoader(Squares(4), batch_size=1, num_workers=2, worker_init_fn=bad_init))


@pytest.mark.parametrize("how", ["kill", "exit"])
def test_dead_worker_raises_instead_of_hanging(how):
    loader = data.DataLoader(Dies(how), batch_size=2, num_workers=2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(loader)


def test_timeout():
    loader = data.DataLoader(Slow(3.0, n=2), batch_size=1, num_workers=1, timeout=0.3)
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0\.3 seconds"):
        next(iter(loader))


def test_keyboard_interrupt_shuts_workers_down():
    """Ctrl-C while batches load: the KeyboardInterrupt reaches the loop and the workers go.

    The signal is sent again every 0.3 s until the loop has caught one, as a user presses Ctrl-C
    again: on a loaded machine a single SIGINT was once lost and the loop ran to its end (a
    KeyboardInterrupt that Python raises inside a finalizer is dropped; where this one went was
    not found)."""
    it = iter(data.DataLoader(Slow(0.5), batch_size=1, num_workers=2))
    workers = [w.pid for w in it._workers]
    caught = threading.Event()

    def on_sigint(signum, frame):
        if not caught.is_set():
            raise KeyboardInterrupt

    def press():
        for _ in range(20):
            if caught.wait(0.3):
                return
            os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, on_sigint)
    presser = threading.Thread(target=press, daemon=True)
    presser.start()
    loaded = 0
    try:
        try:
            for _ in it:
                loaded += 1
        except KeyboardInterrupt:
            caught.set()
    finally:
        interrupted = caught.is_set()
        caught.set()
        presser.join(5)
        signal.signal(signal.SIGINT, previous)
    assert interrupted and loaded < 8, f"the loop ran to its end ({loaded} batches) without a KeyboardInterrupt"
    assert it._shutdown and _gone(workers), "the KeyboardInterrupt must shut the workers down"


# ---------------------------------------------------------------------------------------
# arguments


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_workers": -1}, ValueError, "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
        ({"prefetch_factor": 2}, ValueError, "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0"),
        ({"num_workers": 2, "prefetch_factor": 0}, ValueError, "prefetch_factor option should be a positive integer"),
        ({"persistent_workers": True}, ValueError, "persistent_workers option needs num_workers > 0"),
        ({"timeout": -1}, ValueError, "timeout option should be non-negative"),
        ({"multiprocessing_context": "fork"}, ValueError, "multiprocessing_context can only be used with multi-process loading"),
        ({"num_workers": 1, "multiprocessing_context": "threads"}, ValueError, "should specify a valid start method"),
        ({"num_workers": 1, "multiprocessing_context": 3}, TypeError, "should be a valid context object"),
    ],
)
def test_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        data.DataLoader(Squares(4), **kwargs)


# ---------------------------------------------------------------------------------------
# the main process going away


_SCRIPT = """
import os, signal, sys
import ember
from ember.utils import data
ds = data.TensorDataset(ember.arange(400.0).reshape(200, 2), ember.arange(200))
loader = data.DataLoader(ds, batch_size=2, num_workers=2, persistent_workers=True)
it = iter(loader)
next(it)
print(*[w.pid for w in it._workers], flush=True)
if sys.argv[1] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_workers_end_with_the_main_process(how):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _SCRIPT, how], capture_output=True, text=True, timeout=60)
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2, out.stderr
    deadline = time.monotonic() + 5.0  # a worker notices a dead parent within a second
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(p) for p in pids)
    if how == "exit":
        assert out.returncode == 0 and "Traceback" not in out.stderr
