"""Process groups: the world and its sub-groups, each over its own MPI communicator.

``init_process_group()`` starts MPI (or joins the MPI job that ``ember-run``/``mpiexec``
started), duplicates ``MPI_COMM_WORLD`` so a program's own MPI traffic never meets ember's,
and starts the watchdog. Run plainly (``python train.py``) it is a world of one process.
Sub-groups come from ``new_group(ranks)`` (``MPI_Comm_create_group``: only the members take
part) or ``new_subgroups_by_enumeration`` (one ``MPI_Comm_split`` over the parent: a mesh's
rows or columns at once). Ranks are always global ranks, as in PyTorch.

MPI is imported here, lazily, the first time a group is made: ``import ember.distributed``
loads nothing of MPI.
"""

from __future__ import annotations

import datetime
import importlib.util
import os
import warnings

from . import _status, debug, watchdog

__all__ = [
    "GroupMember", "ProcessGroup", "destroy_process_group", "get_backend", "get_global_rank", "get_group_rank",
    "get_local_rank", "get_node_local_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group",
    "init_process_group", "is_available", "is_initialized", "is_mpi_available", "new_group", "new_subgroups",
    "new_subgroups_by_enumeration",
]

DEFAULT_TIMEOUT_S = 600.0  # NCCL's default; gloo's is 30 min
NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."
_OTHER_BACKENDS = ("gloo", "nccl", "ucc", "xccl", "hccl", "cpu:gloo,cuda:nccl")


class ProcessGroup:
    """A set of processes that run collectives together (PyTorch's ``ProcessGroup``).

    ``rank()`` and ``size()`` are this process's rank in the group and the group's size;
    ``ranks`` lists the members' global ranks in group-rank order.
    """

    __slots__ = ("_comm", "_debug_comm", "_key", "_rank", "_seq", "_size", "group_desc", "group_name", "ranks", "timeout")

    def __init__(self, comm, ranks: list[int], name: str, desc: str, timeout: float, key: tuple) -> None:
        self._comm = comm
        self._rank = comm.rank
        self._size = comm.size
        self.ranks = ranks
        self.group_name = name
        self.group_desc = desc
        self.timeout = timeout  # seconds: the watchdog's deadline for one collective
        self._seq = 0  # collectives started on this group (the same count on every member)
        self._key = key  # names the group the same way on every member (watchdog, debug)
        self._debug_comm = None  # a duplicate for EMBER_DISTRIBUTED_DEBUG=DETAIL's fingerprints

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def name(self) -> str:
        """The backend's name, as PyTorch's ``ProcessGroup.name()``."""
        return "mpi"

    def describe(self) -> str:
        """How messages name the group: ``group WORLD (ranks 0-3)``."""
        r = self.ranks
        span = f"{r[0]}-{r[-1]}" if r == list(range(r[0], r[-1] + 1)) and len(r) > 2 else ", ".join(map(str, r))
        return f"group {self.group_name} (ranks {span})"

    def __repr__(self) -> str:
        state = "" if self._comm is not None else ", destroyed"
        return f"<ProcessGroup {self.group_name!r} rank {self._rank} of {self._size}, global ranks {self.ranks}{state}>"


class _NonGroupMember:
    """What ``new_group`` returns on ranks outside the new group (PyTorch's sentinel)."""

    def __repr__(self) -> str:
        return "GroupMember.NON_GROUP_MEMBER"


class GroupMember:
    """``GroupMember.WORLD`` (the default group) and ``GroupMember.NON_GROUP_MEMBER``."""

    NON_GROUP_MEMBER = _NonGroupMember()

    class _WorldDescriptor:
        def __get__(self, obj, owner):
            return _STATE.default

    WORLD = _WorldDescriptor()


group = GroupMember  # PyTorch spells it dist.group.WORLD


class _State:
    """This process's distributed state: there is one MPI world per process."""

    def __init__(self) -> None:
        self.default: ProcessGroup | None = None
        self.groups: list[ProcessGroup] = []
        self.mpi = None  # the _mpi module, once loaded
        self.created: dict = {}  # ranks tuple -> how many groups over them this process made
        self.names = 0
        self.watchdog = None


