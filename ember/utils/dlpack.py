"""``ember.utils.dlpack``: PyTorch's capsule API, and wrappers that carry functions across
frameworks through DLPack (TVM's ``convert_func`` pattern).

``to_dlpack(t)`` gives a legacy ``"dltensor"`` capsule and ``from_dlpack(capsule)`` takes
one back, as ``torch.utils.dlpack`` does. The wrappers move tensors between ember and
another framework without copies: the memory is shared, so a function that writes into an
argument writes into the caller's tensor.

- ``convert_func(func, tensor_type, to_dlpack_func)`` / ``to_pytorch_func(func)``: an ember
  function made to accept another framework's tensors (the seed's TVM wrapper, with ember in
  TVM's place).
- ``to_ember_func(func, framework=...)``: a NumPy or PyTorch function made to accept and
  return ember tensors.

>>> import ember, numpy as np
>>> cumsum = to_ember_func(np.cumsum)
>>> cumsum(ember.tensor([1, 2, 3])).tolist()
[1, 3, 6]
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .._core.tensor import Tensor
from ..interop.dlpack import from_dlpack as _from_dlpack

__all__ = ["convert_func", "from_dlpack", "to_dlpack", "to_ember_func", "to_pytorch_func"]


def to_dlpack(tensor: Tensor):
    """A legacy ``"dltensor"`` capsule over ``tensor``'s memory (``torch.utils.dlpack.to_dlpack``).

    >>> import ember
    >>> capsule = to_dlpack(ember.tensor([1.0, 2.0]))
    >>> capsule  # doctest: +ELLIPSIS
    <capsule object "dltensor" at 0x...>
    >>> from_dlpack(capsule).tolist()
    [1.0, 2.0]
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    return tensor.__dlpack__()


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor over a DLPack capsule's memory, or over any object with ``__dlpack__``.

    >>> import numpy as np
    >>> from_dlpack(np.ones(2).__dlpack__()).tolist()
    [1.0, 1.0]
    """
    return _from_dlpack(ext_tensor)


def convert_func(func: Callable, tensor_type: type, to_dlpack_func: Callable, from_dlpack_func: Callable | None = None) -> Callable:
    """Make ``func``, which works on ember tensors, accept tensors of ``tensor_type``.

    Each argument of ``tensor_type`` becomes an ember tensor over the same memory, through
    ``ember.from_dlpack(to_dlpack_func(arg))``; other arguments pass unchanged. With
    ``from_dlpack_func``, ember tensors that ``func`` returns (alone, or in a tuple or list)
    are handed back through it, again without a copy.

    >>> import ember, numpy as np
    >>> def add_into(x, y, out):
    ...     out.copy_(x + y)
    >>> add_np = convert_func(add_into, np.ndarray, lambda a: a.__dlpack__())
    >>> out = np.zeros(2)
    >>> add_np(np.ones(2), np.ones(2), out)
    >>> out.tolist()
    [2.0, 2.0]
    """
    if not callable(func):
        raise TypeError(f"convert_func(): argument 'func' must be callable, not {type(func).__name__}")

    @functools.wraps(func)
    def wrapper(*args):
        args = tuple(_from_dlpack(to_dlpack_func(a)) if isinstance(a, tensor_type) else a for a in args)
        result = func(*args)
        return result if from_dlpack_func is None else _map_tensors(result, Tensor, from_dlpack_func)

    return wrapper


def to_pytorch_func(func: Callable) -> Callable:
    """Make an ember function accept (and return) PyTorch tensors, sharing their memory.

    >>> import ember, torch
    >>> def mm_into(x, y, z):
    ...     ember.matmul(x, y, out=z)
    >>> mm_torch = to_pytorch_func(mm_into)
    >>> z = torch.empty(2, 2)
    >>> mm_torch(torch.eye(2), torch.ones(2, 2), z)
    >>> z.tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    import torch
    import torch.utils.dlpack

    return convert_func(func, torch.Tensor, torch.utils.dlpack.to_dlpack, torch.from_dlpack)


def to_ember_func(func: Callable, *, framework: str = "numpy") -> Callable:
    """Make a NumPy or PyTorch function accept and return ember tensors, sharing their memory.

    Ember tensors among the arguments reach ``func`` as ``numpy.ndarray`` or ``torch.Tensor``
    views (``framework="numpy"`` or ``"torch"``); arrays it returns (alone, or in a tuple or
    list) come back as ember tensors over the same memory.

    >>> import ember, torch
    >>> relu = to_ember_func(torch.relu, framework="torch")
    >>> relu(ember.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    if not callable(func):
        raise TypeError(f"to_ember_func(): argument 'func' must be callable, not {type(func).__name__}")
    if framework == "numpy":
        import numpy as np

        # NumPy reductions return scalars, which have no __dlpack__: they come back as 0-d tensors.
        to_theirs, their_type, to_ours = np.from_dlpack, (np.ndarray, np.generic), _numpy_to_ember
    elif framework == "torch":
        import torch

        to_theirs, their_type, to_ours = torch.from_dlpack, torch.Tensor, _from_dlpack
    else:
        raise ValueError(f"to_ember_func(): argument 'framework' must be 'numpy' or 'torch', got {framework!r}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        args = tuple(to_theirs(a) if isinstance(a, Tensor) else a for a in args)
        kwargs = {k: to_theirs(v) if isinstance(v, Tensor) else v for k, v in kwargs.items()}
        return _map_tensors(func(*args, **kwargs), their_type, to_ours)

    return wrapper


def _numpy_to_ember(array) -> Tensor:
    import numpy as np

    return _from_dlpack(array if type(array) is np.ndarray else np.asarray(array))


def _map_tensors(result, kind: type, convert: Callable):
    if isinstance(result, kind):
        return convert(result)
    if type(result) in (tuple, list):
        return type(result)(convert(r) if isinstance(r, kind) else r for r in result)
    return result
