"""TensorFlow's error classes (``tf.errors``): an ``OpError`` per canonical error code.

A Session raises these where TensorFlow does: ``InvalidArgumentError`` for a placeholder that
needs a feed, ``FailedPreconditionError`` for a variable read before its initializer ran,
``NotFoundError`` for a missing file (``gfile``, checkpoints). Each carries the message, the
operation that failed (or None) and its ``NodeDef``, and the numeric code.

An exception a kernel raises while a Session runs (a shape only the run reveals, an index out
of range) becomes ``from_exception``'s OpError: ``InvalidArgumentError`` (``UnimplementedError``
for a NotImplementedError), naming the node, and still an instance of the kernel's own class.

Two classes are also Python's built-in kind for the same mistake, because ember's graph mode
raised those before it had these classes and code catches them: ``InvalidArgumentError`` is a
``ValueError`` and ``FailedPreconditionError`` a ``RuntimeError``. TensorFlow's own classes
derive from ``OpError`` alone, so ``except tf.errors.OpError`` catches all of them either way.

>>> err = NotFoundError(None, None, "model.ckpt: no such file")
>>> err.error_code == NOT_FOUND, err.message, str(err)
(True, 'model.ckpt: no such file', 'model.ckpt: no such file')
>>> exception_type_from_error_code(9).__name__
'FailedPreconditionError'
"""

from __future__ import annotations

__all__ = [
    "ABORTED",
    "ALREADY_EXISTS",
    "CANCELLED",
    "DATA_LOSS",
    "DEADLINE_EXCEEDED",
    "FAILED_PRECONDITION",
    "INTERNAL",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "OK",
    "OUT_OF_RANGE",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "UNIMPLEMENTED",
    "UNKNOWN",
    "AbortedError",
    "AlreadyExistsError",
    "CancelledError",
    "DataLossError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OpError",
    "OutOfRangeError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "UnknownError",
    "error_code_from_exception_type",
    "from_exception",
    "exception_type_from_error_code",
]

# The canonical codes (TensorFlow's error_codes.proto, shared with gRPC).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An error while running a graph: ``OpError(node_def, op, message, error_code)``.

    ``op`` is the ``Operation`` that failed (None when no single one did), ``node_def`` its
    ``NodeDef`` (None, or filled from ``op`` when left out), ``message`` the text and
    ``error_code`` one of the canonical codes of this module. ``str(error)`` is the message.
    """

    def __init__(self, node_def, op, message: str, error_code: int, *args) -> None:
        super().__init__(message, *args)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        if self._node_def is None and self._op is not None and hasattr(self._op, "node_def"):
            self._node_def = self._op.node_def  # built on demand: an error is rare, a NodeDef not free
        return self._node_def

    @property
    def error_code(self) -> int:
        return self._error_code

    @property
    def experimental_payloads(self) -> dict:
        return {}

    def __str__(self) -> str:
        return self._message

    def __reduce__(self):
        # an Operation does not pickle; the message and the code are what crosses a process
        return _rebuild, (type(self), self._message, self._error_code)


def _rebuild(cls: type, message: str, error_code: int) -> OpError:
    error = cls.__new__(cls)
    OpError.__init__(error, None, None, message, error_code)
    return error


class CancelledError(OpError):
    """An operation or step was cancelled."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, CANCELLED, *args)


class UnknownError(OpError):
    """An error of no other kind."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, UNKNOWN, *args)


class InvalidArgumentError(OpError, ValueError):
    """An operation got an invalid argument (an unfed placeholder, a bad shape)."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, INVALID_ARGUMENT, *args)


class DeadlineExceededError(OpError):
    """A deadline (``RunOptions.timeout_in_ms``) expired."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, DEADLINE_EXCEEDED, *args)


class NotFoundError(OpError):
    """A requested entity (a file, a checkpoint) was not found."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, NOT_FOUND, *args)


class AlreadyExistsError(OpError):
    """An entity to be created already exists."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, ALREADY_EXISTS, *args)


class PermissionDeniedError(OpError):
    """The caller may not do the operation."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, PERMISSION_DENIED, *args)


class ResourceExhaustedError(OpError):
    """A resource (memory, a quota) ran out."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, RESOURCE_EXHAUSTED, *args)


class FailedPreconditionError(OpError, RuntimeError):
    """The system is not in the state the operation needs (an uninitialized variable)."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, FAILED_PRECONDITION, *args)


class AbortedError(OpError):
    """An operation was aborted, typically by a concurrent action."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, ABORTED, *args)


class OutOfRangeError(OpError):
    """An operation went past the valid range (the end of an input)."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, OUT_OF_RANGE, *args)


class UnimplementedError(OpError):
    """An operation is not implemented or supported."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, UNIMPLEMENTED, *args)


class InternalError(OpError):
    """An invariant of the system broke."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, INTERNAL, *args)


class UnavailableError(OpError):
    """A service is not available right now."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, UNAVAILABLE, *args)


class DataLossError(OpError):
    """Data was lost or corrupted (a bad record in a file)."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, DATA_LOSS, *args)


class UnauthenticatedError(OpError):
    """The request lacks valid credentials."""

    def __init__(self, node_def, op, message: str, *args) -> None:
        OpError.__init__(self, node_def, op, message, UNAUTHENTICATED, *args)


_BY_CODE: dict[int, type] = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}
_BY_CLASS = {cls: code for code, cls in _BY_CODE.items()}


def exception_type_from_error_code(error_code: int) -> type:
    """The OpError subclass of a canonical code (KeyError for OK or an unknown code, as TensorFlow)."""
    return _BY_CODE[error_code]


def error_code_from_exception_type(cls: type) -> int:
    """The canonical code of an OpError subclass (UNKNOWN for a class of no code)."""
    return _BY_CLASS.get(cls, UNKNOWN)


_COMBINED: dict = {}  # (OpError class, kernel's exception class) -> a class deriving from both


def _combined(base: type, kind: type) -> type:
    key = (base, kind)
    cls = _COMBINED.get(key)
    if cls is None:
        if issubclass(base, kind):
            cls = base
        else:
            try:
                cls = type(base.__name__, (base, kind), {"__module__": __name__, "__doc__": base.__doc__, "__reduce__": _plain_reduce(base)})
                base.__init__(cls.__new__(cls), None, None, "probe")
            except TypeError:  # a class with its own layout or constructor (UnicodeDecodeError...): TensorFlow's alone
                cls = base
        _COMBINED[key] = cls
    return cls


def _plain_reduce(base: type):
    def __reduce__(self):  # the combined class is made at run time: it pickles as TensorFlow's class
        return _rebuild, (base, self._message, self._error_code)

    return __reduce__


def from_exception(error: BaseException, op=None) -> OpError:
    """The OpError TensorFlow raises for ``error``, an exception of a kernel run for node ``op``.

    An OpError is returned as it is. Otherwise the result is ``InvalidArgumentError``
    (``UnimplementedError`` for a NotImplementedError) with ``error``'s message and ``op``, and
    it is also an instance of ``type(error)``: code catching the kernel's exception still does.

    >>> err = from_exception(RuntimeError("shapes (2, 3) and (2, 3) cannot be multiplied"))
    >>> isinstance(err, InvalidArgumentError), isinstance(err, RuntimeError), err.error_code
    (True, True, 3)
    """
    if isinstance(error, OpError):
        return error
    base = UnimplementedError if isinstance(error, NotImplementedError) else InvalidArgumentError
    cls = _combined(base, type(error))
    converted = cls.__new__(cls)
    base.__init__(converted, None, op, str(error))
    return converted
