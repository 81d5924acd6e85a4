"""String tensors in eager mode: what compares and selects (as TensorFlow's equal and where do),
and the clear errors of what cannot (arithmetic, order, reductions)."""

import numpy as np
import pytest

import ember

A = [b"a", b"bc", b"", b"\xff"]
B = [b"a", b"b", b"", b"x"]


def strings(values):
    return ember.tensor(values, dtype=ember.string)


def expected(fn, *arrays):
    return fn(*[np.array(a, dtype=object) for a in arrays]).tolist()


@pytest.mark.parametrize(
    ("name", "call", "reference"),
    [
        ("eq", lambda: ember.eq(strings(A), strings(B)), lambda: expected(np.equal, A, B)),
        ("ne", lambda: ember.ne(strings(A), strings(B)), lambda: expected(np.not_equal, A, B)),
        ("==", lambda: strings(A) == strings(B), lambda: expected(np.equal, A, B)),
        ("!=", lambda: strings(A) != strings(B), lambda: expected(np.not_equal, A, B)),
        ("== str", lambda: strings(A) == "a", lambda: [True, False, False, False]),
        ("== bytes", lambda: strings(A) == b"\xff", lambda: [False, False, False, True]),
        (
            "str ==",
            lambda: "bc" == strings(A),  # noqa: SIM300 - the reflected operator under test
            lambda: [False, True, False, False],
        ),
        ("!= str", lambda: strings(A) != "", lambda: [True, True, False, True]),
        (
            "broadcast",
            lambda: strings(A)[:, None] == strings(B[:2]),
            lambda: expected(np.equal, np.array(A, dtype=object)[:, None], B[:2]),
        ),
        ("0-d", lambda: strings(b"a") == strings(A), lambda: [True, False, False, False]),
        (
            "where",
            lambda: ember.where(ember.tensor([True, False, True, False]), strings(A), strings(B)),
            lambda: [b"a", b"b", b"", b"x"],
        ),
        (
            "where broadcast",
            lambda: ember.where(ember.tensor([[True], [False]]), strings(A), strings(b"z")),
            lambda: [A, [b"z"] * 4],
        ),
        ("equal", lambda: ember.equal(strings(A), strings(list(A))), lambda: True),
        ("not equal", lambda: ember.equal(strings(A), strings(B)), lambda: False),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_strings_compare_and_select(name, call, reference):
    result = call()
    want = reference()
    if isinstance(want, bool):
        assert result is want
        return
    assert result.tolist() == want
    assert result.dtype is (ember.string if name.startswith("where") else ember.bool)


def test_a_str_operand_is_a_string_only_next_to_strings():
    # A number tensor next to a str is no comparison at all: Python's False, as PyTorch gives.
    assert (ember.tensor([1, 2]) == "a") is False
    assert (ember.tensor([1, 2]) != "a") is True
    t = strings(A)
    assert (t == "a").tolist() == (t == strings("a")).tolist()


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda t: t + t, TypeError, r"^add\(\): argument 'input' must have a bool or numeric .* got ember.string$"),
        (lambda t: t + "x", TypeError, r"^add\(\): argument 'input' must have .* got ember.string$"),
        (lambda t: "x" + t, TypeError, r"^add\(\): argument 'input' must have .* got ember.string$"),
        (lambda t: "x" - t, TypeError, r"^sub\(\): argument 'input' must have .* got ember.string$"),
        (lambda t: t * 2, TypeError, r"a string dtype cannot be combined with a Python int scalar"),
        (lambda t: -t, TypeError, r"^neg\(\): argument 'input' must have .* got ember.string$"),
        (
            lambda t: t < t,
            TypeError,
            r"^lt\(\): argument 'input' must have a bool or integral or real floating dtype, got ember.string$",
        ),
        (lambda t: t >= "a", TypeError, r"^ge\(\): argument 'input' must have .* got ember.string$"),
        (lambda t: t == 1, TypeError, r"a string dtype cannot be combined with a Python int scalar"),
        (
            lambda t: t == ember.tensor([1, 2, 3, 4]),
            TypeError,
            r"^eq\(\): type promotion between ember.string and ember.int64 is not defined",
        ),
        (
            lambda t: ember.where(ember.tensor([True] * 4), t, ember.tensor([1.0] * 4)),
            TypeError,
            r"string promotes only with string",
        ),
        (
            lambda t: ember.sort(t),
            TypeError,
            r"^sort\(\): argument 'input' has dtype ember.string, which sort\(\) does not support",
        ),
        (lambda t: t.argsort(), TypeError, r"^sort\(\): argument 'input' has dtype ember.string"),
        (lambda t: t.topk(1), TypeError, r"^topk\(\): argument 'input' has dtype ember.string"),
        (lambda t: ember.unique(t), TypeError, r"^unique\(\): string tensors are not supported$"),
        (lambda t: t.eq_(t), RuntimeError, r"result type bool can't be cast to the desired output type string"),
    ],
)
def test_what_strings_cannot_do_is_refused_clearly(call, error, message):
    with pytest.raises(error, match=message):
        call(strings(A))


def test_sort_matches_tensorflows_refusal():
    """TensorFlow has no string sort: building ``tf.sort`` of strings in a graph raises TypeError
    (eagerly, InvalidArgumentError), and ember's sort raises TypeError."""
    with pytest.raises(TypeError):
        ember.sort(strings(A))
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default(), pytest.raises(TypeError, match="DataType string not in list of allowed values"):
        tf.sort(tf.constant(A))


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    ours = [
        (strings(A) == strings(B)).tolist(),
        (strings(A) != "a").tolist(),
        ember.where(ember.tensor([True, False, True, False]), strings(A), strings(B)).tolist(),
    ]
    theirs = [
        tf.equal(A, B).numpy().tolist(),
        tf.not_equal(A, "a").numpy().tolist(),
        tf.where([True, False, True, False], A, B).numpy().tolist(),
    ]
    assert ours == theirs
