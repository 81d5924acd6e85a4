"""Session: runs the part of a graph that fetches need, with values fed for placeholders.

``run(fetches, feed_dict)`` takes a tensor, an operation, a name, or lists, tuples, dicts and
namedtuples nesting them, and returns the same structure of NumPy values (an operation gives
None, a 0-d result a NumPy scalar such as ``numpy.float32``). Each distinct (fetches, fed
tensors) signature compiles once into a ``Plan``; later runs reuse it. Variables' values live
in the session, so they persist from one ``run`` to the next.

Composite types made of graph tensors (``ember.sparse.SparseTensor``) are fetched and fed
through :func:`register_session_run_conversion_functions` (TensorFlow 1's name): the part that
defines the type registers how it expands, so this module needs no knowledge of it.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, tensor
from ..dispatch.interpreter import EAGER, interpreter_scope
from ..interop.numpy import from_numpy
from .errors import FailedPreconditionError, InvalidArgumentError, OpError, from_exception
from .graph import Graph, Operation, get_default_graph, in_graph_scope, pop_default_session, push_default_session
from .lazy import is_tracing
from .passes import optimize as run_passes
from .run.plan import Plan
from .run.specialize import specialize
from .run_metadata import finish as finish_run_metadata, prepare as prepare_run_options
from .tensor import GraphTensor

__all__ = ["InteractiveSession", "Session", "compile_plan", "register_session_run_conversion_functions"]


# -- composite fetches and feeds ---------------------------------------------------------------

_CONVERSIONS: list = []  # (type, fetch_function, feed_function), latest registration first
_FEED_TYPES: tuple = ()  # the registered types that can be fed: one isinstance per feed key


def register_session_run_conversion_functions(tensor_type: type, fetch_function, feed_function=None) -> None:
    """Teach ``Session.run`` to fetch (and feed) ``tensor_type``, a composite of graph tensors.

    ``fetch_function(fetch)`` returns ``(component fetches, contract)``: the session fetches the
    components and returns ``contract(their values)``. ``feed_function(key, value)``, if given,
    returns the ``(component tensor, value)`` pairs that feeding ``value`` for ``key`` means.
    ``ember.sparse`` registers ``SparseTensor`` this way. A type is registered once.

    >>> import ember
    >>> class Pair:
    ...     def __init__(self, first, second):
    ...         self.first, self.second = first, second
    >>> register_session_run_conversion_functions(
    ...     Pair, lambda p: ([p.first, p.second], tuple), lambda p, value: [(p.first, value[0]), (p.second, value[1])])
    >>> with ember.Graph().as_default() as g:
    ...     pair = Pair(ember.placeholder(ember.float32, shape=()), ember.placeholder(ember.float32, shape=()))
    ...     total = pair.first + pair.second
    >>> ember.Session(graph=g).run([total, pair], feed_dict={pair: (1.0, 2.0)})
    [np.float32(3.0), (np.float32(1.0), np.float32(2.0))]
    """
    global _FEED_TYPES
    if not isinstance(tensor_type, type):
        raise TypeError(f"register_session_run_conversion_functions(): tensor_type must be a class, got {type(tensor_type).__name__}")
    if not callable(fetch_function) or (feed_function is not None and not callable(feed_function)):
        raise TypeError("register_session_run_conversion_functions(): fetch_function and feed_function must be callable")
    for registered, _, _ in _CONVERSIONS:
        if issubclass(registered, tensor_type):
            raise ValueError(f"{tensor_type.__name__} is already registered with Session.run (as {registered.__name__})")
    _CONVERSIONS.insert(0, (tensor_type, fetch_function, feed_function))
    _FEED_TYPES = tuple(kind for kind, _, feed in _CONVERSIONS if feed is not None)


def _conversion(obj):
    for kind, fetch_function, feed_function in _CONVERSIONS:
        if isinstance(obj, kind):
            return fetch_function, feed_function
    return None


def _expand_feeds(feed_dict: dict) -> dict:
    """A feed dict whose composite keys (of registered types) feed their component tensors."""
    out = {}
    for key, value in feed_dict.items():
        if not isinstance(key, _FEED_TYPES):
            out[key] = value
            continue
        _, feed_function = _conversion(key)
        for component, component_value in feed_function(key, value):
            out[component] = component_value
    return out


class _Fetch:
    """The flat list of what a fetch structure asks for, and how to rebuild the structure."""

    __slots__ = ("build", "ops", "tensors")

    def __init__(self, graph: Graph, fetches) -> None:
        self.tensors: list = []
        self.ops: list = []
        self.build = self._parse(graph, fetches)

    def _parse(self, graph: Graph, fetch):
        if fetch is None:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or Tensor. (Can not convert a NoneType into a Tensor or Operation.)")
        if isinstance(fetch, (list, tuple)) and not isinstance(fetch, Tensor):
            parts = [self._parse(graph, f) for f in fetch]
            if hasattr(fetch, "_fields"):  # a namedtuple
                return lambda values: type(fetch)(*[p(values) for p in parts])
            kind = type(fetch)
            return lambda values: kind(p(values) for p in parts)
        if isinstance(fetch, dict):
            parts = {k: self._parse(graph, v) for k, v in fetch.items()}
            kind = type(fetch)
            return lambda values: kind((k, p(values)) for k, p in parts.items())
        conversion = _conversion(fetch) if _CONVERSIONS else None
        if conversion is not None:
            components, contract = conversion[0](fetch)
            parts = [self._parse(graph, f) for f in components]
            return lambda values: contract([p(values) for p in parts])
        element = _element(graph, fetch)
        if isinstance(element, Operation):
            self.ops.append(element)
            return lambda values: None
        i = len(self.tensors)
        self.tensors.append(element)
        return lambda values: values[i]


def _element(graph: Graph, fetch):
    try:
        return graph.as_graph_element(fetch)
    except (KeyError, ValueError) as error:
        raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({error.args[0]})") from None
    except TypeError as error:
        raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or Tensor. ({error})") from None


class Session:
    """Runs operations of one graph; holds the values of its variables."""

    def __init__(self, target: str = "", graph: Graph | None = None, config=None, *, optimize: bool = True, specialize: bool = True) -> None:
        """``optimize``: plans run on the graph after the passes (``ember.graph.optimize``);
        ``specialize``: each run's plan becomes a static array plan for its fed shapes where it
        can (``run/specialize.py``). Both on by default; off gives the plain node-by-node executor."""
        if target:
            raise ValueError(f"Session(): remote targets are not supported here (target={target!r}); use ''")
        # A session made outside any graph scope, with the process's default graph empty,
        # adopts the graph of its first fetch (so a graph built in a `with` block runs after it).
        self._graph = graph if graph is not None else (get_default_graph() if in_graph_scope() or get_default_graph()._ops else None)
        self._variables: dict = {}
        self._plans: dict = {}
        self._closed = False
        self._started = False  # whether the graph's session_start_hooks ran for this session
        self._default_ctx = None
        self._optimize = optimize
        self._specialize = specialize

    @property
    def graph(self) -> Graph | None:
        return self._graph

    # -- running -----------------------------------------------------------------------------

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """The values of ``fetches`` (same structure), after running what they need.

        >>> import ember
        >>> with ember.Graph().as_default() as g:
        ...     a = ember.placeholder(ember.float32, shape=())
        ...     b = a * 2.0
        ...     c = b + 1.0
        >>> ember.Session(graph=g).run({"a": a, "pair": (b, c)}, feed_dict={a: 3.0})
        {'a': np.float32(3.0), 'pair': (np.float32(6.0), np.float32(7.0))}

        ``options`` (a ``RunOptions``) may ask for a trace of the nodes and a deadline, which
        ``run_metadata`` (a ``RunMetadata``) then reports (``run_metadata.py``).
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        tracer = None
        if options is not None or run_metadata is not None:
            options, tracer = prepare_run_options(options, run_metadata)
        graph = self._graph
        if graph is None:
            graph = self._graph = _first_graph(fetches) or get_default_graph()
        if not self._started:
            self._started = True
            for hook in graph.session_start_hooks:
                hook()
        key = _fetch_key(fetches)
        if feed_dict and _FEED_TYPES and any(isinstance(k, _FEED_TYPES) for k in feed_dict):
            feed_dict = _expand_feeds(feed_dict)
        feed_keys = () if not feed_dict else tuple(feed_dict)
        cached = self._plans.get((key, tuple(map(_feed_key, feed_keys)), graph.version)) if key is not None else None
        if cached is None:
            fetch = _Fetch(graph, fetches)
            feeds = [_feed_target(graph, k) for k in feed_keys]
            plan = compile_plan(graph, fetch.tensors, fetch.ops, feeds, self._optimize)
            plan.check_feeds = _missing_feed_check(plan, feeds)
            cached = (fetch, feeds, plan)
            if key is not None:
                self._plans[(key, tuple(map(_feed_key, feed_keys)), graph.version)] = cached
        fetch, feeds, plan = cached
        values = [_feed_value(t, feed_dict[k]) for t, k in zip(feeds, feed_keys, strict=True)] if feeds else []
        try:
            results = self._execute(plan, values, tracer)
        except OpError as error:  # name the user's operation, not its copy in the optimized graph
            _blame_own_op(error, graph)
            raise
        if run_metadata is not None:
            finish_run_metadata(run_metadata, tracer, plan, options)
        arrays, handed = [], set()
        for r, fresh in zip(results, plan.fetch_fresh, strict=True):
            arrays.append(_to_numpy(r, fresh and id(r) not in handed))  # one fresh result fetched twice: one copy
            handed.add(id(r))
        return fetch.build(arrays)

    def _execute(self, plan: Plan, values: list, tracer) -> list:
        if plan.check_feeds is not None:
            plan.check_feeds()
        if tracer is not None:  # node by node, each reported to the tracer
            run = functools.partial(plan.run, monitor=tracer, tf_errors=True)
        else:
            runner = specialize(plan, values) if self._specialize else None
            run = functools.partial(plan.run, tf_errors=True) if runner is None else runner.run
        try:
            if not is_tracing():
                return run(self, values)
            with interpreter_scope(EAGER):  # run inside a graph scope: the plan's own ops must run, not be recorded
                return run(self, values)
        except (RuntimeError, ValueError, IndexError) as error:  # a static plan's kernel: TensorFlow's error, no node known
            if isinstance(error, OpError):
                raise
            raise from_exception(error) from error

    def _set_variable(self, var, value) -> None:
        self._variables[var.op] = _feed_value(var, value)

    def read_variable(self, var) -> Tensor:
        """The value ``var`` holds in this session, as an ember tensor (the session's own, not
        a copy), which is what a save reads; FailedPreconditionError before its initializer ran."""
        value = self._variables.get(var.op)
        if value is None:
            raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {var.op.name}")
        return value

    # -- lifetime ------------------------------------------------------------------------------

    def close(self) -> None:
        self._closed = True
        self._variables.clear()
        self._plans.clear()

    def __enter__(self) -> Session:
        if self._default_ctx is None:
            self._default_ctx = self.as_default()
            self._default_ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._default_ctx is not None:
            ctx, self._default_ctx = self._default_ctx, None
            ctx.__exit__(*exc)
        self.close()

    @contextlib.contextmanager
    def as_default(self):
        """Make this the default session (for ``Tensor.eval`` and ``Operation.run``) in the block;
        with a graph, also its default graph."""
        push_default_session(self)
        try:
            if self._graph is not None and not (in_graph_scope() and get_default_graph() is self._graph):
                with self._graph.as_default():
                    yield self
            else:
                yield self
        finally:
            pop_default_session()

    def __repr__(self) -> str:
        return f"<ember.Session graph={self._graph!r}{' closed' if self._closed else ''}>"