_STATE = _State()


def _load_mpi():
    # The only import of the MPI module, on first use: `import ember.distributed` must not load MPI.
    from . import _mpi

    _mpi.ensure_initialized()
    _STATE.mpi = _mpi
    return _mpi


def is_available() -> bool:
    """Whether ember.distributed can run here (mpi4py and an MPI library are installed)."""
    return importlib.util.find_spec("mpi4py") is not None  # a look that loads nothing


is_mpi_available = is_available


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (and the group was not destroyed since)."""
    return _STATE.default is not None


def _timeout_seconds(timeout, fn: str) -> float:
    if timeout is None:
        env = os.environ.get("EMBER_DISTRIBUTED_TIMEOUT")
        if env is None:
            return DEFAULT_TIMEOUT_S
        try:
            value = float(env)
        except ValueError:
            raise ValueError(f"EMBER_DISTRIBUTED_TIMEOUT must be a number of seconds, got {env!r}") from None
    elif isinstance(timeout, datetime.timedelta):
        value = timeout.total_seconds()
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        value = float(timeout)
    else:
        raise TypeError(f"{fn}(): timeout must be a datetime.timedelta (or seconds), not {type(timeout).__name__}")
    if not value > 0:
        raise ValueError(f"{fn}(): timeout must be positive, got {value} s")
    return value


def init_process_group(backend: str | None = None, init_method: str | None = None, timeout=None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the job's processes into the default group (PyTorch's signature).

    Under ``ember-run``/``mpiexec`` the world is the MPI job; started plainly it is one
    process. ``backend`` may be ``"mpi"`` or None; ``"gloo"``/``"nccl"`` run on MPI with a
    warning. ``init_method="env://"`` and torchrun's variables are accepted; ``rank`` and
    ``world_size`` (or ``RANK``/``WORLD_SIZE``), when given, must agree with MPI's.
    ``timeout`` (a ``timedelta``; default 10 minutes or ``EMBER_DISTRIBUTED_TIMEOUT`` seconds)
    bounds every collective: past it the watchdog aborts the job, naming what hung.
    """
    if _STATE.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    _check_backend(backend, "init_process_group")
    if init_method not in (None, "env://") and not str(init_method).startswith("env://"):
        warnings.warn(f"init_process_group: ember forms the world through MPI; init_method={init_method!r} is not used", stacklevel=2)
    if store is not None:
        warnings.warn("init_process_group: ember forms the world through MPI; the store argument is not used", stacklevel=2)
    seconds = _timeout_seconds(timeout, "init_process_group")
    debug.get_debug_level()  # read EMBER_DISTRIBUTED_DEBUG now: a bad value fails here, on every rank
    mpi = _load_mpi()
    world = mpi.world()
    _check_world(world, rank, world_size)
    comm = world.dup()
    name = group_name or "WORLD"
    pg = ProcessGroup(comm, list(range(world.size)), name, "default_pg", seconds, ("WORLD",))
    _STATE.default = pg
    _STATE.groups.append(pg)
    _STATE.watchdog = watchdog.start(world, _STATE)
    watchdog.install_excepthook(world.rank)
    mpi.before_finalize(_shutdown)
    _status.note_started(world.rank)
    _status.note_shm(world.rank, mpi.shm_segments())


def _check_backend(backend, fn: str) -> None:
    if backend is None or str(backend).lower() == "mpi":
        return
    name = str(backend).lower()
    if name in _OTHER_BACKENDS or name.startswith(("cpu:", "cuda:")):
        warnings.warn(f"{fn}: ember.distributed runs on MPI; backend {backend!r} is served by MPI", stacklevel=3)
        return
    raise ValueError(f"{fn}: Invalid backend: {backend!r}; ember.distributed runs on 'mpi' ('gloo' and 'nccl' are accepted and served by MPI)")


