"""What the samplers share: the primitive factory (inputs=(), outputs drawn by the kernel from the
Generator it gets as an attribute), the registry of random primitives, and argument helpers.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.device import CPU
from ..._core.generator import Generator, default_generator
from ..._core.shape import check_size
from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ..creation import check_kinds, check_requires_grad

RANDOM_OPS: dict[str, OpExpr] = {}
FLOATING = ("real floating",)
FLOAT_OR_COMPLEX = ("real floating", "complex floating")


def sampler(name: str) -> OpExpr:
    """A primitive with no tensor inputs: attrs shape, dtype, device, generator and the
    distribution's parameters."""
    op = OpExpr(name, (), ("out",))

    @op.shape_rule
    def infer(attrs):
        return ((attrs["shape"], attrs["dtype"]),)

    RANDOM_OPS[name] = op
    return op




def generator_for(generator, device) -> Generator:
    g = default_generator if generator is None else generator
    if device.type not in ("meta", g.device.type):
        raise RuntimeError(f"Expected a '{device.type}' device type for generator but found '{g.device.type}'")
    return g


def sample(op: OpExpr, name: str, shape, dtype, device, generator, params: dict, requires_grad=False) -> Tensor:
    """A new tensor drawn by ``op``."""
    shape = tuple(shape)
    check_size(shape, name)
    device = CPU if device is None else device
    attrs = {"shape": shape, "dtype": dtype, "device": device, "generator": generator_for(generator, device), **params}
    return check_requires_grad(dispatch(op, (), attrs)[0], requires_grad)


def sample_into(op: OpExpr, out: Tensor, generator, params: dict) -> Tensor:
    """Draw into ``out`` in place."""
    device = out._storage._device
    attrs = {"shape": out._shape, "dtype": out._dtype, "device": device, "generator": generator_for(generator, device), **params}
    return dispatch(op, (), attrs, (out,))[0]


def float_dtype(op: str, dtype, kinds=FLOAT_OR_COMPLEX) -> _dt.DType:
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    check_kinds(op, "dtype", dtype, kinds)
    return dtype
