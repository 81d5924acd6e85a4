"""Build the functional API, Tensor methods and operators from the schema, at import.

For every schema entry this writes the Python source of one function with the real signature
(so ``inspect.signature`` and ``help`` show it), an inline type test per argument, overload
selection, and a call to the entry's functor. All of it is one compiled module whose text is
registered with ``linecache`` under ``<ember.ops.functional>``: tracebacks show the generated
lines, and ``inspect.getsource(ember.add)`` prints them. ``generated_source()`` returns the
whole text. The compiled module is kept in a file cache (:mod:`ember.ops.codegen_cache`), keyed
by the entries and this generator's own source, so an unchanged schema is not compiled again.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass, field, replace
from types import CodeType

from .._core.dtype import DType
from .._core.shape import all_int64
from .._core.tensor import Tensor
from ..dispatch.interpreter import GENERATED_FILENAME
from . import args as _args, codegen_cache, schema as _schema
from .schema import OpEntry, Param, SchemaError, Signature, Type

__all__ = ["FILENAME", "Generated", "build", "generate_source", "generated_source"]

FILENAME = GENERATED_FILENAME  # entry_name() finds the public function on the stack by it

# Tensor dunders and how each calls its entry's function. The table is the truth: a name
# alone cannot tell __rshift__ (x >> y) from a reflected __rrshift__.
OPERATOR_KINDS = {
    "__add__": "binary", "__radd__": "reflected_commutative", "__iadd__": "inplace",
    "__sub__": "binary", "__rsub__": "reflected", "__isub__": "inplace",
    "__mul__": "binary", "__rmul__": "reflected_commutative", "__imul__": "inplace",
    "__truediv__": "binary", "__rtruediv__": "reflected", "__itruediv__": "inplace",
    "__floordiv__": "binary", "__rfloordiv__": "reflected", "__ifloordiv__": "inplace",
    "__mod__": "binary", "__rmod__": "reflected", "__imod__": "inplace",
    "__pow__": "binary", "__rpow__": "reflected", "__ipow__": "inplace",
    "__matmul__": "binary", "__rmatmul__": "reflected", "__imatmul__": "inplace",
    "__and__": "binary", "__rand__": "reflected_commutative", "__iand__": "inplace",
    "__or__": "binary", "__ror__": "reflected_commutative", "__ior__": "inplace",
    "__xor__": "binary", "__rxor__": "reflected_commutative", "__ixor__": "inplace",
    "__lshift__": "binary", "__rlshift__": "reflected", "__ilshift__": "inplace",
    "__rshift__": "binary", "__rrshift__": "reflected", "__irshift__": "inplace",
    "__eq__": "binary", "__ne__": "binary", "__lt__": "binary",
    "__le__": "binary", "__gt__": "binary", "__ge__": "binary",
    "__neg__": "unary", "__pos__": "unary", "__abs__": "unary", "__invert__": "unary",
    "__getitem__": "direct", "__setitem__": "direct",
}  # fmt: skip

# Inline fast tests per type; the converter in args.py runs only when the test fails.
_FAST_TEST = {
    "Tensor": "isinstance({n}, _e_Tensor)",
    "Int": "type({n}) is int and -0x8000000000000000 <= {n} <= 0x7FFFFFFFFFFFFFFF",  # an int64
    "Bool": "type({n}) is bool",
    "Float": "type({n}) is float",
    "Scalar": "type({n}) in _e_SCALARS",
    "String": "type({n}) is str",
    "DType": "type({n}) is _e_DType",
    "Object": "True",
}
# Which types decide between overloads, and how.
_GUARD = {
    "Tensor": "isinstance({n}, _e_Tensor)",
    "Scalar": "_e_is_scalar({n})",
    "TensorList": "_e_is_tensor_list({n})",
}

# Keyword spellings every generated function also accepts (the array API's, which PyTorch
# accepts too): sum(x, axis=0, keepdims=True) is sum(x, dim=0, keepdim=True).
KEYWORD_SPELLINGS = {"axis": "dim", "keepdims": "keepdim"}

_OUT = Param(Type("Tensor", None, True), "out", "None", True)
_MISSING = object()
_USER_CACHE = "<the user's cache directory>"  # build()'s default, resolved at each call


@dataclass
class Generated:
    """What the schema produced: public functions, Tensor attributes, and the source."""

    functions: dict = field(default_factory=dict)
    namespaces: dict = field(default_factory=dict)  # "linalg" -> {"inv": fn}
    methods: dict = field(default_factory=dict)
    source: str = ""


def _with_out(sig: Signature) -> Signature:
    if any(p.name == "out" for p in sig.params):
        return sig
    return replace(sig, params=(*sig.params, _OUT))


def _union_params(entry: OpEntry, sigs: list[Signature]) -> list[tuple[Param, object]]:
    """The Python parameters of the generated function: positional by position, keyword by
    name; a parameter that overloads default differently defaults to a sentinel."""
    positional: list[Param] = []
    for sig in sigs:
        for i, p in enumerate(sig.positional):
            if i == len(positional):
                positional.append(p)
            elif positional[i].name != p.name:
                raise SchemaError(f"{entry.name}: overloads name positional parameter {i + 1} differently ({positional[i].name!r} vs {p.name!r})")
    keyword: dict[str, Param] = {}
    for sig in sigs:
        for p in sig.keyword:
            keyword.setdefault(p.name, p)
    result = []
    for p in [*positional, *keyword.values()]:
        defaults = {q.default_text for s in sigs for q in s.params if q.name == p.name}
        present_everywhere = all(any(q.name == p.name for q in s.params) for s in sigs)
        if len(defaults) == 1 and present_everywhere:
            result.append((p, p.default_text))
        else:
            result.append((p, _MISSING))
    return result


def _convert(p: Param, position: int | None, fn: str) -> list[str]:
    """Lines that check (and canonicalize) parameter ``p`` inside the generated function."""
    n, t = p.name, p.type
    pos = position if position is not None else "None"
    converter = f"_e_args.to_{_snake(t.base)}"
    size = f", {t.size}" if t.size is not None else ""
    call = f"{n} = {converter}({n}, {fn!r}, {n!r}, {pos}{size})"
    if t.base == "IntList":
        # a tuple of plain ints (of the right length) passes as it is; all else is converted
        test = f"type({n}) is tuple and _e_all_int64({n})" + (f" and len({n}) == {t.size}" if t.size else "")
        one_int = f"type({n}) is int and -0x8000000000000000 <= {n} <= 0x7FFFFFFFFFFFFFFF"
        lines = [f"if {one_int}: {n} = ({n},) * {t.size or 1}", f"elif not ({test}): {call}"]
        if t.optional:
            return [f"if {n} is not None:", *("    " + line for line in lines)]
        return lines
    fast = _FAST_TEST.get(t.base)
    if fast == "True":
        return []
    if fast and fast.startswith("type({n}) in"):
        cond = fast.format(n=n).replace(" in ", " not in ", 1)
    else:
        cond = f"not ({fast.format(n=n)})" if fast else "True"
    if t.optional:
        cond = f"{n} is not None and {cond}" if fast else f"{n} is not None"
    return [f"if {cond}: {call}"]


def _snake(base: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in base).lstrip("_")
    return out.replace("d_type", "dtype")


def _default_literal(text: str | object | None) -> str:
    return "_e_MISSING" if text is _MISSING else str(_literal(text))


def _literal(text: str) -> str:
    value = Param(Type("Object"), "x", text).default
    return repr(value)


def _checked_by_guard(p: Param) -> bool:
    return p.type.base in ("Tensor", "TensorList")


def _branch(entry: OpEntry, sig: Signature, index: int, union: list[tuple[Param, object]], guarded: bool) -> list[str]:
    names = {p.name for p in sig.params}
    body: list[str] = []
    for p, union_default in union:
        if p.name not in names:
            continue
        mine = next(q for q in sig.params if q.name == p.name)
        if union_default is _MISSING:
            if mine.has_default:
                body.append(f"if {p.name} is _e_MISSING: {p.name} = {_literal(mine.default_text)}")
            else:
                body.append(f"if {p.name} is _e_MISSING: raise TypeError(\"{entry.name}(): missing required argument '{p.name}'\")")
    positions = {p.name: i + 1 for i, p in enumerate(sig.positional)}
    for p in sig.params:
        if guarded and _checked_by_guard(p):
            continue
        body.extend(_convert(p, positions.get(p.name), entry.name))
    call_args = ", ".join(p.name for p in sig.params)
    body.append(f"return _e_F{index}({call_args})")
    if not guarded:
        return body
    tests = []
    for p, union_default in union:
        if p.name not in names:
            tests.append(f"{p.name} is _e_MISSING")
            continue
        mine = next(q for q in sig.params if q.name == p.name)
        guard = _GUARD.get(mine.type.base)
        if guard:
            g = guard.format(n=p.name)
            # an optional left out is None, or the sentinel where other overloads lack it
            left_out = f"{p.name} is None" + (f" or {p.name} is _e_MISSING" if union_default is _MISSING and mine.has_default else "")
            tests.append(f"({left_out} or {g})" if mine.type.optional else g)
    head = f"if {' and '.join(tests) or 'True'}:  # {sig}"
    return [head, *("    " + line for line in body)]


def vararg_param(sigs: list[Signature]) -> Param | None:
    """PyTorch's rule: a required size list after nothing but tensors may be given as varargs
    (``zeros(2, 3)``, ``x.view(2, 3)``, ``x.permute(1, 0)``) as well as one sequence; so may a
    trailing tensor list (``meshgrid(x, y)``, ``einsum("ij,jk", a, b)``)."""
    if len(sigs) != 1:
        return None
    positional = sigs[0].positional
    if not positional:
        return None
    last = positional[-1]
    if last.type.size is not None or last.type.optional or last.has_default:
        return None
    if last.type.base == "TensorList":  # meshgrid(x, y), einsum("ij,jk", a, b)
        return last
    if last.type.base != "IntList" or any(p.type.base != "Tensor" for p in positional[:-1]):
        return None
    return last


def _awaited_by_spelling(union: list[tuple[Param, object]], spelled: set[str], varargs: Param | None) -> list[str]:
    """Required parameters that a keyword spelling may give instead (``cumsum(x, axis=0)``):
    they default to the sentinel, and the function says they are missing when neither came.
    Only where every positional parameter after one may be left out, as Python demands."""
    awaited = []
    for i, (p, default) in enumerate(union):
        if p.name not in spelled or default is not None or p is varargs or p.kw_only:
            continue
        if all(q.kw_only or d is not None for q, d in union[i + 1 :]):
            awaited.append(p.name)
    return awaited


def _signatures(entry: OpEntry) -> list[Signature]:
    """The entry's overloads as the generated function takes them (``out=`` added where it has one)."""
    return [(_with_out(s) if entry.out else s) for s in entry.signatures]


