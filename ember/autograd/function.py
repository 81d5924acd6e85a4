"""Custom autograd functions: PyTorch's ``torch.autograd.Function`` API.

Subclass ``Function`` with a static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``
and call ``MyFn.apply(*args)``. ``forward`` runs under ``no_grad``; when grad mode is on and a
tensor input requires grad, one node (a ``Node`` subclass named ``<ClassName>Backward``, which
is also the ``ctx`` the two methods see) is recorded: its ``next_functions`` follow the tensor
inputs in order, and the differentiable outputs get it as ``grad_fn``.

>>> import ember
>>> class Exp(Function):
...     @staticmethod
...     def forward(ctx, x):
...         y = x.exp()
...         ctx.save_for_backward(y)
...         return y
...     @staticmethod
...     def backward(ctx, g):
...         (y,) = ctx.saved_tensors
...         return g * y
>>> x = ember.tensor([0.0, 1.0], requires_grad=True)
>>> y = Exp.apply(x)
>>> y.grad_fn
<ExpBackward>
>>> y.sum().backward()
>>> x.grad
tensor([1.0000, 2.7183])
"""

from __future__ import annotations

import functools

from .._core.tensor import Tensor
from ..dispatch import grad_mode
from .anomaly_mode import STATE as _ANOMALY, record_forward_stack
from .interpreter import OUTPUT_NR, _edge
from .nodes import FREED, Node, save_tensor, unpack_saved

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "once_differentiable"]

_state = grad_mode.state


def _differentiable_dtype(t: Tensor) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


class FunctionCtx:
    """What ``forward`` and ``backward`` get as ``ctx``: saving tensors, marking outputs, and any
    attribute you set on it (``ctx.alpha = 2``)."""

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (inputs, outputs or None) for ``backward``; in-place writes after this are errors."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type {type(t).__name__}")
        self.to_save = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare inputs that ``forward`` modified in place (they must be returned as outputs)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that get no gradient (indices, masks); backward still receives a slot for them."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With True (the default) a None gradient of an output reaches ``backward`` as zeros."""
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        saved = self.__dict__.get("_saved")
        if saved is _RELEASED:
            raise RuntimeError(FREED)
        if saved is None:  # still inside forward
            return tuple(self.__dict__.get("to_save", ()))
        return unpack_saved(self, saved)

    saved_variables = saved_tensors


_RELEASED = object()


class BackwardCFunction(Node, FunctionCtx):
    """The recorded node of one ``Function.apply`` call (and its ``ctx``)."""

    _forward_cls: type | None = None

    def __init__(self) -> None:
        super().__init__(())
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved = None
        self.output_meta = ()  # (shape, dtype) per output, None for a non-tensor one (the engine sizes buffers by it)
        self._input_meta = ()  # (shape, dtype) per tensor input
        self._tensor_positions = ()
        self._n_args = 0

    def release(self) -> None:
        """Drop the saved tensors (a later backward through this node raises)."""
        self._saved = _RELEASED

    def apply(self, grads: tuple) -> tuple:
        cls = self._forward_cls
        grads = list(grads)[: len(self.output_meta)]
        grads += [None] * (len(self.output_meta) - len(grads))
        if self.materialize_grads:
            from ..ops import functional

            grads = [
                functional.zeros(meta[0], dtype=meta[1]) if g is None and meta is not None else g
                for g, meta in zip(grads, self.output_meta, strict=True)
            ]
        result = cls.backward(self, *grads)
        return self._validate(result if isinstance(result, tuple) else (result,))

    def _validate(self, result: tuple) -> tuple:
        name, n_args = self.name(), self._n_args
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise RuntimeError(
                    f"function {name} returned an incorrect number of gradients (expected {n_args}, got {len(result)})"
                )
        positions = set(self._tensor_positions)
        for i, g in enumerate(result):
            if i not in positions and g is not None:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position {i + 1}, "
                    "but the corresponding forward input was not a Variable"
                )
        out = []
        for k, pos in enumerate(self._tensor_positions):
            g = result[pos]
            edge = self.next_functions[k][0] if k < len(self.next_functions) else None
            if g is None or edge is None:  # an input that needs no gradient: passed on unchecked (hooks see it), never used
                out.append(g)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"function {name} returned a gradient of type {type(g).__name__} at position {pos + 1}, expected a Tensor or None"
                )
            shape, dtype = self._input_meta[k]
            if g._shape != tuple(shape):
                if not _expandable(shape, g._shape):
                    raise RuntimeError(
                        f"Function {name} returned an invalid gradient at index {k} - got {list(g._shape)} "
                        f"but expected shape compatible with {list(shape)}"
                    )
                from ..ops.common import sum_to

                g = sum_to(g, tuple(shape))
            if g._dtype is not dtype and _differentiable_dtype(g) and (dtype.is_floating_point or dtype.is_complex):
                g = g.to(dtype)
            out.append(g)
        return tuple(out)