class InteractiveSession(Session):
    """A session that makes itself the default on creation (for shells and notebooks)."""

    def __init__(self, target: str = "", graph: Graph | None = None, config=None, **options) -> None:
        super().__init__(target, graph, config, **options)
        push_default_session(self)

    def close(self) -> None:
        pop_default_session(self)
        super().close()


# -- fetch and feed helpers --------------------------------------------------------------


def _fetch_key(fetches):
    """A hashable key for a fetch structure made of graph elements (None: don't cache)."""
    if isinstance(fetches, (GraphTensor, Operation, str)):
        return (type(fetches), id(fetches)) if not isinstance(fetches, str) else fetches
    if isinstance(fetches, (list, tuple)):
        parts = tuple(_fetch_key(f) for f in fetches)
        return None if None in parts else (type(fetches), parts)
    if isinstance(fetches, dict):
        parts = tuple((k, _fetch_key(v)) for k, v in fetches.items())
        return None if any(p is None for _, p in parts) else (type(fetches), parts)
    return None


def _blame_own_op(error: OpError, graph: Graph) -> None:
    """Point an error raised by a plan at the operation of ``graph`` it came from (a plan may
    run an optimized copy, whose operations keep the original names)."""
    op = error.op
    if op is not None and getattr(op, "graph", graph) is not graph:
        own = graph._by_name.get(op.name)
        error._op, error._node_def = own if own is not None else op, None


