"""ember.trace() and ember.explain(): each hop of an op's road, observed."""

import sys

import pytest

import ember


def test_trace_records_every_hop_of_each_call():
    x = ember.tensor([-1.0, 2.0])
    with ember.trace() as t:
        ember.relu(x)
        x + x
        x * 3
    assert [j.function for j in t.journeys] == ["relu", "__add__", "__mul__"]
    relu, add, mul = t.journeys
    assert (relu.functor, relu.interpreter, relu.op, relu.kernel) == ("ReluInplace", "autograd > eager-local", "relu", "relu[cpu]")
    assert relu.inputs == [((2,), ember.float32)] and relu.outputs == [((2,), ember.float32)]
    assert relu.allocations == [(8, "CPUAllocator")]
    assert relu.stream.startswith("Stream cpu")
    assert add.functor == "Add" and mul.functor == "MulScalar" and mul.op == "mul_scalar"
    for hop in ("functional", "functor", "interpreter", "infer", "allocate", "launch", "kernel"):
        assert relu.times[hop] > 0
    assert relu.times["functional"] >= relu.times["functor"] >= relu.times["kernel"]


def test_trace_table_and_explain_print_the_journey(capsys):
    x = ember.tensor([1.0, 2.0])
    with ember.trace() as t:
        ember.exp(x)
    table = t.table()
    assert "exp[cpu]" in table and "eager-local" in table and "Exp" in table
    result = ember.explain(ember.neg, x)
    assert result.tolist() == [-1.0, -2.0]
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("ember.neg(...)")
    assert any("-> functor Neg" in line for line in lines)
    assert any("allocate 8 B from CPUAllocator" in line for line in lines)
    assert any("-> kernel neg[cpu]" in line for line in lines)


def test_meta_tensors_show_inference_without_a_kernel():
    m = ember.empty(4, device="meta")
    with ember.trace() as t:
        ember.neg(m)
    (j,) = t.journeys
    assert j.outputs == [((4,), ember.float32)] and j.kernel == "" and j.allocations == []


def test_nothing_is_installed_outside_a_trace():
    before = sys.getprofile()
    with ember.trace():
        assert sys.getprofile() is not before
    assert sys.getprofile() is before


def test_trace_of_a_matrix_is_pytorchs_and_no_argument_records():
    """``ember.trace(x)`` is ``torch.trace`` (programs call it); ``ember.trace()`` stays the recorder."""
    x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert ember.trace(x).item() == 6.0 == x.trace().item()
    assert ember.trace(ember.tensor([[1, 2], [3, 4]])).dtype == ember.int64
    with pytest.raises(RuntimeError, match="expected a matrix"):
        ember.trace(ember.ones(3))
    with pytest.raises(TypeError, match=r"trace\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        ember.trace([[1.0]])
    with ember.trace() as t:
        ember.ones(2) + 1
    assert t.journeys
