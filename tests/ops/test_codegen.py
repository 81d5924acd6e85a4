"""The functional API generated from the schema: signatures, source, errors, binding."""

import inspect
import traceback

import pytest

import ember
from ember.ops import codegen, functional
from ember.ops.schema import load_schema

ENTRIES = load_schema()


def test_every_entry_is_a_public_function_and_its_methods_are_bound():
    for entry in ENTRIES:
        target = functional.NAMESPACES[entry.namespace] if entry.namespace else functional.FUNCTIONS
        fn = target[entry.short_name]
        assert fn.__code__.co_filename == codegen.FILENAME
        for alias in entry.aliases:
            assert target[alias] is fn
        if not entry.namespace:
            assert getattr(ember, entry.short_name) is fn
        if entry.method and entry.method != "property":
            assert getattr(ember.Tensor, entry.method_name) is fn
        if entry.inplace:
            assert callable(getattr(ember, entry.inplace))


def test_signature_and_source_are_readable_by_inspect():
    sig = inspect.signature(ember.relu)
    assert list(sig.parameters) == ["input", "inplace"]
    assert sig.parameters["inplace"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["inplace"].default is False
    source = inspect.getsource(ember.add)
    assert source.startswith("def add(") and "=> Add" in source
    assert "Tensor (Tensor input, *, Bool inplace=False) => ReluInplace" in ember.relu.__doc__
    assert "def add(" in codegen.generated_source()


def test_tracebacks_show_the_generated_lines():
    with pytest.raises(TypeError) as info:
        ember.relu("a")
    frames = traceback.extract_tb(info.tb)
    generated = [f for f in frames if f.filename == codegen.FILENAME]
    assert generated and generated[0].name == "relu" and generated[0].line


def test_argument_errors_name_the_function_argument_position_and_types():
    with pytest.raises(TypeError, match=r"^relu\(\): argument 'input' \(position 1\) must be Tensor, not str$"):
        ember.relu("a")
    with pytest.raises(TypeError, match=r"^relu\(\): argument 'inplace' must be bool, not int$"):
        ember.relu(ember.ones(2), inplace=1)
    with pytest.raises(TypeError, match=r"add\(\) received an invalid combination of arguments - got \(Tensor, str\)"):
        ember.add(ember.ones(2), "a")
    with pytest.raises(TypeError, match=r"\* \(Tensor input, Scalar other"):
        ember.add(ember.ones(2), "a")


def test_operators_return_notimplemented_for_foreign_types():
    t = ember.ones(2)
    assert t.__add__("a") is NotImplemented
    assert (t == None) is False  # noqa: E711 - Python falls back to identity
    with pytest.raises(TypeError, match="unsupported operand"):
        t + "a"


def test_varargs_sizes_are_accepted_for_a_trailing_size_list():
    sig = codegen.Signature.parse("Tensor (Tensor input, IntList size) => X")
    assert codegen.vararg_param([sig]).name == "size"
    assert codegen.vararg_param([codegen.Signature.parse("Tensor (Tensor input, IntList? dim=None) => X")]) is None
    assert codegen.vararg_param([codegen.Signature.parse("Tensor (Tensor input, Int k, IntList size) => X")]) is None


def test_in_place_variant_writes_into_its_first_argument():
    t = ember.tensor([-1.0, 2.0])
    out = ember.relu_(t)
    assert out is t and t.tolist() == [0.0, 2.0]
    u = ember.tensor([1.0, 2.0])
    assert u.add_(1) is u and u.tolist() == [2.0, 3.0]
