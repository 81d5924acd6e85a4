"""ember: a small, readable deep-learning framework.

PyTorch-style eager tensors over NumPy, with the insides that the classic framework-internals
write-ups describe: dumb storages, strided views, allocators, zero-copy borders.

>>> import ember
>>> a = ember.ones((3, 3))
>>> b = a.view(9)
>>> a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
True
"""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING

from . import autograd, backends, cuda, fft, linalg, memory, ops, special
from ._core.allocator import empty_cache, memory_stats, reset_peak_memory_stats
from ._core.device import Device, device
from ._core.dtype import (
    DType,
    bfloat16,
    bool_ as bool,  # noqa: A004 - PyTorch's name for the dtype
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
    float32 as float,  # noqa: A004
    float64,
    get_default_dtype,
    half,
    iinfo,
    int8,
    int16,
    int32,
    int32 as int,  # noqa: A004
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
from ._core.generator import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from ._core.legacy_types import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    ComplexDoubleTensor,
    ComplexFloatTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    set_default_tensor_type,
)
from ._core.memory_format import (
    MemoryFormat as memory_format,
    channels_last,
    channels_last_3d,
    contiguous_format,
    preserve_format,
)
from ._core.printing import get_printoptions, printoptions, set_printoptions
from ._core.shape import Size, broadcast_shapes
from ._core.storage import Storage, UntypedStorage
from ._core.tensor import Tensor, tensor
from ._core.tensor_numpy import as_tensor, from_numpy, frombuffer
from ._core.threads import get_num_threads, set_num_threads
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .backends import (
    are_deterministic_algorithms_enabled,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .dispatch import explain, sbp, trace, vm
from .dispatch.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .kernels import cpu as _cpu_kernels  # noqa: F401 - registers the CPU kernels on the ops
from .ops.functional import FUNCTIONS as _FUNCTIONS, export_to as _export_to

if _TYPE_CHECKING:  # the parts that load on first use (below), for readers and type checkers
    from . import array_api, distributed, distributions, graph, io, nn, optim, sparse, utils

# Parts that load on first use (PEP 562 ``__getattr__`` below): ``ember.nn``, ``ember.Graph`` or
# ``ember.save`` imports its module then, so ``import ember`` pays for tensors, ops, kernels and
# autograd only. A submodule imported any other way (``import ember.nn``) binds itself as usual.
_LAZY_PARTS = ("array_api", "distributed", "distributions", "graph", "interop", "io", "nn", "optim", "sparse", "utils")
# Graph mode's public names: TensorFlow 1's (ember.Graph, ember.Session, ember.placeholder, ...)
_GRAPH_NAMES = (
    "CompiledFunction", "FailedPreconditionError", "Graph", "GraphTensor", "InteractiveSession", "Operation",
    "Session", "TensorShape", "Variable", "assign", "assign_add", "assign_sub", "compile", "constant",
    "control_dependencies", "get_default_graph", "get_default_session", "global_variables",
    "global_variables_initializer", "gradients", "group", "identity", "is_symbolic_tensor", "name_scope", "no_op",
    "optimize", "placeholder", "placeholder_with_default", "reset_default_graph", "summary", "to_dot", "train",
    "trainable_variables", "variables_initializer", "write_graph",
)  # fmt: skip
# TensorFlow 1's sparse names (ember.SparseTensor, ...; ember.sparse holds TensorFlow 2's)
_SPARSE_NAMES = (
    "SparseTensor", "SparseTensorValue", "sparse_add", "sparse_placeholder", "sparse_reduce_max", "sparse_reduce_sum",
    "sparse_reorder", "sparse_retain", "sparse_tensor_dense_matmul", "sparse_tensor_to_dense", "sparse_transpose",
)  # fmt: skip
# name -> the part that defines it
_LAZY_NAMES = {
    **dict.fromkeys(_GRAPH_NAMES, "graph"),
    **dict.fromkeys(_SPARSE_NAMES, "sparse"),
    "load": "interop.checkpoint",
    "save": "interop.checkpoint",
    "from_dlpack": "interop.dlpack",
    "placement": "distributed.tensor",  # OneFlow's names for global tensors: ember.placement, ember.sbp.split(0)
    "__array_api_version__": "array_api",
}
# Tensor methods that parts above the op system add: part -> the names in its TENSOR_METHODS
_LAZY_METHODS = {
    "interop.dlpack": ("__dlpack__", "__dlpack_device__"),
    "distributed.tensor": ("to_global", "to_local"),
    "array_api": ("__array_namespace__", "to_device"),
}


def __getattr__(name: str):
    """Load a lazy part, or the part that defines a lazy name, on first use; then bind it here."""
    part = _LAZY_NAMES.get(name)
    if part is not None:
        value = getattr(_importlib.import_module(f"{__name__}.{part}"), name)
    elif name in _LAZY_PARTS:
        value = _importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_NAMES, *_LAZY_PARTS})