def _feed_key(key):
    return key if isinstance(key, str) else id(key)


def _first_graph(fetches):
    if isinstance(fetches, (GraphTensor, Operation)):
        return fetches.graph
    if isinstance(fetches, dict):
        fetches = list(fetches.values())
    if isinstance(fetches, (list, tuple)):
        for f in fetches:
            g = _first_graph(f)
            if g is not None:
                return g
    conversion = _conversion(fetches) if _CONVERSIONS else None
    if conversion is not None:
        return _first_graph(list(conversion[0](fetches)[0]))
    return None


def _feed_target(graph: Graph, key) -> GraphTensor:
    try:
        t = graph.as_graph_element(key, allow_operation=False)
    except (KeyError, ValueError, TypeError) as error:
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {error.args[0] if error.args else error}") from None
    return t


def _feed_value(t: GraphTensor, value) -> Tensor:
    """A fed value as an ember tensor of the tensor's dtype, its shape checked."""
    dtype = t._dtype
    if (type(value) is np.ndarray and value.dtype == dtype.numpy_dtype and value.flags.c_contiguous and value.flags.writeable
            and dtype is not _dt.string):
        x = from_numpy(value)  # the common case: no conversion, no copy
    elif isinstance(value, GraphTensor):
        raise TypeError(
            f"The value of a feed cannot be a graph Tensor ({value.name}). Acceptable feed values include Python scalars, "
            f"strings, lists, numpy ndarrays, or ember tensors."
        )
    elif isinstance(value, Tensor):
        x = value if value._dtype is dtype else value.to(dtype)
    elif dtype is _dt.string:  # str and bytes, nested in lists or NumPy arrays: encoded as ember.tensor does
        try:
            x = tensor(value, dtype=dtype)
        except (TypeError, ValueError) as error:
            raise TypeError(f"Cannot feed value {value!r} for Tensor {t.name!r} of dtype {dtype.name}: {error}") from None
    else:
        try:
            array = np.asarray(value, dtype=dtype.numpy_dtype)
        except (TypeError, ValueError) as error:
            raise TypeError(f"Cannot feed value {value!r} for Tensor {t.name!r} of dtype {dtype.name}: {error}") from None
        x = from_numpy(array if array.flags.writeable else array.copy())
    if not x.is_contiguous():  # graph tensors are laid out as kernels make them: contiguous
        x = x.contiguous()
    dims = t._static._dims
    shape = x._shape
    if dims is not None and (len(dims) != len(shape) or any(d is not None and d != s for d, s in zip(dims, shape, strict=True))):
        raise ValueError(f"Cannot feed value of shape {tuple(shape)} for Tensor {t.name!r}, which has shape {t._static}")
    return x


