"""Where the microseconds of an eager ``a + b`` (100 float32) go, layer by layer.

Each implementation enters the road one layer deeper than the one before: the ``+`` operator
(generated ``Tensor.__add__``), the public ``ember.add`` (generated, with argument checks), the
``Add`` functor, ``dispatch`` (the thread's interpreter: autograd around eager), the eager
interpreter's ``apply`` (device check, cached inference, output allocation, launch), a fresh
output alone (``new_output``: allocator, storage, tensor), the CPU kernel on ready NumPy arrays,
and NumPy's ufunc into a preallocated output. The difference between two adjacent rows is what
that layer costs; PyTorch's ``a + b`` is printed beside for scale. The last case does the same
for a recorded op (an input that requires grad), whose extra cost is the autograd node.
"""

import numpy as np
from harness import Compare, case, torch

import ember
from ember.dispatch import interpreter as _interp
from ember.ops.elementwise import arithmetic as _arith
from ember.ops.functor import FUNCTORS

N = 100


def _inputs():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    return a, b, ember.from_numpy(a), ember.from_numpy(b)


@case(
    "overhead/a + b 100 f32, by layer (each row one layer deeper)",
    compare=(Compare("operator + vs torch", "1 a + b", "torch"),),
    note="medians read top to bottom: a row minus the row below it is what that layer costs",
)
def _add_by_layer():
    a, b, ea, eb = _inputs()
    op = _arith._add
    functor = FUNCTORS["Add"]
    eager = _interp.EAGER
    inputs = (ea, eb)
    spec = eager.infer(op, inputs, _interp.NO_ATTRS)[0]
    device = ea.device
    kernel = op.kernels["cpu"]
    out = np.empty(N, np.float32)
    outs, ins = (out,), (a, b)
    no_attrs = _interp.NO_ATTRS
    impls = {
        "1 a + b": lambda: ea + eb,
        "2 ember.add": lambda: ember.add(ea, eb),
        "3 Add functor": lambda: functor(ea, eb, 1, None),
        "4 dispatch": lambda: _interp.dispatch(op, inputs),
        "5 eager apply": lambda: eager.apply(op, inputs, no_attrs),
        "6 new_output": lambda: _interp.new_output(spec, device),
        "7 kernel": lambda: kernel(outs, ins, no_attrs),
        "8 np.add(out=)": lambda: np.add(a, b, out=out),
    }
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        impls["torch"] = lambda: ta + tb
    return impls


@case(
    "overhead/a * b 100 f32, recorded (requires grad) vs plain",
    compare=(Compare("recorded - plain, as recorded/plain", "ember[recorded]", "ember"),),
    note="the difference of the two medians is what autograd adds per recorded op",
)
def _recorded():
    a, b, ea, eb = _inputs()
    ra = ember.from_numpy(a.copy()).requires_grad_(True)
    impls = {"ember": lambda: ea * eb, "ember[recorded]": lambda: ra * eb}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        rta = torch.from_numpy(a.copy()).requires_grad_(True)
        impls["torch"] = lambda: ta * tb
        impls["torch[recorded]"] = lambda: rta * tb
    return impls
