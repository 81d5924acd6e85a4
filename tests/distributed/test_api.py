"""ember.distributed in one process without starting MPI: imports, rules, errors before init."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys

import pytest

import ember
import ember.distributed as dist
from ember.distributed import process_group
from ember.distributed.reduce_op import RedOpType, reduction_plan

from ._data import DTYPES, OPS, valid


def test_importing_loads_no_mpi():
    code = ("import sys, ember, ember.distributed, ember.distributed.run, ember.distributed.timeline; "
            "assert 'mpi4py' not in sys.modules, 'mpi4py was imported'; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_collectives_before_init_raise():
    assert not dist.is_initialized()
    t = ember.zeros(3)
    for call in (lambda: dist.all_reduce(t), lambda: dist.broadcast(t, src=0), lambda: dist.barrier(), lambda: dist.get_rank(),
                 lambda: dist.all_gather([t], t), lambda: dist.send(t, 1), lambda: dist.all_gather_object([None], 1),
                 lambda: dist.new_group([0])):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            call()


def test_reduce_op_names_and_values_are_pytorchs():
    assert [int(getattr(dist.ReduceOp, name)) for name in OPS] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert dist.ReduceOp.SUM is RedOpType.SUM and dist.ReduceOp(dist.ReduceOp.MAX) == dist.ReduceOp.MAX


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_reduction_rules_per_dtype(dtype):
    for name in OPS:
        op = getattr(dist.ReduceOp, name)
        if valid(dtype, name):
            plan = reduction_plan(dtype, op, "all_reduce")
            assert plan.widen == (dtype in (ember.float16, ember.bfloat16))
            assert plan.average == (name == "AVG")
            if dtype is ember.bool:
                assert plan.mpi_op in ("land", "lor", "lxor")
        else:
            with pytest.raises(ValueError, match=name):
                reduction_plan(dtype, op, "all_reduce")
    with pytest.raises(TypeError, match="string tensors cannot be reduced"):
        reduction_plan(ember.string, dist.ReduceOp.SUM, "all_reduce")


def test_backend_and_timeout_arguments():
    process_group._check_backend(None, "f")
    process_group._check_backend("mpi", "f")
    with pytest.warns(UserWarning, match="runs on MPI; backend 'gloo' is served by MPI"):
        process_group._check_backend("gloo", "f")
    with pytest.warns(UserWarning, match="'nccl'"):
        process_group._check_backend("nccl", "f")
    with pytest.raises(ValueError, match="Invalid backend: 'smoke'"):
        process_group._check_backend("smoke", "f")
    assert process_group._timeout_seconds(datetime.timedelta(seconds=3), "f") == 3.0
    assert process_group._timeout_seconds(None, "f") == float(os.environ.get("EMBER_DISTRIBUTED_TIMEOUT", 600))
    with pytest.raises(ValueError, match="must be positive"):
        process_group._timeout_seconds(0, "f")
    with pytest.raises(TypeError, match="timedelta"):
        process_group._timeout_seconds("10", "f")


def test_work_wait_timeout_argument():
    from ember.distributed.work import _seconds

    assert _seconds(None) is None and _seconds(datetime.timedelta(0)) is None
    assert _seconds(datetime.timedelta(milliseconds=1500)) == 1.5 and _seconds(2) == 2.0
    with pytest.raises(TypeError, match="timedelta or seconds"):
        _seconds("1s")