def _function_source(entry: OpEntry, index_base: int) -> tuple[str, list[Signature]]:
    sigs = _signatures(entry)
    union = _union_params(entry, sigs)
    varargs = vararg_param(sigs)
    names = {p.name for p, _ in union}
    spellings = [(alias, name) for alias, name in KEYWORD_SPELLINGS.items() if name in names and alias not in names]
    awaited = _awaited_by_spelling(union, {name for _, name in spellings}, varargs)
    params, star = [], False
    for p, default in union:
        if p is varargs:
            if p.type.base == "IntList":  # zeros(2, 3), zeros((2, 3)) and zeros(size=(2, 3)), as PyTorch
                params.extend((f"*_e_{p.name}", f"{p.name}=_e_MISSING"))
            else:
                params.append(f"*{p.name}")
            star = True
            continue
        if p.kw_only and not star:
            params.append("*")
            star = True
        if p.name in awaited:
            params.append(f"{p.name}=_e_MISSING")
            continue
        params.append(p.name if default is None else f"{p.name}={_default_literal(default)}")
    if spellings and not star:
        params.append("*")
    params.extend(f"{alias}=_e_MISSING" for alias, _ in spellings)
    lines = [f"def {entry.python_name}({', '.join(params)}):"]
    lines.append(f"    {_docstring(entry)}")
    for alias, name in spellings:
        lines.append(f"    if {alias} is not _e_MISSING: {name} = {alias}  # the array API's spelling")
    for name in awaited:
        missing = f'{entry.name}() missing 1 required positional arguments: "{name}"'
        lines.append(f"    if {name} is _e_MISSING: raise TypeError({missing!r})")
    if varargs is not None:
        n = varargs.name
        if varargs.type.base == "TensorList":
            lines.append(f"    if len({n}) == 1 and not isinstance({n}[0], _e_Tensor): {n} = {n}[0]  # one sequence, or varargs")
        else:
            lines.append(f"    if {n} is _e_MISSING: {n} = _e_{n}")
            multiple = f"{entry.name}() got multiple values for argument '{n}'"
            lines.append(f"    elif _e_{n}: raise TypeError({multiple!r})")
            lines.append(f"    else: {n} = ({n},)  # by keyword: one value, a sequence or an int")
            lines.append(f"    if len({n}) == 1 and type({n}[0]) is not int: {n} = {n}[0]  # one sequence, or varargs")
            # zero varargs is the size left out, not an empty size (that is ``ones(())``)
            missing = f'{entry.name}() missing 1 required positional arguments: "{n}"'
            spelled = "axis" in names and n == "dims"  # flip(x, axis=0): the array API's spelling gives it
            lines.append(f"    elif not {n}{' and axis is None' if spelled else ''}: raise TypeError({missing!r})")
    guarded = len(sigs) > 1
    for i, sig in enumerate(sigs):
        lines.extend("    " + line for line in _branch(entry, sig, index_base + i, union, guarded))
    if guarded:
        got = ", ".join(p.name for p, _ in union)
        defaults = [None if d is _MISSING or d is None else Param(Type("Object"), "x", d).default for p, d in union]
        lines.append(f"    raise _e_no_overload({entry.name!r}, _e_SIGS{index_base}, ({got},), {defaults!r})")
    return "\n".join(lines), sigs