def _check_world(world, rank: int, world_size: int) -> None:
    """Refuse a rank/world size (argument or torchrun variable) that MPI contradicts."""
    for what, given, actual in (("world_size", world_size, world.size), ("rank", rank, world.rank)):
        if given is not None and given != -1 and given != actual:
            raise ValueError(f"init_process_group: {what}={given} but MPI says {actual}; ember's world is the MPI job")
    for var, actual in (("WORLD_SIZE", world.size), ("RANK", world.rank)):
        value = os.environ.get(var)
        if value is not None and value.strip().isdigit() and int(value) != actual:
            raise RuntimeError(
                f"init_process_group: {var}={value} but MPI sees {'a world of ' + str(world.size) if var == 'WORLD_SIZE' else 'rank ' + str(actual)}: "
                f"ember's processes meet through MPI, so start them with `ember-run -n N script.py` (or mpiexec), not torchrun"
            )


def _shutdown() -> None:
    """At exit (before MPI_Finalize) or on destroy: stop the watchdog, free communicators."""
    if _STATE.watchdog is not None:
        _STATE.watchdog.stop()
        _STATE.watchdog = None
    for pg in _STATE.groups:
        _free(pg)
    _STATE.groups.clear()
    _STATE.default = None


def _free(pg: ProcessGroup) -> None:
    for comm in (pg._comm, pg._debug_comm):
        if comm is not None:
            comm.free()
    pg._comm = None
    pg._debug_comm = None


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free ``group``'s communicator, or with no argument every group and the default one."""
    if group is None or group is _STATE.default:
        if _STATE.default is None:
            raise ValueError(NOT_INITIALIZED)
        _shutdown()
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if not isinstance(group, ProcessGroup) or group not in _STATE.groups:
        raise ValueError(f"destroy_process_group: {group!r} is not a live process group")
    _free(group)
    _STATE.groups.remove(group)


def _default(fn: str) -> ProcessGroup:
    pg = _STATE.default
    if pg is None:
        raise ValueError(f"{fn}: {NOT_INITIALIZED}")
    return pg


def resolve(group, fn: str) -> ProcessGroup | None:
    """The group a collective runs on; None (with PyTorch's warning) on a non-member."""
    if group is None:
        pg = _STATE.default
        if pg is None:
            raise ValueError(f"{fn}: {NOT_INITIALIZED}")
        return pg
    if group is GroupMember.NON_GROUP_MEMBER:
        _default(fn)
        warnings.warn(f"Running {fn} on global rank {get_rank()} which does not belong to the given group.", stacklevel=3)
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"{fn}: argument 'group' must be a ProcessGroup (or None for the default group), not {type(group).__name__}")
    if group._comm is None:
        raise ValueError(f"{fn}: {group.describe()} was destroyed")
    return group


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the default group when None); -1 outside it."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _default("get_rank") if group is None else resolve(group, "get_rank")
    return pg._rank


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in ``group`` (the default group when None); -1 outside it."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _default("get_world_size") if group is None else resolve(group, "get_world_size")
    return pg._size


def get_local_rank() -> int:
    """This process's rank among the processes on its host (torchrun's ``LOCAL_RANK``)."""
    for var in ("LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK"):
        value = os.environ.get(var)
        if value is not None and value.isdigit():
            return int(value)
    return 0 if _STATE.default is None or _STATE.default._size == 1 else _local_from_mpi()


def _local_from_mpi() -> int:
    # No launcher variable: split the world by shared-memory node (one collective, on demand).
    return _STATE.mpi.world().node_rank()


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """PyTorch's name: ``LOCAL_RANK`` from the launcher, else ``fallback_rank``, else an error."""
    value = os.environ.get("LOCAL_RANK") or os.environ.get("MPI_LOCALRANKID")
    if value is not None:
        return int(value)
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment: start the job with ember-run (or pass fallback_rank)")


def get_backend(group: ProcessGroup | None = None) -> str:
    """Always ``"mpi"``."""
    if group is None:
        _default("get_backend")
    return "mpi"


