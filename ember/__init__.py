"""ember: a small, readable deep-learning framework.

PyTorch-style eager tensors over NumPy, with the insides that the classic framework-internals
write-ups describe: dumb storages, strided views, allocators, zero-copy borders.

>>> import ember
>>> a = ember.ones((3, 3))
>>> b = a.view(9)
>>> a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
True
"""

from . import io, memory
from ._core.allocator import empty_cache, memory_stats, reset_peak_memory_stats
from ._core.device import Device, device
from ._core.dtype import (
    DType,
    bfloat16,
    can_cast,
    cdouble,
    cfloat,
    complex64,
    complex128,
    default_dtype,
    double,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    long,
    promote_types,
    result_type,
    set_default_dtype,
    short,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._core.dtype import bool_ as bool  # noqa: A004 - PyTorch's name for the dtype
from ._core.dtype import float32 as float  # noqa: A004
from ._core.dtype import int32 as int  # noqa: A004
from ._core.printing import get_printoptions, printoptions, set_printoptions
from ._core.shape import Size, broadcast_shapes
from ._core.storage import Storage, UntypedStorage
from ._core.tensor import Tensor, tensor
from ._core.threads import get_num_threads, set_num_threads
from .interop.checkpoint import load, save
from .interop.dlpack import from_dlpack  # also binds Tensor.__dlpack__ and __dlpack_device__
from .interop.numpy import as_tensor, from_numpy, frombuffer

from . import ops  # isort: skip - builds the functional API and binds Tensor methods
from .kernels import cpu as _cpu_kernels  # noqa: F401 isort: skip - registers the CPU kernels on the ops
from . import linalg  # isort: skip
from . import array_api  # isort: skip - the array API standard's namespace over the same ops
from .dispatch import explain, trace, vm  # isort: skip
from . import autograd  # isort: skip - installs the autograd interpreter around the eager one
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # isort: skip
from . import nn, optim, utils  # isort: skip
from ._core.generator import Generator, default_generator, initial_seed, manual_seed, seed  # isort: skip
from . import graph  # isort: skip - graph mode: the lazy interpreter on the same ops
from . import sparse  # isort: skip - TensorFlow's SparseTensor, eager and graph mode
from .graph import compile  # noqa: A004 isort: skip - ember.compile, as torch.compile
from .graph import (  # isort: skip - graph mode
    CompiledFunction, FailedPreconditionError, Graph, GraphTensor, InteractiveSession, Operation, Session, TensorShape,
    Variable, assign, assign_add, assign_sub, constant, control_dependencies, get_default_graph,
    get_default_session, global_variables, global_variables_initializer, gradients, group, identity,
    is_symbolic_tensor, name_scope, no_op, optimize, placeholder, placeholder_with_default, reset_default_graph,
    summary, to_dot, train, trainable_variables, variables_initializer, write_graph,
)
from .sparse import (  # isort: skip
    SparseTensor, SparseTensorValue, sparse_add, sparse_placeholder, sparse_reduce_max, sparse_reduce_sum,
    sparse_reorder, sparse_retain, sparse_tensor_dense_matmul, sparse_tensor_to_dense, sparse_transpose,
)

dtype = DType
__array_api_version__ = array_api.__array_api_version__
Tensor.__array_namespace__ = array_api._tensor_array_namespace

__version__ = "0.1.0"


def is_tensor(obj: object) -> bool:
    """True for ember tensors.

    >>> is_tensor(tensor(1.0)), is_tensor(1.0)
    (True, False)
    """
    return isinstance(obj, Tensor)


__all__ = [
    "DType",
    "Device",
    "Size",
    "Storage",
    "Tensor",
    "UntypedStorage",
    "as_tensor",
    "bfloat16",
    "bool",
    "broadcast_shapes",
    "can_cast",
    "cdouble",
    "cfloat",
    "complex64",
    "complex128",
    "default_dtype",
    "device",
    "double",
    "dtype",
    "empty_cache",
    "finfo",
    "float",
    "float16",
    "float32",
    "float64",
    "from_dlpack",
    "from_numpy",
    "frombuffer",
    "get_default_dtype",
    "get_num_threads",
    "get_printoptions",
    "half",
    "iinfo",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "io",
    "is_tensor",
    "isdtype",
    "load",
    "long",
    "memory",
    "memory_stats",
    "printoptions",
    "promote_types",
    "reset_peak_memory_stats",
    "result_type",
    "save",
    "set_default_dtype",
    "set_num_threads",
    "set_printoptions",
    "short",
    "string",
    "tensor",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
# Graph mode's public names (TensorFlow 1's: ember.Graph, ember.Session, ember.placeholder, ...) and
# TensorFlow 1's sparse names (ember.SparseTensor, ...; ember.sparse has TensorFlow 2's)
__all__ += [
    "CompiledFunction",
    "FailedPreconditionError",
    "Graph",
    "GraphTensor",
    "InteractiveSession",
    "Operation",
    "Session",
    "TensorShape",
    "Variable",
    "assign",
    "assign_add",
    "assign_sub",
    "compile",
    "constant",
    "control_dependencies",
    "get_default_graph",
    "get_default_session",
    "global_variables",
    "gradients",
    "global_variables_initializer",
    "group",
    "identity",
    "is_symbolic_tensor",
    "name_scope",
    "no_op",
    "optimize",
    "placeholder",
    "placeholder_with_default",
    "reset_default_graph",
    "summary",
    "to_dot",
    "train",
    "trainable_variables",
    "variables_initializer",
    "write_graph",
    "SparseTensor",
    "SparseTensorValue",
    "sparse_add",
    "sparse_placeholder",
    "sparse_reduce_max",
    "sparse_reduce_sum",
    "sparse_reorder",
    "sparse_retain",
    "sparse_tensor_dense_matmul",
    "sparse_tensor_to_dense",
    "sparse_transpose",
    "sparse",
    "graph",
]
__all__ += ["Generator", "array_api", "autograd", "enable_grad", "inference_mode", "is_grad_enabled", "nn", "no_grad", "optim", "set_grad_enabled", "utils", "default_generator", "explain", "initial_seed", "linalg", "manual_seed", "ops", "seed", "trace", "vm"]

# Every public op of the schema: ember.relu, ember.add, ... The schema is the list; the
# generated functions are bound here by name rather than copied into a hand-kept import.
globals().update(ops.functional.FUNCTIONS)
__all__ += sorted(ops.functional.FUNCTIONS)