def _missing_feed_check(plan: Plan, feeds: list):
    """A check that every placeholder the plan reaches is fed (None when there is none)."""
    missing = [step.op for step in plan.steps if step.kind == "Placeholder"]
    if not missing:
        return None
    op = missing[0]
    dims = op.attrs["shape"]
    shape = "<unknown>" if dims.rank is None else "[" + ",".join("?" if d is None else str(d) for d in dims.as_list()) + "]"

    def check() -> None:
        raise InvalidArgumentError(
            None,
            op,
            f"You must feed a value for placeholder tensor '{op.name}' with dtype {op.attrs['dtype'].name} and shape {shape}\n"
            f"\t [[node {op.name}]]"
        )

    return check


def _to_numpy(value, fresh: bool):
    array = value._host_array()
    if not fresh or value._dtype is _dt.string:
        array = array.copy()  # a variable's, a constant's, a feed's memory or a view of it: the caller gets its own
    if array.ndim == 0:
        return array[()]
    return array


def compile_plan(graph: Graph, fetch_tensors: list, target_ops: list, feeds: list, optimize: bool = True) -> Plan:
    """The plan computing ``fetch_tensors`` and running ``target_ops`` with ``feeds`` fed: on the
    copy of ``graph`` that the passes optimized (``ember.graph.optimize``), unless ``optimize``
    is False."""
    if not optimize:
        return Plan(graph, fetch_tensors, target_ops, feeds)
    new, tmap = run_passes(graph, fetch_tensors + target_ops, feeds)
    return Plan(new, [tmap[id(t)] for t in fetch_tensors], [tmap[id(o)] for o in target_ops], [tmap[id(t)] for t in feeds])
