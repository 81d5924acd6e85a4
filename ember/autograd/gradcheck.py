"""gradcheck and gradgradcheck: autograd's gradients against finite differences (float64).

>>> import ember
>>> x = ember.tensor([0.5, -1.0], dtype=ember.float64, requires_grad=True)
>>> gradcheck(lambda t: (t * t).exp(), (x,))
True
"""

from __future__ import annotations

import numpy as np

from .._core.tensor import Tensor
from .engine import grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _differentiable_outputs(outputs: tuple) -> list:
    return [o for o in outputs if isinstance(o, Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _numerical_jacobian(fn, inputs: tuple, i: int, eps: float) -> list[np.ndarray]:
    """d outputs / d inputs[i] by central differences, one matrix (out numel x in numel) per output."""
    x = inputs[i]
    flat = x.detach().contiguous().reshape(-1)
    columns = []
    for j in range(flat.numel()):
        original = flat[j].item()
        perturbed = []
        for delta in (eps, -eps):
            values = flat.clone()
            values[j] = original + delta
            args = list(inputs)
            # the perturbed input still requires grad: fn may differentiate (gradgradcheck)
            args[i] = values.reshape(x.shape).requires_grad_(x.requires_grad)
            outs = _differentiable_outputs(_as_tuple(fn(*args)))
            perturbed.append([o.detach().numpy().astype(np.float64).reshape(-1) for o in outs])
        columns.append([(a - b) / (2 * eps) for a, b in zip(perturbed[0], perturbed[1], strict=True)])
    n_out = len(columns[0]) if columns else len(_differentiable_outputs(_as_tuple(fn(*inputs))))
    return [np.stack([col[k] for col in columns], axis=1) if columns else np.zeros((0, 0)) for k in range(n_out)]


def _analytical_jacobian(outputs: list, inputs: tuple, i: int) -> list[np.ndarray]:
    from .._core.tensor import tensor

    x = inputs[i]
    result = []
    for o in outputs:
        rows = []
        if not o.requires_grad:  # an output that does not depend on any input: a zero Jacobian
            result.append(np.zeros((o.numel(), x.numel())))
            continue
        for k in range(o.numel()):
            seed = np.zeros(o.numel(), dtype=o.dtype.numpy_dtype)
            seed[k] = 1
            (g,) = grad(o, (x,), grad_outputs=tensor(seed.reshape(o.shape)), retain_graph=True, allow_unused=True)
            rows.append(np.zeros(x.numel()) if g is None else g.detach().numpy().astype(np.float64).reshape(-1))
        result.append(np.stack(rows) if rows else np.zeros((0, x.numel())))
    return result


def gradcheck(fn, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True) -> bool:
    """Compare autograd's Jacobians of ``fn`` with central differences for every input that
    requires grad (use float64 inputs). Raises GradcheckError naming the first mismatch."""
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(fn(*inputs)))
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor) or not x.requires_grad:
            continue
        if x.dtype.name != "float64":
            raise GradcheckError(f"gradcheck(): input {i} is {x.dtype}; finite differences need float64 inputs")
        numerical = _numerical_jacobian(fn, inputs, i, eps)
        analytical = _analytical_jacobian(outputs, inputs, i)
        for k, (a, n) in enumerate(zip(analytical, numerical, strict=True)):
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\nnumerical:\n{n}\nanalytical:\n{a}"
                )
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True) -> bool:
    """gradcheck of the first derivative: second-order gradients through ``create_graph=True``."""
    from .._core.tensor import tensor

    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(fn(*inputs)))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    wrt = tuple(x for x in inputs if isinstance(x, Tensor) and x.requires_grad)

    def first_derivative(*args):
        outs = _differentiable_outputs(_as_tuple(fn(*args)))
        targets = tuple(a for a in args if isinstance(a, Tensor) and a.requires_grad)
        grads = grad(outs, targets, grad_outputs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception) and bool(wrt)
