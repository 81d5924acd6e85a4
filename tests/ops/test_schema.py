"""The schema grammar: parsing, printing back, and what a malformed entry is told."""

import pytest

from ember.ops.schema import OpEntry, SchemaError, Signature, Type, load_schema, parse_schema

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
        parse_schema("f:\n  - name: a\n    signature: 'Tensor (Tensor x) => A'\n    bogus: 1\n")
    with pytest.raises(SchemaError, match="needs 'name' and 'signature'"):
        parse_schema("f:\n  - name: a\n")
    with pytest.raises(SchemaError, match="declared twice"):
        parse_schema("f:\n  - {name: a, signature: 'Tensor (Tensor x) => A'}\n  - {name: a, signature: 'Tensor (Tensor x) => B'}\n")
    with pytest.raises(SchemaError, match="composite dispatches no primitive"):
        parse_schema("f:\n  - {name: a, signature: 'Tensor (Tensor x) => A', composite: true, op: a}\n")


def test_entries_print_back_to_yaml_dicts_that_parse_to_the_same_entry():
    import yaml

    for entry in ENTRIES:
        text = yaml.safe_dump({entry.family: [entry.to_yaml_dict()]})
        (again,) = parse_schema(text)
        assert isinstance(again, OpEntry)
        assert again == entry, entry.name


def test_dotted_names_go_to_a_namespace():
    (entry,) = parse_schema("linalg:\n  - {name: linalg.inv, signature: 'Tensor (Tensor A) => Inv'}\n")
    assert (entry.namespace, entry.short_name, entry.python_name) == ("linalg", "inv", "linalg_inv")
