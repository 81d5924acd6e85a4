"""TensorFlow 1's optimizers, each update rule as TensorFlow's training kernels compute it.

Each rule is written with the variable's and slots' assignments: an assignment's output is the
new value, so a rule that reads a slot after updating it (Adam's ``m``) reads the new one, as
the fused kernels (``ApplyAdam``, ``ApplyRMSProp``, ...) do.
"""

from __future__ import annotations

from ...ops import functional as F
from ..graph import get_default_graph
from .optimizer import Optimizer

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
]


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``."""

    def __init__(self, learning_rate, use_locking: bool = False, name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_dense(self, grad, var):
        return var.assign_sub(grad * self._hyper("learning_rate", var.dtype))


class MomentumOptimizer(Optimizer):
    """``accum = momentum * accum + grad``; ``var -= lr * accum``, or with Nesterov
    ``var -= lr * grad + lr * momentum * accum``. Slot ``"momentum"`` (``w/Momentum``)."""

    def __init__(
        self, learning_rate, momentum, use_locking: bool = False, name: str = "Momentum", use_nesterov: bool = False
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._momentum, self._use_nesterov = learning_rate, momentum, use_nesterov

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad, var):
        lr, momentum = self._hyper("learning_rate", var.dtype), self._hyper("momentum", var.dtype)
        accum = self.get_slot(var, "momentum")
        new_accum = accum.assign(accum * momentum + grad)
        if self._use_nesterov:
            return var.assign_sub(grad * lr + new_accum * momentum * lr)
        return var.assign_sub(new_accum * lr)


class AdamOptimizer(Optimizer):
    """Adam with the bias correction in the step size, ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``,
    and ``epsilon`` added to ``sqrt(v)``; slots ``"m"``, ``"v"`` (``w/Adam``, ``w/Adam_1``) and the
    powers ``beta1_power``, ``beta2_power``."""

    def __init__(
        self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking: bool = False, name: str = "Adam"
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _create_slots(self, var_list: list) -> None:
        first = min(var_list, key=lambda v: v.name)
        self._non_slot("beta1_power", _value(self._beta1), first)
        self._non_slot("beta2_power", _value(self._beta2), first)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _powers(self, var):
        graph = var.graph
        return self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph)

    def _get_beta_accumulators(self):
        """``(beta1_power, beta2_power)`` of the default graph (TensorFlow's private helper, which programs read)."""
        graph = get_default_graph()
        return self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph)

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        lr, beta1, beta2, eps = (self._hyper(n, dtype) for n in ("learning_rate", "beta1", "beta2", "epsilon"))
        b1p, b2p = (p if p.dtype is dtype else p.to(dtype) for p in self._powers(var))
        lr_t = lr * F.sqrt(1 - b2p) / (1 - b1p)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = m.assign(m + (grad - m) * (1 - beta1))
        v_t = v.assign(v + (grad * grad - v) * (1 - beta2))
        return var.assign_sub(m_t * lr_t / (F.sqrt(v_t) + eps))

    def _finish(self, update_ops: list, name_scope: str):
        graph = update_ops[0].graph
        b1p, b2p = self._powers(update_ops[0].inputs[0])
        with graph.control_dependencies(update_ops):
            updates = [b1p.assign(b1p * self._hyper("beta1", b1p.dtype)).op, b2p.assign(b2p * self._hyper("beta2", b2p.dtype)).op]
        return super()._finish(update_ops + updates, name_scope)


class AdagradOptimizer(Optimizer):
    """``accum += grad^2``; ``var -= lr * grad / sqrt(accum)``; slot ``"accumulator"`` starts at
    ``initial_accumulator_value``."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking: bool = False, name: str = "Adagrad") -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate, self._initial_accumulator_value = learning_rate, initial_accumulator_value

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._slot(v, "accumulator", self._name, self._initial_accumulator_value)

    def _apply_dense(self, grad, var):
        accum = self.get_slot(var, "accumulator")
        new_accum = accum.assign(accum + grad * grad)
        return var.assign_sub(grad * self._hyper("learning_rate", var.dtype) / F.sqrt(new_accum))


class ProximalAdagradOptimizer(AdagradOptimizer):
    """Adagrad's step followed by the proximal step of the l1 and l2 penalties."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking: bool = False, name: str = "ProximalAdagrad") -> None:  # fmt: skip
        super().__init__(learning_rate, initial_accumulator_value, use_locking, name)
        self._l1_regularization_strength, self._l2_regularization_strength = (
            l1_regularization_strength,
            l2_regularization_strength,
        )

    def _apply_dense(self, grad, var):
        accum = self.get_slot(var, "accumulator")
        new_accum = accum.assign(accum + grad * grad)
        lr = self._hyper("learning_rate", var.dtype) / F.sqrt(new_accum)
        return var.assign(_proximal(self, var - grad * lr, lr, var.dtype))


class ProximalGradientDescentOptimizer(Optimizer):
    """``var -= lr * grad``, then the proximal step of the l1 (soft threshold) and l2 (shrink) penalties."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent") -> None:  # fmt: skip
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength, self._l2_regularization_strength = (
            l1_regularization_strength,
            l2_regularization_strength,
        )

    def _apply_dense(self, grad, var):
        lr = self._hyper("learning_rate", var.dtype)
        return var.assign(_proximal(self, var - grad * lr, lr, var.dtype))


def _proximal(opt, prox, lr, dtype):
    """TensorFlow's proximal step: soft-threshold by ``lr * l1`` (when l1 > 0), shrink by ``1 + lr * l2``."""
    l1, l2 = opt._hyper("l1_regularization_strength", dtype), opt._hyper("l2_regularization_strength", dtype)
    if _value(opt._l1_regularization_strength) > 0:
        prox = F.sign(prox) * F.clamp_min(F.abs(prox) - lr * l1, 0.0)
    return prox / (1 + lr * l2)


