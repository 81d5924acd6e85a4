"""The optimizer base class: parameter groups, per-parameter state, state dicts.

Mirrors ``torch.optim.Optimizer``: ``param_groups`` is a list of dicts (each with ``params`` and
every hyper-parameter), ``state`` maps a parameter tensor to its dict of buffers, and
``state_dict()`` swaps tensors for integer ids so a checkpoint is independent of object identity.

>>> p = ember.tensor([1.0, 2.0]).requires_grad_()
>>> opt = ember.optim.SGD([p], lr=0.1)
>>> p.grad = ember.tensor([1.0, 1.0])
>>> opt.step()
>>> p
tensor([0.9000, 1.9000], requires_grad=True)
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from .._core.tensor import Tensor
from ..dispatch.grad_mode import enable_grad, no_grad

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyper-parameter that every param group must set (no usable default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _use_no_grad(step: Callable) -> Callable:
    """Decorator for ``step``: evaluate the closure with grad enabled, run the update without it."""

    @functools.wraps(step)
    def wrapper(self: Optimizer, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with enable_grad():  # the closure recomputes the loss and calls backward
                loss = closure()
        with no_grad():  # an update is never recorded
            step(self)
        return loss

    return wrapper


def _typename(obj: object) -> str:
    return type(obj).__module__ + "." + type(obj).__qualname__


def _is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)


class Optimizer:
    """Base class of all optimizers.

    ``params`` is an iterable of tensors, or of dicts (param groups) with a ``params`` entry and
    per-group overrides of ``defaults``.

    >>> a, b = ember.zeros(2), ember.zeros(3)
    >>> opt = ember.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    >>> [g["lr"] for g in opt.param_groups]
    [0.1, 0.5]
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if _is_tensor(params):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got " + _typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # -- pickling / repr -------------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # -- param groups ----------------------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a param group, filling unset hyper-parameters from ``defaults``.

        >>> opt = ember.optim.SGD([ember.zeros(1)], lr=0.1)
        >>> opt.add_param_group({"params": ember.zeros(2), "momentum": 0.9})
        >>> len(opt.param_groups), opt.param_groups[1]["lr"], opt.param_groups[1]["momentum"]
        (2, 0.1, 0.9)
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if _is_tensor(params):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        # (name, tensor) pairs, as from named_parameters(), keep their names for the state dict
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not _is_tensor(param):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not getattr(param, "is_leaf", True) and not getattr(param, "retains_grad", False):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        # tensors hash by identity, so a set finds the same tensor listed twice
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set: set[Tensor] = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    f"all optimizer param groups should be with/without names. cannot add param group {current} to the optimizer"
                )
        if not param_set.isdisjoint(param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    # -- gradients and steps ---------------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` (default) or to zeros in place.

        >>> p = ember.zeros(2)
        >>> p.grad = ember.ones(2)
        >>> opt = ember.optim.SGD([p])
        >>> opt.zero_grad(set_to_none=False); p.grad
        tensor([0., 0.])
        >>> opt.zero_grad(); p.grad is None
        True
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    # a grad produced by a create_graph backward must not keep its history
                    if getattr(p.grad, "grad_fn", None) is not None:
                        p.grad = p.grad.detach()
                    elif p.grad.requires_grad:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; subclasses implement it."""
        raise NotImplementedError

    # -- state dicts -----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The state as ``{"state": {id: {...}}, "param_groups": [{..., "params": [ids]}]}``.

        Ids number the parameters in group order, as PyTorch does; the tensors are not copied.

        >>> p = ember.zeros(2)
        >>> opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
        >>> p.grad = ember.ones(2); opt.step()
        >>> sd = opt.state_dict()
        >>> list(sd["state"]), sd["param_groups"][0]["params"], sorted(sd["state"][0])
        ([0], [0], ['momentum_buffer'])
        """
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index) if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if _is_tensor(k) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()``: groups are matched by position, state tensors are copied.

        Floating-point state is cast to its parameter's dtype (except ``step``), like PyTorch.
        """
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])

        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")

        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )

        def cast(param: Tensor, value: Any, key: Any = None) -> Any:
            # a deep copy, so that the loaded optimizer never aliases the checkpoint's buffers
            if _is_tensor(value):
                if key != "step" and value.dtype.is_floating_point and param.dtype.is_floating_point:
                    return value.to(param.dtype).clone()
                return value.clone()
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})