def _expandable(shape, target) -> bool:
    """Whether ``shape`` broadcasts to ``target``."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(tuple(shape)), reversed(tuple(target)), strict=False))


class Function:
    """Base class of custom differentiable operations; use ``apply``, never an instance.

    ``forward(ctx, *args, **kwargs)`` computes the outputs (a tensor or a tuple), ``backward(ctx,
    *grad_outputs)`` returns one gradient (or None) per positional argument of ``forward``.
    Alternatively ``forward(*args)`` without ctx plus ``setup_context(ctx, inputs, output)``.
    """

    _backward_cls: type | None = None

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(
            cls.__name__ + "Backward", (BackwardCFunction,), {"_forward_cls": cls, "__module__": cls.__module__}
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. (Call it as MyFn.apply(...).)"
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD."
        )

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls._backward_cls is None:
            raise RuntimeError("Function.apply is called on a subclass of Function, not on Function itself")
        ctx = cls._backward_cls()
        if _ANOMALY[0]:
            record_forward_stack(ctx)
        positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        tensors = tuple(args[i] for i in positions)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx._tensor_positions = positions
        ctx._n_args = len(args)
        ctx._input_meta = tuple((t._shape, t._dtype) for t in tensors)
        executable = _state.enabled and any(t._requires_grad for t in tensors)
        if executable:
            ctx.next_functions = tuple(_edge(t) for t in tensors)  # before forward: a dirty input's history changes
        custom_setup = cls.setup_context is not Function.setup_context
        previous = _state.enabled
        _state.enabled = False
        try:
            if custom_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            _state.enabled = previous
        return _wrap_outputs(ctx, tensors, outputs, executable)


def _wrap_outputs(ctx: BackwardCFunction, tensors: tuple, outputs, executable: bool):
    is_tuple = isinstance(outputs, tuple)
    outs = outputs if is_tuple else (outputs,)
    dirty = tuple(ctx.dirty_tensors)
    non_diff = {id(t) for t in ctx.non_differentiable}
    input_ids = {id(t) for t in tensors}
    for t in dirty:
        if not any(t is o for o in outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as output. "
                "The inputs that are modified inplace must all be outputs of the Function."
            )
    multi = len(outs) > 1
    result, meta = [], []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            result.append(o)
            meta.append(None)
            continue
        meta.append((o._shape, o._dtype))
        if not executable:
            result.append(o)
            continue
        is_dirty = any(o is t for t in dirty)
        if is_dirty:
            if o.grad_fn is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            if o._base is not None and o._base._requires_grad:
                raise NotImplementedError(
                    f"{ctx.name()}: an in-place write into a view of a tensor that requires grad is not differentiated yet; "
                    "write into a clone instead"
                )
        elif id(o) in input_ids:
            if id(o) in non_diff:
                result.append(o)
                continue
            o = o._view(o._shape, o._stride, o._offset)  # an alias, like view_as: the input keeps its own history
        if id(outs[i]) not in non_diff and _differentiable_dtype(o):
            o.grad_fn = ctx
            o._requires_grad = True
            if multi or is_dirty:
                OUTPUT_NR[o] = i
        elif is_dirty:  # overwritten by something without a derivative: no history left
            o.grad_fn = None
            o._requires_grad = False
        result.append(o)
    ctx.output_meta = tuple(meta)
    saved = tuple(None if t is None else save_tensor(t) for t in ctx.to_save)
    for item in saved:
        if item is not None:
            item[0]._storage._watched = True  # in-place writes to it note their file:line
    ctx._saved = saved
    ctx.to_save = ()  # the saved pairs hold them now (and release() lets them go)
    return tuple(result) if is_tuple else result[0]


def once_differentiable(backward):
    """Decorate a ``backward`` that is not itself differentiable: it runs under ``no_grad``, and a
    double backward through it raises instead of silently giving wrong results."""

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with grad_mode.no_grad():
            result = backward(ctx, *grads)
        needs = any(isinstance(g, Tensor) and g._requires_grad for g in grads) or any(ctx.needs_input_grad)
        if not _state.enabled or not needs:
            return result
        results = result if isinstance(result, tuple) else (result,)
        wrapped = tuple(_delayed_error(r) if isinstance(r, Tensor) and _differentiable_dtype(r) else r for r in results)
        return wrapped if isinstance(result, tuple) else wrapped[0]

    return wrapper


class DelayedError(Node):
    """A node that raises when backward reaches it (the gradient of a once-differentiable backward)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        super().__init__(())
        self.message = message

    def apply(self, grads: tuple) -> tuple:
        raise RuntimeError(self.message)


def _delayed_error(t: Tensor) -> Tensor:
    out = t._view(t._shape, t._stride, t._offset)
    out.grad_fn = DelayedError("trying to differentiate twice a function that was marked with @once_differentiable")
    out._requires_grad = True
    return out


# -- module backward hooks (nn.Module.register_full_backward_hook) -------------------------


class BackwardHookFunction(Function):
    """An identity on a module's tensor inputs or outputs, whose node carries the module's hooks."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a._requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """PyTorch's ``torch.utils.hooks.BackwardHook``: one per call of a module that has full
    backward (pre-)hooks. The outputs' identity node captures ``grad_output`` (and runs the pre
    hooks); the inputs' identity node calls ``hook(module, grad_input, grad_output)``."""

    def __init__(self, module, user_hooks: list, user_pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size: int) -> tuple:
        res = [None] * size
        for idx, val in zip(indices, values, strict=False):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values) -> tuple:
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn: Node) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs (double backward)
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
                if len(out) != len(res):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got {len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args: tuple):
        tensors_idx, tensors = [], []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg._requires_grad
        if not (requires_grad and _state.enabled):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        grad_fns = [t.grad_fn for t in new_tensors if isinstance(t.grad_fn, BackwardHookFunction._backward_cls)]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors, strict=True):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args: tuple) -> tuple:
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, outputs):
        def fn(grad_fn: Node) -> None:
            def hook(grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    new = user_pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(
                            f"Backward pre hook returned an invalid number of grad_output, got {len(new)}, but expected {len(self.grad_outputs)}"
                        )
                    self.grad_outputs = new
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:  # no input requires grad: the hooks run here, with None grad_input
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient should always return None or None for all gradients."
                            )
                    self.grad_outputs = None
                return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

            grad_fn.register_prehook(hook)

        is_tuple = isinstance(outputs, tuple)
        args = outputs if is_tuple else (outputs,)
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]
