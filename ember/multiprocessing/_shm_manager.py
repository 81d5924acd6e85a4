"""The manager of named shared-memory segments (the ``file_system`` sharing strategy).

Run as a script, with the standard library only, by ``ember._core.shared_memory``:
``python -I -S _shm_manager.py <listening fd> <grace seconds> <address>``. The process that starts
it has already bound the listening socket and connected to it. Every client process keeps one
connection and writes lines ``<op> <name>``:

    C  created the name (and holds it)      H  holds it       R  released its hold
    P  a handle to it is in flight          T  took the in-flight reference as its own hold
    D  dropped an in-flight reference (the receiver already held the segment)

A name is unlinked when its count (holds of every connection plus references in flight) reaches
zero. A closed connection, however its process ended, releases all its holds. Since a receiver's
``T`` is caused by a sender's earlier ``P``, every readable connection is drained before anything is
unlinked. With no clients left the manager waits ``grace`` seconds for receivers of references
still in flight, then unlinks every name it knows and exits. At start it removes the names of
managers that no longer run (one that was SIGKILLed could not clean up).
"""

import _posixshmem
import contextlib
import os
import re
import selectors
import signal
import socket
import sys
import time

FIRST_CLIENT_TIMEOUT_S = 30.0
_NAME = re.compile(r"ember_(\d+)_\d+_\d+")


class Client:
    __slots__ = ("buffer", "holds")

    def __init__(self):
        self.buffer = b""
        self.holds = {}


class Manager:
    def __init__(self, listener, grace):
        self.listener = listener
        self.grace = grace
        self.prefix = f"/ember_{os.getpid()}_"
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ)
        self.clients = {}
        self.count = {}  # name -> holds of all clients + references in flight
        self.in_flight = {}  # name -> references in flight (may dip below 0 when a T overtakes its P)
        self.known = set()  # every name ever registered and not yet unlinked
        self.dirty = set()  # names whose count went down since the last check
        self.served = False  # a client has connected (it may have come and gone within one drain)

    def change(self, name, delta):
        count = self.count.get(name, 0) + delta
        self.count[name] = count
        if delta < 0:
            self.dirty.add(name)

    def handle(self, client, line):
        op, _, name = line.decode("ascii", "replace").partition(" ")
        if not name.startswith(self.prefix):
            return  # never touch a name this manager did not hand out
        self.known.add(name)
        holds = client.holds
        if op in ("C", "H"):
            holds[name] = holds.get(name, 0) + 1
            self.change(name, 1)
        elif op == "R":
            if holds.get(name, 0) > 0:  # a forked child may release what only its parent held
                holds[name] -= 1
                self.change(name, -1)
        elif op == "P":
            self.in_flight[name] = self.in_flight.get(name, 0) + 1
            self.change(name, 1)
        elif op == "T":
            self.in_flight[name] = self.in_flight.get(name, 0) - 1
            holds[name] = holds.get(name, 0) + 1
        elif op == "D":
            self.in_flight[name] = self.in_flight.get(name, 0) - 1
            self.change(name, -1)

    def close(self, sock):
        client = self.clients.pop(sock)
        self.selector.unregister(sock)
        sock.close()
        for name, n in client.holds.items():
            if n:
                self.change(name, -n)

    def read(self, sock):
        try:
            data = sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self.close(sock)
            return
        client = self.clients[sock]
        lines = (client.buffer + data).split(b"\n")
        client.buffer = lines.pop()
        for line in lines:
            self.handle(client, line)

    def accept(self):
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        self.clients[sock] = Client()
        self.served = True
        self.selector.register(sock, selectors.EVENT_READ)

    def drain(self, timeout):
        events = self.selector.select(timeout)
        while events:
            for key, _ in events:
                if key.fileobj is self.listener:
                    self.accept()
                else:
                    self.read(key.fileobj)
            events = self.selector.select(0)  # causally earlier messages are already readable
        for name in self.dirty:
            if self.count.get(name, 0) <= 0:
                unlink(name)
                self.known.discard(name)
                self.count.pop(name, None)
                self.in_flight.pop(name, None)
        self.dirty.clear()

    def run(self):
        first_deadline = time.monotonic() + FIRST_CLIENT_TIMEOUT_S
        idle_since = None
        while True:
            if self.clients:
                idle_since = None
                self.drain(None)
                continue
            now = time.monotonic()
            if not self.served:
                remaining = first_deadline - now
            else:
                idle_since = now if idle_since is None else idle_since
                waiting = any(n > 0 for n in self.in_flight.values())
                remaining = idle_since + self.grace - now if waiting else 0.0
            if remaining <= 0:
                return
            self.drain(remaining)

    def cleanup(self):
        for name in list(self.known):
            unlink(name)
        sweep(self.prefix)


def unlink(name):
    with contextlib.suppress(OSError):  # already gone (never created, or removed by someone else)
        _posixshmem.shm_unlink(name)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(own_prefix=None):
    """Remove the names of managers that no longer run, and this manager's own if given (Linux lists
    POSIX shared memory in /dev/shm; elsewhere only the names this manager knows are removed)."""
    try:
        entries = os.listdir("/dev/shm")
    except OSError:
        return
    for entry in entries:
        match = _NAME.fullmatch(entry)
        if match is None:
            continue
        name = "/" + entry
        if (own_prefix is not None and name.startswith(own_prefix)) or not alive(int(match.group(1))):
            unlink(name)


def main(argv):
    listen_fd, grace, address = int(argv[1]), float(argv[2]), argv[3]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the job's Ctrl-C: clients go, then the manager cleans up
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    listener = socket.socket(fileno=listen_fd)
    manager = Manager(listener, grace)

    def terminate(signum, frame):
        manager.cleanup()
        os._exit(0)

    signal.signal(signal.SIGTERM, terminate)
    sweep()  # names left by managers that were killed
    try:
        manager.run()
    finally:
        manager.cleanup()
        listener.close()
        if address.startswith("/"):
            with contextlib.suppress(OSError):
                os.unlink(address)


if __name__ == "__main__":
    main(sys.argv)
