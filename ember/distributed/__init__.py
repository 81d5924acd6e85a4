"""ember.distributed: PyTorch's ``torch.distributed`` on MPI.

Process groups, collectives with work handles, a launcher (``ember-run`` /
``python -m ember.distributed.run``) that runs programs written for ``torchrun``, and fault
handling so that nothing hangs: an exception, a vanished rank or a stuck collective ends the
whole job with a message naming the rank and the collective. MPI (``mpi4py``) is loaded only
when a group is made; this import loads nothing of it.

>>> import ember.distributed as dist
>>> dist.is_initialized()
False
>>> dist.ReduceOp.SUM
<RedOpType.SUM: 0>
"""

from .collectives import (
    all_reduce,
    barrier,
    broadcast,
    monitored_barrier,
    reduce,
    reduce_scatter,
    reduce_scatter_single,
    reduce_scatter_tensor,
)
from .debug import DebugLevel, get_debug_level, set_debug_level, set_debug_level_from_env
from .gather_scatter import all_gather, all_gather_into_tensor, all_gather_single, all_to_all, all_to_all_single, gather, scatter
from .objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from .p2p import irecv, isend, recv, send
from .process_group import (
    GroupMember,
    ProcessGroup,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_local_rank,
    get_node_local_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    new_group,
    new_subgroups,
    new_subgroups_by_enumeration,
)
from .reduce_op import ReduceOp
from .timeline import Timeline, record, record_span, timeline
from .work import DistBackendError, DistError, Work

__all__ = [
    # groups
    "init_process_group", "destroy_process_group", "is_available", "is_mpi_available", "is_initialized",
    "get_rank", "get_world_size", "get_local_rank", "get_node_local_rank", "get_backend",
    "get_global_rank", "get_group_rank", "get_process_group_ranks",
    "new_group", "new_subgroups", "new_subgroups_by_enumeration", "ProcessGroup", "GroupMember", "group",
    # collectives
    "ReduceOp", "Work", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "all_gather_single",
    "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_single", "all_to_all", "all_to_all_single", "gather", "scatter",
    "send", "recv", "isend", "irecv", "barrier", "monitored_barrier",
    "broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list",
    # errors, debugging, observability
    "DistError", "DistBackendError", "DebugLevel", "get_debug_level", "set_debug_level", "set_debug_level_from_env",
    "Timeline", "timeline", "record_span", "record",
]