def get_process_group_ranks(group: ProcessGroup) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = resolve(group, "get_process_group_ranks")
    return list(pg.ranks) if pg is not None else []


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of ``group``'s member ``group_rank``."""
    pg = resolve(group, "get_global_rank")
    if pg is None or not 0 <= group_rank < len(pg.ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group!r}")
    return pg.ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank within ``group`` of the process with global rank ``global_rank``."""
    pg = resolve(group, "get_group_rank")
    if pg is None or global_rank not in pg.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group!r}")
    return pg.ranks.index(global_rank)


def _new(comm, ranks: list[int], timeout, fn: str, desc: str | None) -> ProcessGroup:
    key_ranks = tuple(ranks)
    count = _STATE.created.get(key_ranks, 0)
    _STATE.created[key_ranks] = count + 1
    _STATE.names += 1
    seconds = _STATE.default.timeout if timeout is None else _timeout_seconds(timeout, fn)
    pg = ProcessGroup(comm, ranks, str(_STATE.names), desc or "undefined", seconds, (key_ranks, count))
    _STATE.groups.append(pg)
    return pg


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization: bool = False,
              group_desc: str | None = None, device_id=None):
    """A group of the given global ranks (all of them when None), PyTorch's signature.

    Only the members communicate to make it; every process should still call ``new_group``
    with the same arguments in the same order (PyTorch's rule). Processes outside ``ranks``
    get ``GroupMember.NON_GROUP_MEMBER``.
    """
    world = _default("new_group")
    _check_backend(backend, "new_group")
    size = world._size
    ranks = list(range(size)) if ranks is None else sorted(_as_rank_list(ranks, "new_group"))
    for r in ranks:
        if not 0 <= r < size:
            raise ValueError(f"new_group: the new group's rank {r} is not within the world of {size} processes (ranks 0-{size - 1})")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks must be distinct, got {ranks}")
    if world._rank not in ranks:
        _STATE.created[tuple(ranks)] = _STATE.created.get(tuple(ranks), 0) + 1
        _STATE.names += 1
        return GroupMember.NON_GROUP_MEMBER
    comm = world._comm.create_group(ranks, tag=0x2E3)
    return _new(comm, ranks, timeout, "new_group", group_desc)


def _as_rank_list(ranks, fn: str) -> list[int]:
    try:
        out = [int(r) for r in ranks]
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: ranks must be a list of ints, got {ranks!r}") from None
    return out


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Split the world into the given disjoint groups at once (one ``MPI_Comm_split``).

    Returns ``(this process's subgroup or None, [all subgroups this process belongs to])``:
    PyTorch returns every subgroup object, but a process holds only its own communicator.
    """
    world = _default("new_subgroups_by_enumeration")
    _check_backend(backend, "new_subgroups_by_enumeration")
    lists = [sorted(_as_rank_list(r, "new_subgroups_by_enumeration")) for r in ranks_per_subgroup_list]
    color = None
    seen: set = set()
    for i, ranks in enumerate(lists):
        for r in ranks:
            if not 0 <= r < world._size:
                raise ValueError(f"new_subgroups_by_enumeration: rank {r} is outside the world of {world._size} processes")
            if r in seen:
                raise ValueError(f"Rank {r} has appeared in both subgroup {next(lst for lst in lists if r in lst)} and {ranks}")
            seen.add(r)
        if world._rank in ranks:
            color = i
    comm = world._comm.split(color, world._rank)
    mine = None
    for i, ranks in enumerate(lists):
        if i == color:
            mine = _new(comm, ranks, timeout, "new_subgroups_by_enumeration", group_desc)
        else:
            _STATE.created[tuple(ranks)] = _STATE.created.get(tuple(ranks), 0) + 1
            _STATE.names += 1
    return mine, ([mine] if mine is not None else [])


def new_subgroups(group_size: int | None = None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Consecutive subgroups of ``group_size`` ranks each (default: the ranks on one host)."""
    world = _default("new_subgroups")
    if group is not None:
        raise NotImplementedError("new_subgroups: the group argument is not supported; subgroups split the world")
    if group_size is None:
        group_size = int(os.environ.get("LOCAL_WORLD_SIZE") or os.environ.get("MPI_LOCALNRANKS") or world._size)
    if group_size <= 0 or world._size % group_size:
        raise ValueError(f"new_subgroups: the world size {world._size} must be divisible by group_size, got {group_size}")
    lists = [list(range(s, s + group_size)) for s in range(0, world._size, group_size)]
    return new_subgroups_by_enumeration(lists, timeout=timeout, backend=backend, group_desc=group_desc)