def _docstring(entry: OpEntry) -> str:
    text = entry.doc.strip()
    sigs = "\n".join(f"    {s}" for s in entry.signatures)
    full = f"{text}\n\nSchema:\n{sigs}\n" if text else f"Schema:\n{sigs}\n"
    return repr(full).replace("\\n", "\n    ") if "'''" in full else '"""' + full.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').replace("\n", "\n    ") + '"""'


def no_overload(name: str, sigs: list[Signature], values: tuple, defaults: list) -> TypeError:
    # Show what the caller gave, as PyTorch does: arguments left at their defaults are omitted.
    given = [v for v, d in zip(values, defaults, strict=True) if v is not _MISSING and v is not None and not (type(v) is type(d) and v == d)]
    got = ", ".join(_args._typename(v) for v in given)
    expected = "\n".join(f" * ({str(s).split('(', 1)[1].rsplit(')', 1)[0]})" for s in sigs)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n{expected}")


def _direct_calls(sigs: list[Signature], index_base: int) -> dict[str, str]:
    """For a binary operator: the functor call per type of ``other`` that needs no argument
    checks (``self`` is a Tensor, ``other`` passed the type test), skipping one layer."""
    calls = {}
    for i, sig in enumerate(sigs):
        pos = sig.positional
        if len(pos) < 2 or pos[0].type.base != "Tensor" or any(not p.has_default for p in sig.params[2:]):
            continue
        base = pos[1].type.base
        if base in ("Tensor", "Scalar") and base not in calls:
            rest = [_literal(p.default_text) for p in sig.params[2:]]
            calls[base] = f"_e_F{index_base + i}({', '.join(['self', 'other', *rest])})"
    return calls


def _operator_source(dunder: str, kind: str, entry: OpEntry, calls: dict[str, str]) -> str:
    fn = entry.python_name
    fast = []
    if "Tensor" in calls and kind == "binary":
        fast.append(f"    if isinstance(other, _e_Tensor): return {calls['Tensor']}")
    if "Scalar" in calls and kind in ("binary", "reflected_commutative"):
        fast.append(f"    if type(other) in _e_SCALARS: return {calls['Scalar']}")
    fast = "\n".join(fast) + "\n" if fast else ""
    # Before declining: a str or bytes next to a string tensor is a 0-d string tensor.
    text = "    text = _e_string_operand(other, self)\n"
    decline = "    return NotImplemented"
    if kind == "binary":
        return (
            f"def {dunder}(self, other):\n{fast}"
            f"    if isinstance(other, _e_Tensor) or _e_is_scalar(other): return {fn}(self, other)\n"
            f"{text}    if text is not None: return {fn}(self, text)\n{decline}"
        )
    if kind == "reflected_commutative":
        return (
            f"def {dunder}(self, other):\n{fast}    if _e_is_scalar(other): return {fn}(self, other)\n"
            f"{text}    if text is not None: return {fn}(self, text)\n{decline}"
        )
    if kind == "reflected":
        return (
            f"def {dunder}(self, other):\n"
            f"    if _e_is_scalar(other): return {fn}(_e_scalar_tensor_like(other, self), self)\n"
            f"{text}    if text is not None: return {fn}(text, self)\n{decline}"
        )
    if kind == "inplace":
        if not entry.inplace:
            raise SchemaError(f"{entry.name}: operator {dunder} needs an in-place variant ('inplace' key)")
        return f"def {dunder}(self, other):\n    return {entry.inplace}(self, other)"
    if kind == "unary":
        return f"def {dunder}(self):\n    return {fn}(self)"
    raise SchemaError(f"unknown operator kind {kind!r}")


def _inplace_source(entry: OpEntry, sigs: list[Signature]) -> str:
    """``relu_(x)`` calls ``relu(x, inplace=True)``; without an ``inplace`` parameter,
    ``add_(a, b)`` calls ``add(a, b, out=a)``."""
    sig = sigs[0]
    first = sig.positional[0].name
    names = [p for p in _union_params(entry, sigs) if p[0].name not in ("inplace", "out")]
    params, star = [], False
    for p, default in names:
        if p.kw_only and not star:
            params.append("*")
            star = True
        params.append(p.name if default is None else f"{p.name}={_default_literal(default)}")
    call = ", ".join(f"{p.name}={p.name}" if p.kw_only else p.name for p, _ in names)
    has_inplace = any(p.name == "inplace" for s in sigs for p in s.params)
    if has_inplace:
        tail = "inplace=True"
    elif entry.out:
        tail = f"out={first}"
    else:
        raise SchemaError(f"{entry.name}: an in-place variant needs a 'Bool inplace' parameter or out=True")
    doc = f'"""In-place :func:`{entry.name}`: writes the result into ``{first}`` and returns it."""'
    return f"def {entry.inplace}({', '.join(params)}):\n    {doc}\n    return {entry.python_name}({call}, {tail})"


def build(entries: tuple[OpEntry, ...], functors: dict, cache: str | None = _USER_CACHE) -> Generated:
    """Generate and compile the functional API for ``entries``.

    The compiled module is read from, or written to, the file cache in directory ``cache``
    (:mod:`ember.ops.codegen_cache`; the user's cache directory by default, None for none).
    """
    if cache is _USER_CACHE:
        cache = codegen_cache.cache_dir()
    namespace: dict = {
        "_e_Tensor": Tensor,
        "_e_DType": DType,
        "_e_SCALARS": _args.SCALAR_TYPES,
        "_e_args": _args,
        "_e_is_scalar": _args.is_scalar,
        "_e_is_tensor_list": _args.is_tensor_list,
        "_e_scalar_tensor_like": _args.scalar_tensor_like,
        "_e_string_operand": _args.string_operand,
        "_e_no_overload": no_overload,
        "_e_MISSING": _MISSING,
        "_e_all_int64": all_int64,
        "__name__": "ember.ops.functional",
    }
    index = 0
    for entry in entries:
        sigs = _signatures(entry)
        for i, sig in enumerate(sigs):
            if sig.functor not in functors:
                raise SchemaError(f"{entry.name}: no functor registered as {sig.functor!r}")
            namespace[f"_e_F{index + i}"] = functors[sig.functor]
        namespace[f"_e_SIGS{index}"] = sigs
        index += len(sigs)
    source, code = _compiled(entries, cache)
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(keepends=True), FILENAME)
    exec(code, namespace)
    generated = Generated(source=source)
    for entry in entries:
        fn = namespace[entry.python_name]
        target = generated.namespaces.setdefault(entry.namespace, {}) if entry.namespace else generated.functions
        target[entry.short_name] = fn
        for alias in entry.aliases:
            target[alias] = fn
        if entry.inplace:
            generated.functions[entry.inplace] = namespace[entry.inplace]
        _bind_methods(entry, namespace, generated)
    global _SOURCE
    _SOURCE = source
    return generated


def _compiled(entries: tuple[OpEntry, ...], cache: str | None) -> tuple[str, CodeType]:
    """The module's text and code: from the file cache when it holds them, else written and compiled
    here (and stored, when ``cache`` is a directory that can be written)."""
    # The files whose code writes the text: a change to either gives another cache key.
    key = None if cache is None else codegen_cache.cache_key(entries, (__file__, _schema.__file__), FILENAME)
    if key is not None:
        hit = codegen_cache.load(cache, key)
        if hit is not None:
            return hit
    source = generate_source(entries)
    code = compile(source, FILENAME, "exec")
    if key is not None:
        codegen_cache.store(cache, key, source, code)
    return source, code


def generate_source(entries: tuple[OpEntry, ...]) -> str:
    """The text of the functional API for ``entries``: every function, in-place variant and operator."""
    chunks: list[str] = []
    index = 0
    for entry in entries:
        source, sigs = _function_source(entry, index)
        index += len(sigs)
        chunks.append(source)
        if entry.inplace:
            chunks.append(_inplace_source(entry, sigs))
        for dunder in entry.operators:
            kind = OPERATOR_KINDS.get(dunder)
            if kind is None:
                raise SchemaError(f"{entry.name}: {dunder!r} is not an operator ember binds (known: {', '.join(OPERATOR_KINDS)})")
            if kind != "direct":
                chunks.append(_operator_source(dunder, kind, entry, _direct_calls(sigs, index - len(sigs))))
    return "\n\n\n".join(chunks) + "\n"


def _bind_methods(entry: OpEntry, namespace: dict, generated: Generated) -> None:
    fn = namespace[entry.python_name]
    if entry.method:
        first = entry.signatures[0].positional
        if not first or first[0].type.base != "Tensor":
            raise SchemaError(f"{entry.name}: a Tensor method needs a Tensor as its first parameter")
        if entry.method == "property":
            generated.methods[entry.short_name] = property(fn)
        else:
            generated.methods[entry.method_name] = fn
            for alias in entry.aliases:
                generated.methods[alias] = fn
            if entry.inplace:
                generated.methods[entry.inplace] = namespace[entry.inplace]
    for dunder in entry.operators:
        kind = OPERATOR_KINDS[dunder]
        generated.methods[dunder] = fn if kind == "direct" else namespace[dunder]


_SOURCE = ""


def generated_source() -> str:
    """The text of every generated function (what tracebacks and ``inspect`` show)."""
    return _SOURCE
