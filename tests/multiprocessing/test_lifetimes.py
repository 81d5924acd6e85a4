"""Shared segments disappear as soon as no process holds them: after a normal exit, an exception,
and SIGKILL of any process, the creator included. Each case runs a small parent script in a
subprocess (which forks a child), so that the test can kill either; every wait is bounded."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import ember.multiprocessing as emp

SCRIPT = r'''
import json, os, sys, time
import ember, ember.multiprocessing as emp

strategy, scenario = sys.argv[1], sys.argv[2]
emp.set_sharing_strategy(strategy)

def names(*pids):
    return sorted(n for n in os.listdir("/dev/shm") if any(f"_{p}_" in n for p in pids))

def name_of(t):
    return t.untyped_storage()._data.segment.name.lstrip("/") if strategy == "file_system" else None

def settle(pid, expected):
    """Wait (bounded) until pid's named segments are exactly ``expected``; report what is left."""
    deadline = time.monotonic() + 10
    while names(pid) != expected and time.monotonic() < deadline:
        time.sleep(0.02)
    return names(pid)

def child(inbox, outbox, scenario):
    received = inbox.get(timeout=30)
    received[0] = 1.0                       # write into the parent's segment
    with emp.shared_memory():
        own = ember.full((4,), 2.0)         # a segment this child creates and sends
        extra = ember.ones(3)               # one only this child holds
    outbox.put(own)
    parent = os.getppid()
    deadline = time.monotonic() + 30
    while os.getppid() == parent and time.monotonic() < deadline:
        if scenario != "kill_parent" and not inbox.empty():
            break
        time.sleep(0.02)                    # hold both segments until told to go, or until the parent dies
    if scenario == "kill_parent":           # the creator died: its segment we hold stays, the rest goes
        expected = [n for n in [name_of(received)] if n]
        print(json.dumps({"parent_left": settle(parent, expected), "expected": expected}), flush=True)
    if scenario == "child_raises":
        raise ValueError("the child fails on purpose, holding both segments")

if __name__ == "__main__":
    ctx = emp.get_context("fork")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    process = ctx.Process(target=child, args=(inbox, outbox, scenario))
    process.start()
    t = ember.zeros(8).share_memory_()
    extra = ember.ones(5).share_memory_()   # one only the parent holds
    inbox.put(t)
    theirs = outbox.get(timeout=30)
    deadline = time.monotonic() + 10
    while t[0].item() != 1.0 and time.monotonic() < deadline:
        time.sleep(0.01)
    from ember._core import shared_memory as shm
    info = {
        "pids": [os.getpid(), process.pid],
        "manager": shm._own.pid if shm._own is not None else None,
        "seen": t[0].item(), "theirs": theirs.tolist(),
        "names": names(os.getpid(), process.pid),
        "segments": [s.strategy for s in emp.list_shared()],
    }
    print(json.dumps(info), flush=True)
    if scenario == "kill_parent":
        time.sleep(60)                      # the test SIGKILLs this process
    elif scenario == "kill_child":
        os.kill(process.pid, 9)
        process.join(10)
    else:
        inbox.put("go")
        process.join(10)
    expected = [n for n in [name_of(theirs)] if n]   # the child is gone: only what we hold of its stays
    print(json.dumps({"child_exit": process.exitcode, "child_left": settle(process.pid, expected), "expected": expected}), flush=True)
'''

WAIT_S = 15


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie holds nothing
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def _names(pids) -> list[str]:
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith("ember_") and any(f"_{p}_" in n for p in pids))


def _wait_until(check, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {WAIT_S} s: {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("lifetimes") / "parent.py"
    path.write_text(SCRIPT)
    return path


@pytest.mark.parametrize("scenario", ["normal", "child_raises", "kill_child", "kill_parent"])
@pytest.mark.parametrize("strategy", sorted(emp.get_all_sharing_strategies()))
def test_no_segment_outlives_its_holders(script, strategy, scenario):
    if not os.path.isdir("/dev/shm"):
        pytest.skip("POSIX shared memory is not listed in /dev/shm here")
    parent = subprocess.Popen(
        [sys.executable, str(script), strategy, scenario], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = parent.stdout.readline()  # the script always prints or exits within its own bounds
        assert line, parent.stderr.read()
        info = json.loads(line)
        assert info["seen"] == 1.0 and info["theirs"] == [2.0] * 4  # both directions mapped the same memory
        assert set(info["segments"]) == {strategy}
        pids = info["pids"]
        if strategy == "file_system":
            assert len(info["names"]) >= 4  # two segments each of the parent and the child
        else:
            assert info["names"] == []  # descriptor segments never have a name
        if scenario == "kill_parent":
            parent.send_signal(signal.SIGKILL)
        out, err = parent.communicate(timeout=WAIT_S + 30)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.communicate()
    report = json.loads(out.strip().splitlines()[-1])
    if scenario == "kill_parent":  # the child outlived the creator and saw the creator's own segments go
        assert report["parent_left"] == report["expected"]
    else:
        assert parent.returncode == 0, err
        assert report["child_exit"] == {"normal": 0, "child_raises": 1, "kill_child": -9}[scenario]
        assert report["child_left"] == report["expected"]  # while the parent still runs
    if strategy == "file_system":
        assert len(report["expected"]) == 1
    _wait_until(lambda: all(_gone(pid) for pid in pids), "the script's processes have exited")
    _wait_until(lambda: _names(pids) == [], f"no ember segment of pids {pids} is left in /dev/shm")
    if info["manager"] is not None:
        _wait_until(lambda: _gone(info["manager"]), "the manager has exited")


def test_manager_exits_when_its_clients_came_and_went_before_it_looked():
    """A slow-starting manager may find a whole client lifetime (connect, register, close) queued
    at once: it has been served and must go after its grace, not wait for a first client."""
    import socket

    from ember._core import shared_memory as shm

    if not sys.platform.startswith("linux"):
        pytest.skip("the test binds a socket in Linux's abstract namespace")

    address = f"ember_manager_test_{os.getpid()}_{time.monotonic_ns()}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(b"\0" + address.encode())
        listener.listen(8)
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(b"\0" + address.encode())
        client.sendall(b"H /ember_0_0_0\n")  # another manager's name: ignored, but read
        client.close()
        manager = subprocess.Popen(
            [sys.executable, "-I", "-S", shm._MANAGER_SCRIPT, str(listener.fileno()), "0.5", address],
            pass_fds=[listener.fileno()],
        )
    finally:
        listener.close()
    try:
        assert manager.wait(timeout=10) == 0  # the first-client wait is 30 s
    finally:
        if manager.poll() is None:
            manager.kill()
            manager.wait()
