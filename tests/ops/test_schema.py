"""The schema grammar: parsing, printing back, and what a malformed entry is told."""

import pytest

from ember.ops.schema import OpEntry, SchemaError, Signature, Type, load_schema, parse_entry, schema_family

ENTRIES = load_schema()


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_every_signature_prints_back_to_its_text(entry):
    for sig in entry.signatures:
        assert str(Signature.parse(str(sig))) == str(sig)
        assert Signature.parse(str(sig)) == sig


@pytest.mark.parametrize(
    "text",
    [
        "Tensor (Tensor x, *, Bool inplace=False) => Relu",
        "Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Add",
        "(Tensor values, Tensor indices) (Tensor input, Int dim, Bool keepdim=False) => MaxDim",
        "(Tensor, Tensor) (Tensor input) => Pair",
        "TensorList (Tensor input, IntList[2] kernel_size, IntList? dim=None, Float eps=1e-05) => F",
        "Tensor (IntList size, *, DType? dtype=None, Device? device=None, Generator? generator=None) => Rand",
        "Bool (Tensor input, Tensor other, Float rtol=1e-05, String mode=\"mean\", FloatList p=[1.0, 2.0]) => G",
        "Void (TensorList tensors, ScalarList values, Object key) => H",
    ],
)
def test_round_trip_of_the_grammar(text):
    sig = Signature.parse(text)
    assert str(sig) == text


def test_parsed_fields():
    sig = Signature.parse("(Tensor values, Tensor indices) (Tensor input, Int dim=-1, *, Bool keepdim=False) => MaxDim")
    assert sig.returns.names == ("values", "indices")
    assert [p.name for p in sig.positional] == ["input", "dim"]
    assert [p.name for p in sig.keyword] == ["keepdim"]
    assert sig.params[1].default == -1 and sig.params[2].default is False
    assert Type.parse("IntList[2]?") == Type("IntList", 2, True)
    assert Signature.parse("Tensor (Tensor x, Float p=inf) => N").params[1].default == float("inf")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Tensor (Tensr x) => Relu", "unknown type 'Tensr'"),
        ("Tensor (Tensor x)", "expected 'Returns \\(params\\) => Functor'"),
        ("Tensor (Tensor x, Tensor x) => F", "repeated parameter name"),
        ("Tensor (Tensor x=1, Tensor y) => F", "without a default follows one with a default"),
        ("Tensor (Tensor x, *, *, Bool b=False) => F", "two '\\*' markers"),
        ("Tensor (Int[2] k) => F", "only list types take a length"),
        ("Tensor (Tensor x, Int n=foo) => F", "is not a Python literal"),
        ("Blob (Tensor x) => F", "unknown return type 'Blob'"),
    ],
)
def test_malformed_signatures_are_refused_with_the_reason(text, message):
    with pytest.raises(SchemaError, match=message):
        Signature.parse(text)


def test_malformed_entries_are_refused():
    with pytest.raises(SchemaError, match="unknown keys \\['bogus'\\]"):
        parse_entry({"name": "a", "signature": "Tensor (Tensor x) => A", "bogus": 1})
    with pytest.raises(SchemaError, match="needs 'name' and 'signature'"):
        parse_entry({"name": "a"})
    with pytest.raises(SchemaError, match="composite dispatches no primitive"):
        parse_entry({"name": "a", "signature": "Tensor (Tensor x) => A", "composite": True, "op": "a"})


def test_an_op_declared_twice_is_refused():
    declare = schema_family("test_family")
    with pytest.raises(SchemaError, match="declared twice"):
        declare("add", "Tensor (Tensor x) => B")
    assert next(e for e in load_schema() if e.name == "add").family == "elementwise"


def test_every_entry_sits_in_the_module_of_its_family():
    import ember.ops

    packages = {name for name in vars(ember.ops) if not name.startswith("_")}
    for entry in ENTRIES:
        assert entry.family in packages, f"{entry.name}: family {entry.family!r} is no module of ember.ops"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_entries_print_back_to_keys_that_parse_to_the_same_entry(entry):
    again = parse_entry(entry.to_dict(), entry.family)
    assert isinstance(again, OpEntry)
    assert again == entry
