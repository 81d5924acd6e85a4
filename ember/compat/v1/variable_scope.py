"""TensorFlow 1's variable scopes: ``variable_scope``, ``get_variable``, ``get_variable_scope``.

A variable scope names variables made by ``get_variable`` (``"layer/w"``) and says whether
they are created or shared (``reuse``). Each graph keeps a store: the variables made by
``get_variable`` by full name, how often each scope name was opened (so ``default_name``
scopes count up ``blk``, ``blk_1``, ...) and, per thread, the current scope.

The naming is TensorFlow's, quirks included: opening a variable scope also opens a name scope
of the same last component, made unique like any name scope, so a second ``variable_scope("s")``
puts its variables under ``s/`` and its other ops under ``s_1/``; re-entering a scope object
opens a fresh name scope too. Variable names ignore name scopes.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import threading
import weakref
from collections.abc import Iterator

import numpy as np

from ..._core import dtype as _dt
from ...graph.graph import Graph, get_default_graph
from ...graph.symbolic import as_shape
from ...graph.tensor import GraphTensor
from .initializers import glorot_uniform_initializer, zeros_initializer
from .variables import GraphKeys, Variable

__all__ = ["AUTO_REUSE", "VariableScope", "get_local_variable", "get_variable", "get_variable_scope", "variable_scope"]


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """The settings ``get_variable`` inherits: the name prefix, reuse, initializer, regularizer,
    dtype and custom getter."""

    def __init__(self, reuse, name: str = "", initializer=None, regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, name_scope: str = "", dtype=_dt.float32, use_resource=None, constraint=None) -> None:  # fmt: skip
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    dtype = property(lambda self: self._dtype)
    custom_getter = property(lambda self: self._custom_getter)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    use_resource = property(lambda self: self._use_resource)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self) -> None:
        """Share variables from now on in this scope."""
        self._reuse = True

    def set_initializer(self, initializer) -> None:
        self._initializer = initializer

    def set_regularizer(self, regularizer) -> None:
        self._regularizer = regularizer

    def set_dtype(self, dtype) -> None:
        self._dtype = _dt.as_dtype(dtype, op="VariableScope.set_dtype", arg="dtype")

    def set_custom_getter(self, custom_getter) -> None:
        self._custom_getter = custom_getter

    def set_caching_device(self, caching_device) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner) -> None:
        self._partitioner = partitioner

    def set_use_resource(self, use_resource) -> None:
        self._use_resource = use_resource

    def global_variables(self) -> list:
        return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, self._prefix())

    def trainable_variables(self) -> list:
        return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, self._prefix())

    def local_variables(self) -> list:
        return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, self._prefix())

    def _prefix(self) -> str:
        return self._name + "/" if self._name else ""

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None, regularizer=None, reuse=None, trainable=None,
                     collections=None, caching_device=None, partitioner=None, validate_shape=True, use_resource=None,
                     custom_getter=None, constraint=None, synchronization=None, aggregation=None):  # fmt: skip
        """The variable ``name`` of this scope, created or shared (see ``get_variable``)."""
        regularizer = self._regularizer if regularizer is None else regularizer
        custom_getter = self._custom_getter if custom_getter is None else custom_getter
        partitioner = self._partitioner if partitioner is None else partitioner
        reuse = self._reuse if reuse is None else reuse
        full_name = f"{self._name}/{name}" if self._name else name
        graph = var_store.graph
        with graph.name_scope(None):  # variable names depend on the variable scope only
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = _value_dtype(initializer)
                if init_dtype is not _dt.as_dtype(dtype, op="get_variable", arg="dtype"):
                    raise ValueError(
                        f"Initializer type '{_tf_dtype_repr(init_dtype)}' and explicit dtype '{_tf_dtype_repr(dtype)}' don't match."
                    )
            initializer = self._initializer if initializer is None else initializer
            constraint = self._constraint if constraint is None else constraint
            dtype = self._dtype if dtype is None else dtype
            return var_store.get_variable(
                full_name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, partitioner=partitioner, validate_shape=validate_shape, custom_getter=custom_getter,
                constraint=constraint,
            )  # fmt: skip


def _value_dtype(value) -> _dt.DType:
    if isinstance(value, GraphTensor):
        return value._dtype
    array = np.asarray(value)
    if array.dtype == np.int64:
        return _dt.int32
    if array.dtype == np.float64:
        return _dt.float32
    return _dt.as_dtype(array.dtype, op="get_variable", arg="initializer")


def _tf_dtype_repr(dtype) -> str:
    return f"<dtype: '{_dt.as_dtype(dtype, op='get_variable', arg='dtype').name}'>"


class _VarStore:
    """One graph's variables made by ``get_variable`` and its variable-scope bookkeeping."""

    def __init__(self, graph: Graph) -> None:
        self._graph = weakref.ref(graph)
        self.vars: dict = {}
        self.scope_counts: dict = {}
        self._local = threading.local()

    @property
    def graph(self) -> Graph:
        return self._graph()

    @property
    def current(self) -> VariableScope:
        local = self._local
        if not hasattr(local, "scope"):
            local.scope = VariableScope(False)
        return local.scope

    @current.setter
    def current(self, scope: VariableScope) -> None:
        self._local.scope = scope

    def open_scope(self, name: str) -> None:
        self.scope_counts[name] = self.scope_counts.get(name, 0) + 1

    def close_subscopes(self, name: str) -> None:
        for key in self.scope_counts:
            if key.startswith(name + "/"):
                self.scope_counts[key] = 0

    def get_variable(self, name, shape=None, dtype=_dt.float32, initializer=None, regularizer=None, reuse=None, trainable=None,
                     collections=None, partitioner=None, validate_shape=True, custom_getter=None, constraint=None):  # fmt: skip
        if partitioner is not None:
            raise NotImplementedError(f"get_variable(): variable {name}: partitioned variables (partitioner=) are not supported")
        if custom_getter is not None:
            if not callable(custom_getter):
                raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
            return custom_getter(
                getter=self._true_getter, name=name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                reuse=reuse, trainable=trainable, collections=collections, validate_shape=validate_shape, constraint=constraint,
            )  # fmt: skip
        return self._true_getter(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, reuse=reuse,
                                 trainable=trainable, collections=collections, validate_shape=validate_shape, constraint=constraint)  # fmt: skip

    def _true_getter(self, name, shape=None, dtype=_dt.float32, initializer=None, regularizer=None, reuse=None, trainable=None,
                     collections=None, validate_shape=True, constraint=None, **unused):  # fmt: skip
        from_value = initializer is not None and not callable(initializer)
        if shape is not None and from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = _dt.as_dtype(dtype, op="get_variable", arg="dtype")
        shape = as_shape(shape)
        if name in self.vars:
            if reuse is False or reuse is None:
                raise ValueError(
                    f"Variable {name} already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                )
            found = self.vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(
                    f"Trying to share variable {name}, but specified shape {shape} and found shape {found.get_shape()}."
                )
            if dtype is not found._dtype:
                raise ValueError(
                    f"Trying to share variable {name}, but specified dtype {dtype.name} and found dtype {found._dtype.name}."
                )
            return found
        if reuse is True:
            raise ValueError(
                f"Variable {name} does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )
        if initializer is None:
            initializer = _default_initializer(name, dtype)
        if from_value:
            init_val, var_dtype = initializer, None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape.is_fully_defined():
                init_val = functools.partial(initializer, shape.as_list(), dtype=dtype)
                var_dtype = dtype
            elif _takes_no_arguments(initializer):
                init_val, var_dtype = initializer, None
            else:
                raise ValueError(
                    "The initializer passed is not valid. It should be a callable with no arguments and the shape should not be provided "
                    "or an instance of `tf.keras.initializers.*' and `shape` should be fully defined."
                )
        variable = Variable(init_val, name=name, trainable=trainable, collections=collections, dtype=var_dtype,
                            validate_shape=validate_shape, constraint=constraint)  # fmt: skip
        self.vars[name] = variable
        if regularizer:
            with self.graph.name_scope(name + "/Regularizer/"):
                loss = regularizer(variable)
            if loss is not None:
                self.graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return variable


def _takes_no_arguments(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _default_initializer(name: str, dtype: _dt.DType):
    if dtype.is_floating_point:
        return glorot_uniform_initializer()
    if dtype is _dt.bool_ or dtype is _dt.string or not dtype.is_complex:  # integers, bools, strings
        return zeros_initializer()
    raise ValueError(f"An initializer for variable {name} of {_tf_dtype_repr(dtype)} is required")


_STORES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_STORES_LOCK = threading.Lock()


def _store(graph: Graph | None = None) -> _VarStore:
    graph = graph or get_default_graph()
    with _STORES_LOCK:
        store = _STORES.get(graph)
        if store is None:
            store = _STORES[graph] = _VarStore(graph)
    return store


def get_variable_scope() -> VariableScope:
    """The current variable scope of this thread in the default graph."""
    return _store().current


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None, collections=None, caching_device=None,
                 partitioner=None, validate_shape=True, use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                 aggregation=None):  # fmt: skip
    """The variable ``<scope>/name``: created by ``initializer`` (default: Glorot uniform for
    floats, zeros for integers and bools), or the existing one where the scope reuses.

    >>> import ember.compat.v1 as tf
    >>> with tf.Graph().as_default():
    ...     with tf.variable_scope("layer"):
    ...         w = tf.get_variable("w", [2, 3])
    ...     with tf.variable_scope("layer", reuse=True):
    ...         same = tf.get_variable("w")
    >>> w.name, same is w
    ('layer/w:0', True)
    """
    store = _store()
    return store.current.get_variable(
        store, name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, trainable=trainable,
        collections=collections, partitioner=partitioner, validate_shape=validate_shape, custom_getter=custom_getter, constraint=constraint,
    )  # fmt: skip


def get_local_variable(
    name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False, collections=None, **kwargs
):
    """``get_variable`` into the local variables (not trainable, not saved by default)."""
    collections = [GraphKeys.LOCAL_VARIABLES] if collections is None else [*collections, GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, trainable=trainable,
                        collections=collections, **kwargs)  # fmt: skip


def _wrap_getter(custom_getter, old_getter):
    """A scope's custom getter composed with its parent's: the new one calls the old one."""
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped


def _unique_scope_name(store: _VarStore, prefix: str) -> str:
    parent = store.current.name
    name = f"{parent}/{prefix}" if parent else prefix
    if store.scope_counts.get(name, 0) == 0:
        return prefix
    index = 1
    while store.scope_counts.get(f"{name}_{index}", 0) > 0:
        index += 1
    return f"{prefix}_{index}"


@contextlib.contextmanager
def _pure_scope(
    store: _VarStore, name_or_scope, reuse, initializer, regularizer, custom_getter, dtype, old_name_scope
) -> Iterator[VariableScope]:
    """Switch the current variable scope only (the caller handles the name scope)."""
    old = store.current
    if isinstance(name_or_scope, VariableScope):
        new_name = name_or_scope.name
        scope = VariableScope(
            reuse or name_or_scope.reuse, name=new_name, initializer=name_or_scope.initializer,
            regularizer=name_or_scope.regularizer, custom_getter=name_or_scope.custom_getter, name_scope=name_or_scope.original_name_scope,
            dtype=name_or_scope.dtype, partitioner=name_or_scope.partitioner, caching_device=name_or_scope.caching_device,
            constraint=name_or_scope.constraint,
        )  # fmt: skip
        saved_counts = dict(store.scope_counts)
    else:
        new_name = f"{old.name}/{name_or_scope}" if old.name else name_or_scope
        scope = VariableScope(
            reuse or old.reuse, name=new_name, initializer=old.initializer, regularizer=old.regularizer, custom_getter=old.custom_getter,
            name_scope=name_or_scope if old_name_scope is None else old_name_scope, dtype=old.dtype, partitioner=old.partitioner,
            caching_device=old.caching_device, constraint=old.constraint,
        )  # fmt: skip
        saved_counts = None
    if initializer is not None:
        scope.set_initializer(initializer)
    if regularizer is not None:
        scope.set_regularizer(regularizer)
    if custom_getter is not None:
        scope.set_custom_getter(_wrap_getter(custom_getter, scope.custom_getter))
    if dtype is not None:
        scope.set_dtype(dtype)
    store.open_scope(new_name)
    store.current = scope
    try:
        yield scope
    finally:
        store.current = old
        if saved_counts is not None:
            store.scope_counts = saved_counts
        else:
            store.close_subscopes(new_name)


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None, regularizer=None, caching_device=None,
                   partitioner=None, custom_getter=None, reuse=None, dtype=None, use_resource=None, constraint=None,
                   auxiliary_name_scope: bool = True) -> Iterator[VariableScope]:  # fmt: skip
    """Open a variable scope (and a name scope of the same name) for the block.

    ``name_or_scope`` is a name (nested under the current scope) or a ``VariableScope`` to
    re-enter; with None, ``default_name`` made unique (``blk``, ``blk_1``). ``reuse``: None
    inherits, True shares existing variables (missing ones are an error), ``AUTO_REUSE`` shares
    or creates; reuse is inherited by sub-scopes.

    >>> import ember.compat.v1 as tf
    >>> with tf.Graph().as_default():
    ...     with tf.variable_scope(None, default_name="blk") as first:
    ...         pass
    ...     with tf.variable_scope(None, default_name="blk") as second:
    ...         c = tf.get_variable("c", [1])
    >>> first.name, second.name, c.name
    ('blk', 'blk_1', 'blk_1/c:0')
    """
    if default_name is None and name_or_scope is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:
        reuse = None  # TensorFlow: scopes cannot stop inheriting reuse; False means None
    if not (reuse is None or reuse is True or reuse is AUTO_REUSE):
        raise ValueError(f"The reuse parameter must be True or False or None or tf.AUTO_REUSE, got {reuse!r}")
    if name_or_scope is not None and not isinstance(name_or_scope, (VariableScope, str)):
        raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
    if partitioner is not None:
        raise NotImplementedError("variable_scope(): partitioned variables (partitioner=) are not supported")
    graph = get_default_graph()
    store = _store(graph)
    settings = (initializer, regularizer, custom_getter, dtype)
    with contextlib.ExitStack() as stack:
        if not auxiliary_name_scope:
            current = graph.get_name_scope()
            stack.enter_context(graph.name_scope(current + "/" if current else None))
            name_scope = None
        if name_or_scope is not None:
            label = name_or_scope if isinstance(name_or_scope, str) else name_or_scope.name.split("/")[-1]
            if label or not auxiliary_name_scope:
                if auxiliary_name_scope:
                    name_scope = stack.enter_context(graph.name_scope(label))
                else:
                    name_scope = graph.get_name_scope() + "/" if graph.get_name_scope() else ""
                old_name_scope = name_scope if isinstance(name_or_scope, str) else name_or_scope.original_name_scope
                yield stack.enter_context(_pure_scope(store, name_or_scope, reuse, *settings, old_name_scope))
            else:  # entering the root scope
                yield stack.enter_context(_pure_scope(store, name_or_scope, reuse, *settings, None))
            return
        if reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        if auxiliary_name_scope:
            name_scope = stack.enter_context(graph.name_scope(default_name))
        else:
            name_scope = graph.get_name_scope() + "/" if graph.get_name_scope() else ""
        unique = _unique_scope_name(store, default_name)
        yield stack.enter_context(_pure_scope(store, unique, None, *settings, name_scope))
