"""tf.errors: the OpError classes, their codes, and the Session raising them where TensorFlow does."""

import pickle

import numpy as np
import pytest

import ember
from ember.graph import errors

CLASSES = {
    "CancelledError": 1,
    "UnknownError": 2,
    "InvalidArgumentError": 3,
    "DeadlineExceededError": 4,
    "NotFoundError": 5,
    "AlreadyExistsError": 6,
    "PermissionDeniedError": 7,
    "ResourceExhaustedError": 8,
    "FailedPreconditionError": 9,
    "AbortedError": 10,
    "OutOfRangeError": 11,
    "UnimplementedError": 12,
    "InternalError": 13,
    "UnavailableError": 14,
    "DataLossError": 15,
    "UnauthenticatedError": 16,
}


@pytest.mark.parametrize(("name", "code"), CLASSES.items())
def test_each_class_has_its_code(name, code):
    cls = getattr(errors, name)
    err = cls(None, None, f"{name} happened")
    assert isinstance(err, errors.OpError)
    assert err.error_code == code
    assert err.message == f"{name} happened"
    assert str(err) == f"{name} happened"
    assert err.op is None and err.node_def is None
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code
    constant = name.removesuffix("Error")
    constant = "".join("_" + c if c.isupper() else c for c in constant).lstrip("_").upper()
    assert getattr(errors, constant) == code  # DeadlineExceededError -> DEADLINE_EXCEEDED
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is cls and again.message == err.message and again.error_code == code


def test_op_error_takes_the_code_and_the_constants():
    err = errors.OpError(None, None, "boom", errors.ABORTED)
    assert err.error_code == 10 and str(err) == "boom"
    assert errors.OK == 0
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(errors.OK)
    assert errors.error_code_from_exception_type(KeyError) == errors.UNKNOWN


def test_unfed_placeholder_raises_invalid_argument():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=(2,), name="x")
        y = x * 2.0
    with pytest.raises(errors.InvalidArgumentError, match="You must feed a value for placeholder tensor 'x'") as info:
        ember.Session(graph=g).run(y)
    err = info.value
    assert isinstance(err, ValueError)  # ember raised ValueError before it had tf.errors
    assert err.error_code == errors.INVALID_ARGUMENT
    assert err.op.name == "x" and err.op.type == "Placeholder"
    assert err.node_def.name == "x" and err.node_def.op == "Placeholder"


@pytest.mark.parametrize("specialize", [True, False])
def test_uninitialized_variable_raises_failed_precondition(specialize):
    with ember.Graph().as_default() as g:
        v = ember.Variable(1.0, name="v")
        y = v + 1.0
    with pytest.raises(errors.FailedPreconditionError, match="Attempting to use uninitialized value v") as info:
        ember.Session(graph=g, specialize=specialize).run(y)
    assert info.value.error_code == errors.FAILED_PRECONDITION
    assert info.value.op is not None
    assert errors.FailedPreconditionError is ember.graph.FailedPreconditionError


def test_assign_add_to_uninitialized_variable_raises_failed_precondition():
    with ember.Graph().as_default() as g:
        v = ember.Variable(1.0, name="v")
        step = ember.assign_add(v, 1.0)
    with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
        ember.Session(graph=g, specialize=False).run(step)


def test_tensorflow_agrees():
    tf = pytest.importorskip("tensorflow")
    for name, code in CLASSES.items():
        assert getattr(tf.errors, name)(None, None, "m").error_code == code
    assert tf.errors.OpError(None, None, "m", 10).error_code == errors.OpError(None, None, "m", 10).error_code


@pytest.mark.parametrize("options", [{}, {"optimize": False}, {"specialize": False}])
def test_errors_name_the_users_operation(options):
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=(), name="x")
        v = ember.Variable(1.0, name="v")
        y = (x + 1.0) * 2.0
        z = v * 3.0
    sess = ember.Session(graph=g, **options)
    with pytest.raises(errors.InvalidArgumentError) as info:
        sess.run(y)
    assert info.value.op is g.get_operation_by_name("x")
    with pytest.raises(errors.FailedPreconditionError) as info:
        sess.run(z)
    assert info.value.op.graph is g


@pytest.mark.parametrize("options", [{}, {"optimize": False}, {"specialize": False}])
def test_kernel_errors_are_invalid_argument_and_keep_their_class(options):
    with ember.Graph().as_default() as g:
        a = ember.placeholder(ember.float32, shape=(None, None), name="a")
        b = ember.placeholder(ember.float32, shape=(None, None), name="b")
        c = ember.matmul(a, b)
    feed = {a: np.ones((2, 3), np.float32), b: np.ones((2, 3), np.float32)}
    with pytest.raises(errors.InvalidArgumentError, match="cannot be multiplied") as info:
        ember.Session(graph=g, **options).run(c, feed)
    err = info.value
    assert isinstance(err, RuntimeError)  # what ember's kernel raised, for code that catches that
    assert err.error_code == errors.INVALID_ARGUMENT and str(err) == str(err.__cause__)
    if err.op is not None:  # a static plan's kernel runs without a node at hand
        assert err.op is c.op
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is errors.InvalidArgumentError and again.message == err.message


def test_from_exception():
    err = errors.from_exception(NotImplementedError("no kernel"), op=None)
    assert (
        isinstance(err, errors.UnimplementedError)
        and isinstance(err, NotImplementedError)
        and err.error_code == errors.UNIMPLEMENTED
    )
    err = errors.from_exception(IndexError("index 5 is out of bounds"))
    assert isinstance(err, errors.InvalidArgumentError) and isinstance(err, IndexError)
    assert type(errors.from_exception(IndexError("again"))) is type(err)  # one class per kind
    odd = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")  # a C layout of its own
    assert type(errors.from_exception(odd)) is errors.InvalidArgumentError
    same = errors.NotFoundError(None, None, "x")
    assert errors.from_exception(same) is same


def test_compile_keeps_ember_errors():
    f = ember.compile(lambda x, y: ember.matmul(x, y))
    with pytest.raises(RuntimeError) as info:
        f(ember.ones(2, 3), ember.ones(2, 3))
    assert not isinstance(info.value, errors.OpError)


def test_tensorflow_raises_invalid_argument_for_the_same_kernel_error():
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    with v1.Graph().as_default() as g:
        a = v1.placeholder(tf.float32, [None, None])
        b = v1.placeholder(tf.float32, [None, None])
        c = v1.matmul(a, b)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        v1.Session(graph=g).run(c, {a: np.ones((2, 3)), b: np.ones((2, 3))})
    assert info.value.error_code == errors.INVALID_ARGUMENT
