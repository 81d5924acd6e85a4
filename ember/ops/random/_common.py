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
from ...dispatch.sbp import broadcast
from ..creation import check_kinds, check_requires_grad, global_factory

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
    check_size(shape, name, 1 if dtype is None else dtype.itemsize)
    device = CPU if device is None else device
    attrs = {"shape": shape, "dtype": dtype, "device": device, "generator": generator_for(generator, device), **params}
    return check_requires_grad(dispatch(op, (), attrs)[0], requires_grad)


def global_sample(op: OpExpr, name: str, shape, dtype, device, generator, params: dict, requires_grad, placement, sbp) -> Tensor:
    """The global form: every process draws the whole logical tensor, as the local factory would
    (so the stream stays in step on every rank and the values match the local factory's for the
    same seed, whatever the layout), and each rank keeps its piece."""
    whole = sample(op, name, shape, dtype, device, generator, params)
    return global_factory(name, placement, sbp, whole._shape, dtype, requires_grad, whole=whole)


def global_sample_like(op: OpExpr, name: str, input: Tensor, dtype, generator, params: dict, requires_grad) -> Tensor:
    """A random ``*_like`` of a global tensor: its placement and layout (a partial entry becomes
    broadcast), the local factory's values."""
    sbp = tuple(broadcast if e.is_partial else e for e in input._sbp)
    return global_sample(op, name, input._shape, dtype, None, generator, params, requires_grad, input._placement, sbp)


def sample_into(op: OpExpr, out: Tensor, generator, params: dict) -> Tensor:
    """Draw into ``out`` in place."""
    device = out._storage._device
    attrs = {"shape": out._shape, "dtype": out._dtype, "device": device, "generator": generator_for(generator, device), **params}
    return dispatch(op, (), attrs, (out,))[0]


def float_dtype(op: str, dtype, kinds=FLOAT_OR_COMPLEX) -> _dt.DType:
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    check_kinds(op, "dtype", dtype, kinds)
    return dtype