class RMSPropOptimizer(Optimizer):
    """``ms += (grad^2 - ms) * (1 - decay)``; ``mom = momentum * mom + lr * grad / sqrt(ms + epsilon)``;
    ``var -= mom``. Centered: ``mg += (grad - mg) * (1 - decay)`` and ``ms - mg^2`` under the root.
    Slots ``"rms"`` (starting at ones), ``"mg"`` (centered) and ``"momentum"``."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp") -> None:  # fmt: skip
        super().__init__(use_locking, name)
        self._learning_rate, self._decay, self._momentum, self._epsilon, self._centered = (
            learning_rate,
            decay,
            momentum,
            epsilon,
            centered,
        )

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._slot(v, "rms", self._name, 1.0)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        lr, rho, momentum, eps = (self._hyper(n, dtype) for n in ("learning_rate", "decay", "momentum", "epsilon"))
        ms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        ms_t = ms.assign(ms + (grad * grad - ms) * (1 - rho))
        denominator = ms_t + eps
        if self._centered:
            mg = self.get_slot(var, "mg")
            mg_t = mg.assign(mg + (grad - mg) * (1 - rho))
            denominator = ms_t - mg_t * mg_t + eps
        mom_t = mom.assign(mom * momentum + lr * grad / F.sqrt(denominator))
        return var.assign_sub(mom_t)


class AdadeltaOptimizer(Optimizer):
    """``accum = rho * accum + (1 - rho) * grad^2``; ``update = sqrt(accum_update + eps) / sqrt(accum + eps) * grad``;
    ``var -= lr * update``; ``accum_update = rho * accum_update + (1 - rho) * update^2``."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-08, use_locking: bool = False, name: str = "Adadelta") -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        lr, rho, eps = (self._hyper(n, dtype) for n in ("learning_rate", "rho", "epsilon"))
        accum, accum_update = self.get_slot(var, "accum"), self.get_slot(var, "accum_update")
        accum_t = accum.assign(accum * rho + grad * grad * (1 - rho))
        update = F.sqrt(accum_update + eps) / F.sqrt(accum_t + eps) * grad
        # the variable's step reads accum_update before its own assignment below, as the kernel does
        step = var.assign_sub(update * lr)
        with var.graph.control_dependencies([step]):
            return accum_update.assign(accum_update * rho + update * update * (1 - rho))


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal (McMahan et al.), as TensorFlow's ``ApplyFtrl``/``ApplyFtrlV2``; slots
    ``"accum"`` (starting at ``initial_accumulator_value``) and ``"linear"``."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking: bool = False, name: str = "Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0, beta=None) -> None:  # fmt: skip
        super().__init__(use_locking, name)
        checks = [
            (initial_accumulator_value < 0.0, f"initial_accumulator_value {initial_accumulator_value} needs to be positive or zero"),
            (learning_rate_power > 0.0, f"learning_rate_power {learning_rate_power} needs to be negative or zero"),
            (l1_regularization_strength < 0.0, f"l1_regularization_strength {l1_regularization_strength} needs to be positive or zero"),
            (l2_regularization_strength < 0.0, f"l2_regularization_strength {l2_regularization_strength} needs to be positive or zero"),
            (l2_shrinkage_regularization_strength < 0.0,
             f"l2_shrinkage_regularization_strength {l2_shrinkage_regularization_strength} needs to be positive or zero"),
        ]  # fmt: skip
        for failed, message in checks:
            if failed:
                raise ValueError(message)
        self._learning_rate, self._learning_rate_power = learning_rate, learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength, self._l2_regularization_strength = (
            l1_regularization_strength,
            l2_regularization_strength,
        )
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._slot(v, "accum", self._accum_name or self._name, self._initial_accumulator_value)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        lr, power = self._hyper("learning_rate", dtype), self._hyper("learning_rate_power", dtype)
        l1 = self._hyper("l1_regularization_strength", dtype)
        # TensorFlow folds beta into l2: l2 + beta / (2 lr)
        l2 = self._hyper("l2_regularization_strength", dtype) + self._hyper("beta", dtype) / (2 * lr)
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        shrunk = grad
        if _value(self._l2_shrinkage_regularization_strength) > 0:
            shrunk = grad + 2 * self._hyper("l2_shrinkage_regularization_strength", dtype) * var
        new_accum = accum + grad * grad
        if _value(self._learning_rate_power) == -0.5:
            sigma = (F.sqrt(new_accum) - F.sqrt(accum)) / lr
            quadratic = F.sqrt(new_accum) / lr + 2 * l2
        else:
            sigma = (F.pow(new_accum, -power) - F.pow(accum, -power)) / lr
            quadratic = F.pow(new_accum, -power) / lr + 2 * l2
        linear_t = linear.assign(linear + shrunk - sigma * var)
        new_var = F.where(F.abs(linear_t) > l1, (F.sign(linear_t) * l1 - linear_t) / quadratic, F.zeros_like(linear_t))
        step = var.assign(new_var)
        with var.graph.control_dependencies([step]):
            return accum.assign(new_accum)


def _value(x) -> float:
    """A hyperparameter's Python value (rules branch on some at build time, as TensorFlow's do)."""
    return float(x() if callable(x) else x)
