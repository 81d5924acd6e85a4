"""ReduceOp and what each reduction means for each dtype.

PyTorch's rules: complex tensors reduce only by SUM and AVG (MIN/MAX have no order,
the bitwise ops no meaning); the bitwise ops need integers or bool; AVG needs a non-bool
dtype. Booleans reduce as logical ops (SUM and MAX are OR, PRODUCT and MIN are AND), as
PyTorch's NCCL backend does. MPI does not know the half types, so float16 and bfloat16 are
widened to float32, reduced, and rounded back once (exact for two ranks, and never worse than
rounding at every step).

>>> ReduceOp.SUM, ReduceOp.AVG.name
(<RedOpType.SUM: 0>, 'AVG')
"""

from __future__ import annotations

import enum

from .._core import dtype as _dt

__all__ = ["ReduceOp", "RedOpType", "reduction_plan"]


class RedOpType(enum.IntEnum):
    """PyTorch's ``ReduceOp.RedOpType`` (the same values)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


class ReduceOp:
    """The reduction a collective applies: ``ReduceOp.SUM``, ``AVG``, ``PRODUCT``, ``MIN``,
    ``MAX``, ``BAND``, ``BOR``, ``BXOR`` (members of :class:`RedOpType`, as in PyTorch)."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM
    UNUSED = RedOpType.UNUSED

    def __init__(self, op: RedOpType = RedOpType.SUM) -> None:
        self.op = RedOpType(op)

    def __eq__(self, other) -> bool:
        return self.op == (other.op if isinstance(other, ReduceOp) else other)

    def __hash__(self) -> int:
        return hash(self.op)

    def __repr__(self) -> str:
        return f"ReduceOp.{self.op.name}"


_MPI_NAME = {
    RedOpType.SUM: "sum", RedOpType.AVG: "sum", RedOpType.PRODUCT: "prod", RedOpType.MIN: "min",
    RedOpType.MAX: "max", RedOpType.BAND: "band", RedOpType.BOR: "bor", RedOpType.BXOR: "bxor",
}
_BOOL_NAME = {
    RedOpType.SUM: "lor", RedOpType.MAX: "lor", RedOpType.PRODUCT: "land", RedOpType.MIN: "land",
    RedOpType.BAND: "land", RedOpType.BOR: "lor", RedOpType.BXOR: "lxor",
}
_WIDENED = (_dt.float16, _dt.bfloat16)


class Plan:
    """How one (dtype, op) reduces over MPI: the MPI op's name, whether to widen the half types
    to float32 first, and whether to divide by the group size afterwards (AVG)."""

    __slots__ = ("average", "mpi_op", "widen")

    def __init__(self, mpi_op: str, widen: bool, average: bool) -> None:
        self.mpi_op = mpi_op
        self.widen = widen
        self.average = average


_PLANS: dict = {}
SUM_PLANS: dict = {}  # dtype -> Plan of ReduceOp.SUM: the common case without hashing an enum


def reduction_plan(dtype: _dt.DType, op, fn: str) -> Plan:
    """The :class:`Plan` for reducing ``dtype`` by ``op`` in collective ``fn``, or the error
    PyTorch gives for that pair."""
    red = op if type(op) is RedOpType else _as_red_op(op, fn)
    plan = _PLANS.get((dtype, red))
    if plan is not None:
        return plan
    if red not in _MPI_NAME:
        raise ValueError(f"{fn}: ReduceOp.{red.name} is not supported by the MPI backend")
    if dtype is _dt.string:
        raise TypeError(f"{fn}: string tensors cannot be reduced (they hold Python bytes objects)")
    if dtype.is_complex and red not in (RedOpType.SUM, RedOpType.AVG):
        raise ValueError(f"{fn} does not support RedOpType.{red.name} on complex tensors")
    if red in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR) and dtype.kind not in "iub":
        raise ValueError(f"{fn}: Cannot use ReduceOp.{red.name} with non-integral dtype {dtype}")
    if dtype is _dt.bool_:
        if red is RedOpType.AVG:
            raise ValueError(f"{fn}: Cannot use ReduceOp.AVG with boolean inputs")
        plan = Plan(_BOOL_NAME[red], False, False)
    else:
        plan = Plan(_MPI_NAME[red], dtype in _WIDENED, red is RedOpType.AVG)
    _PLANS[(dtype, red)] = plan
    if red is RedOpType.SUM:
        SUM_PLANS[dtype] = plan
    return plan


def _as_red_op(op, fn: str) -> RedOpType:
    if isinstance(op, ReduceOp):
        return op.op
    try:
        return RedOpType(op)
    except (ValueError, TypeError):
        raise TypeError(f"{fn}: argument 'op' must be a ReduceOp (e.g. ReduceOp.SUM), not {op!r}") from None
