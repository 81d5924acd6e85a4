"""``Parameter``: a Tensor that a ``Module`` registers as learnable state.

>>> import ember.nn as nn
>>> p = nn.Parameter(ember.zeros(2))
>>> p
Parameter containing:
tensor([0., 0.], requires_grad=True)
>>> isinstance(p, ember.Tensor), p.requires_grad
(True, True)
"""

from __future__ import annotations

from .._core.device import CPU
from .._core.dtype import get_default_dtype
from .._core.tensor import Tensor, empty_tensor, make_tensor

# Every slot that describes which memory a tensor views; copying them makes a second tensor object
# over the same storage (what ``detach`` gives, but with the Parameter class).
_LAYOUT_SLOTS = ("_storage", "_offset", "_shape", "_stride", "_dtype", "_base")


def _set_data(dst: Tensor, src: Tensor) -> None:
    """Point ``dst`` at ``src``'s memory in place, like PyTorch's ``param.data = src``.

    Keeps ``dst``'s identity (optimizers and hooks hold it) while changing dtype, device or storage.
    """
    for slot in _LAYOUT_SLOTS:
        object.__setattr__(dst, slot, getattr(src, slot))
    dst._np_src = None  # the cached NumPy view belongs to the old storage


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigning one to a ``Module`` attribute registers it.

    ``Parameter(data)`` shares ``data``'s storage (no copy); ``requires_grad`` defaults to True and
    may only be True for floating or complex dtypes.

    >>> import ember.nn as nn
    >>> t = ember.ones(3)
    >>> p = nn.Parameter(t, requires_grad=False)
    >>> p.data_ptr() == t.data_ptr(), p.requires_grad
    (True, False)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty_tensor((0,), get_default_dtype(), CPU)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): expected a Tensor as data, got {type(data).__name__}")
        out = object.__new__(cls)
        view = data.detach()
        for slot in _LAYOUT_SLOTS:
            object.__setattr__(out, slot, getattr(view, slot))
        out._np_src = None
        out._requires_grad = False
        out.grad = None
        out.grad_fn = None
        out.requires_grad = requires_grad  # the property checks the dtype
        return out

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol: int):
        plain = make_tensor(self._storage, self._offset, self._shape, self._stride, self._dtype)
        return (_rebuild_parameter, (plain, self._requires_grad))

    def __copy__(self) -> Parameter:
        return Parameter(self, self._requires_grad)

    def __deepcopy__(self, memo: dict) -> Parameter:
        copied = memo.get(id(self))
        if copied is None:
            storage = self._storage.__deepcopy__(memo)
            plain = make_tensor(storage, self._offset, self._shape, self._stride, self._dtype)
            copied = Parameter(plain, self._requires_grad)
            if self.grad is not None:
                copied.grad = self.grad.__deepcopy__(memo)
            memo[id(self)] = copied
        return copied


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


def is_lazy(param: object) -> bool:
    """ember has no lazy modules; kept for PyTorch API parity.

    >>> is_lazy(Parameter(ember.zeros(1)))
    False
    """
    return False