class _LazyTensorMethod:
    """A Tensor attribute whose part loads on first use; it then puts the real one in its place."""

    def __init__(self, part: str, name: str) -> None:
        self.part, self.name = part, name

    def __get__(self, obj, cls=None):
        real = _importlib.import_module(f"{__name__}.{self.part}").TENSOR_METHODS[self.name]
        setattr(Tensor, self.name, real)
        return real.__get__(obj, cls) if hasattr(real, "__get__") else real


dtype = DType


def _install() -> None:
    """What importing ember sets up beyond binding names, in one place.

    Tensor is defined in ``_core`` with what a tensor *is*; the parts above it add what it can
    *do*: the schema's methods and operators (generated from the op entries), autograd's
    (``backward``, ``register_hook``, ``.data``...), the DLPack producer and the array API
    entry point (these three as lazy stand-ins, which load their part on first use). Then the
    autograd interpreter is made the default, wrapping the eager one.
    """
    for methods in (ops.TENSOR_METHODS, autograd.TENSOR_METHODS):
        for name, method in methods.items():
            setattr(Tensor, name, method)
    for part, names in _LAZY_METHODS.items():
        for name in names:
            setattr(Tensor, name, _LazyTensorMethod(part, name))
    autograd.install()


_install()

__version__ = "0.1.0"


def is_floating_point(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    """Whether input's dtype is a floating one (``torch.is_floating_point``).

    >>> is_floating_point(tensor([1.0])), is_floating_point(tensor([1]))
    (True, False)
    """
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    """Whether input's dtype is a complex one (``torch.is_complex``)."""
    return input.is_complex()


def numel(input: Tensor) -> int:  # noqa: A002 - PyTorch's name
    """The number of elements in input (``torch.numel``).

    >>> numel(zeros(2, 3))
    6
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.numel()


def is_tensor(obj: object) -> bool:
    """True for ember tensors.

    >>> is_tensor(tensor(1.0)), is_tensor(1.0)
    (True, False)
    """
    return isinstance(obj, Tensor)


__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "ComplexDoubleTensor",
    "ComplexFloatTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "set_default_tensor_type",
    "is_complex",
    "is_floating_point",
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
__all__ += [*_GRAPH_NAMES, *_SPARSE_NAMES, "graph", "sparse"]
__all__ += ["placement", "sbp"]
__all__ += ["is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled"]
__all__ += [
    "are_deterministic_algorithms_enabled", "backends", "cuda", "get_float32_matmul_precision",
    "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision", "use_deterministic_algorithms",
]  # fmt: skip
__all__ += ["Generator", "array_api", "autograd", "distributed", "distributions", "enable_grad", "inference_mode", "is_grad_enabled", "nn", "no_grad", "optim", "set_grad_enabled", "utils", "channels_last", "channels_last_3d", "contiguous_format", "default_generator", "explain", "get_rng_state", "memory_format", "numel", "preserve_format", "set_rng_state", "fft", "initial_seed", "linalg", "manual_seed", "ops", "seed", "special", "trace", "vm"]

# Every public op of the schema: ember.relu, ember.add, ... The schema is the list; the
# generated functions are bound here by name rather than copied into a hand-kept import.
__all__ += _export_to(globals(), _FUNCTIONS)
