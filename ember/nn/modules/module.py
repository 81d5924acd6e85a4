"""``Module``: the base class of every layer; registers parameters, buffers and submodules.

>>> import ember.nn as nn
>>> class Tiny(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.fc = nn.Linear(2, 3)
...     def forward(self, x):
...         return self.fc(x)
>>> [name for name, _ in Tiny().named_parameters()]
['fc.weight', 'fc.bias']
>>> Tiny()
Tiny(
  (fc): Linear(in_features=2, out_features=3, bias=True)
)
"""

from __future__ import annotations

import contextlib
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from ..._core import dtype as dtypes
from ..._core.tensor import Tensor, tensor
from ...dispatch.grad_mode import no_grad as _no_grad
from ...dispatch.sbp import broadcast
from ..parameter import Parameter, _set_data
from ..utils.hooks import RemovableHandle


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + line for line in lines)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(obj: object) -> str:
    return type(obj).__module__ + "." + type(obj).__qualname__ if not isinstance(obj, Tensor) else "ember.Tensor"


class Module:
    """Base class for all neural network modules; subclasses define ``__init__`` and ``forward``.

    Assigning a ``Parameter``, a ``Module`` or (for a registered name) a buffer tensor as an attribute
    registers it, in assignment order, which fixes the order of ``parameters()`` and ``state_dict()``.
    """

    training: bool
    _version: int = 1

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments: {args}, {kwargs}")
        # object.__setattr__: our own __setattr__ consults these dicts, so they must exist first
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", OrderedDict())
        setattr_(self, "_buffers", OrderedDict())
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -- registration ------------------------------------------------------------------

    def _check_name(self, kind: str, name, table: str) -> None:
        if table not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[table]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a tensor that is state but not a parameter (e.g. BatchNorm's running mean).

        Non-persistent buffers are left out of ``state_dict``.

        >>> import ember.nn as nn
        >>> m = nn.Module()
        >>> m.register_buffer("steps", ember.zeros(1), persistent=False)
        >>> list(m.state_dict()), [n for n, _ in m.named_buffers()]
        ([], ['steps'])
        """
        self._check_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (ember Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a Parameter, or None for an optional one such as a missing bias)."""
        self._check_name("parameter", name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' (ember.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as the child ``name`` (``self.name = module`` does the same)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def forget(*tables) -> None:
            for table in tables:
                if name in table:
                    if isinstance(table, set):
                        table.discard(name)
                    else:
                        del table[name]

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            forget(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (ember.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            forget(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (ember.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (ember.Tensor or None expected)")
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        # only reached when normal lookup fails: registered state lives in the three tables
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            entries = d.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        attrs = list(dir(type(self))) + list(self.__dict__)
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    # -- traversal ----------------------------------------------------------------------

    def _named_members(self, get_members, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(name, parameter) pairs, depth first in registration order; shared parameters once."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """Every module in the tree (``self`` first, as ``prefix``), each once unless ``remove_duplicate=False``."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def get_submodule(self, target: str) -> Module:
        """The module at the dotted path ``target`` ('' is ``self``)."""
        module = self
        for item in target.split(".") if target else []:
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._parameters:
            raise AttributeError(f"{module._get_name()} has no parameter `{name}`")
        return module._parameters[name]

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._buffers:
            raise AttributeError(f"{module._get_name()} has no buffer `{name}`")
        return module._buffers[name]

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on ``self``; returns ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- conversion and modes -----------------------------------------------------------

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        for module in self.children():
            module._apply(fn)
        with _no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                # in place, like PyTorch's default: optimizers keep holding the same Parameter objects
                _set_data(param, fn(param))
                if param.grad is not None:
                    param.grad = fn(param.grad)
            for name, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[name] = fn(buf)
        return self

    def to_global(self, placement, sbp=None) -> Module:
        """Every parameter and buffer as a global tensor on ``placement``: ``sbp`` is one layout for
        all, a dict by dotted name (others broadcast) or ``fn(name, tensor) -> layout``; None is
        broadcast. See ``ember.distributed.tensor.modules``."""
        from ...distributed.tensor.modules import module_to_global

        return module_to_global(self, placement, broadcast if sbp is None else sbp)

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, ``to(tensor)``.

        Only floating point and complex tensors change dtype, as in PyTorch.

        >>> import ember.nn as nn
        >>> nn.Linear(2, 2).to(ember.float64).weight.dtype
        ember.float64
        """
        from ..._core.tensor import parse_to_args

        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        dtype, device, _ = parse_to_args(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            floating = t.dtype.is_floating_point or t.dtype.is_complex
            return t.to(device=device, dtype=dtype if floating and dtype is not None else None)

        return self._apply(convert)

    def _cast_floating(self, dtype) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.dtype.is_floating_point else t)

    def float(self) -> Module:
        return self._cast_floating(dtypes.float32)

    def double(self) -> Module:
        return self._cast_floating(dtypes.float64)

    def half(self) -> Module:
        return self._cast_floating(dtypes.float16)

    def bfloat16(self) -> Module:
        return self._cast_floating(dtypes.bfloat16)

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.to("cpu"))

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.to("cuda" if device is None else device))

    def train(self, mode: bool = True) -> Module:
        """Set training mode (affects Dropout, BatchNorm...) on this module and all submodules."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None (default) or to zeros in place."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad.zero_()

    def share_memory(self) -> Module:
        """Move parameters, their gradients and buffers into shared memory (Hogwild); returns ``self``.

        Each tensor keeps its identity and values: its storage moves, so optimizers and views
        holding it see the shared memory.
        """
        return self._apply(lambda t: t.share_memory_())

    # -- state dict ---------------------------------------------------------------------

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """An OrderedDict of every parameter and persistent buffer by dotted name (detached views).

        >>> import ember.nn as nn
        >>> list(nn.BatchNorm1d(3).state_dict())
        ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
        """
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args) :])[:3]
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs) -> None:
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items()) if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if isinstance(value, np.ndarray):  # a convenience for checkpoints converted with .numpy()
                value = tensor(value)
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected ember.Tensor or Tensor-like object from checkpoint '
                    f"but received {type(value)}"
                )
                continue
            if tuple(value.shape) != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                    f"the shape in current model is {param.shape}."
                )
                continue
            try:
                with _no_grad():
                    param.copy_(value)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are {param.shape} and whose '
                    f"dimensions in the checkpoint are {value.shape}, an exception occurred : {ex.args}."
                )
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    first = key[len(prefix) :].split(".", 1)[0]
                    if first not in self._modules and first not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        """Copy values from ``state_dict`` into this module's parameters and buffers (in place).

        With ``strict`` every key must match; the result lists missing and unexpected keys.

        >>> import ember.nn as nn
        >>> a, b = nn.Linear(2, 2), nn.Linear(2, 2)
        >>> b.load_state_dict(a.state_dict())
        <All keys matched successfully>
        >>> bool((a.weight == b.weight).all())
        True
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        state_dict = OrderedDict(state_dict)

        def load(module: Module, prefix: str) -> None:
            module._load_from_state_dict(state_dict, prefix, {}, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- hooks and calling --------------------------------------------------------------

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``) before ``forward``.

        It may return new args (a tuple, or a single value that gets wrapped), or (args, kwargs) with kwargs.
        """
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with ``with_kwargs``) after ``forward``.

        A non-None return value replaces the output.

        >>> import ember.nn as nn
        >>> m = nn.Identity()
        >>> h = m.register_forward_hook(lambda mod, args, out: out * 2)
        >>> m(ember.tensor(1.0)).item()
        2.0
        >>> h.remove(); m(ember.tensor(1.0)).item()
        1.0
        """
        handle = RemovableHandle(
            self._forward_hooks, extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called]
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` once the gradients w.r.t. the module's inputs are computed.

        ``grad_input``/``grad_output`` hold one entry per positional argument / output (None for a
        non-tensor or one that needs no gradient); a non-None return value replaces ``grad_input``.
        Works as PyTorch's: identity nodes around the module's tensor inputs and outputs carry it.

        >>> import ember.nn as nn
        >>> m = nn.Linear(2, 1)
        >>> h = m.register_full_backward_hook(lambda mod, gi, go: print([tuple(g.shape) for g in go]))
        >>> m(ember.ones(3, 2, requires_grad=True)).sum().backward()
        [(3, 1)]
        """
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the gradients w.r.t. the module's outputs are computed,
        before ``grad_input``; a non-None return value replaces ``grad_output``."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)  # no hooks: most calls, and ~1 us saved on each
        bw_hook = None
        if self._backward_hooks or self._backward_pre_hooks:
            from ...autograd.function import BackwardHook

            bw_hook = BackwardHook(self, list(self._backward_hooks.values()), list(self._backward_pre_hooks.values()))
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if bw_hook is not None:
            args = bw_hook.setup_input_hook(args)
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    with contextlib.suppress(Exception):
                        self._run_forward_hook(hook_id, hook, args, kwargs, None)
            raise
        for hook_id, hook in list(self._forward_hooks.items()):
            result = self._run_forward_hook(hook_id, hook, args, kwargs, output)
            if result is not None:
                output = result
        if bw_hook is not None:
            output = bw_hook.setup_output_hook(output)
        return output

    def _run_forward_hook(self, hook_id, hook, args, kwargs, output):
        if hook_id in self._forward_hooks_with_kwargs:
            return hook(self, args, kwargs, output)
        return hook(self, args, output)

    __call__ = _call_impl

    # -- printing -----------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr``; layers override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"
