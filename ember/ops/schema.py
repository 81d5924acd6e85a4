"""The op schema: signatures in the OneFlow/PyTorch grammar, parsed into frozen dataclasses.

One entry is one public function, declared in the module that implements it, right above its
functor, with ``declare(name, signature, **keys)``. Its ``signature`` (or list of overloads)
reads like OneFlow's ``functional_api.yaml``::

    "Tensor (Tensor x, *, Bool inplace=False) => Relu"

return type, parameters (``*`` starts the keyword-only ones), and after ``=>`` the functor
that implements it. Every parsed object prints back to exactly the text it came from, so the
schema can be checked, rewritten and shown in docs without drift.

>>> sig = Signature.parse("Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Add")
>>> str(sig)
'Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Add'
>>> [p.name for p in sig.params], sig.params[2].kw_only, sig.params[2].default
(['input', 'other', 'alpha'], True, 1)
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["BASE_TYPES", "OpEntry", "Param", "Return", "SchemaError", "Signature", "Type", "load_schema", "parse_entry", "schema_family", "tf_op_table"]

# The parameter types of the grammar and what a caller may pass for each.
BASE_TYPES = {
    "Tensor": "a Tensor",
    "TensorList": "a sequence of Tensors",
    "Scalar": "a number (bool, int, float or complex)",
    "ScalarList": "a sequence of numbers",
    "Int": "an int",
    "IntList": "an int or a sequence of ints",
    "Float": "a float",
    "FloatList": "a float or a sequence of floats",
    "Bool": "a bool",
    "String": "a str",
    "DType": "an ember dtype",
    "Device": "a device or device string",
    "Generator": "an ember.Generator",
    "Object": "any Python object",
}
RETURN_TYPES = ("Tensor", "TensorList", "Scalar", "Bool", "Int", "Void")


class SchemaError(ValueError):
    """A schema entry that does not follow the grammar."""


@dataclass(frozen=True)
class Type:
    """``Int``, ``IntList[2]``, ``Tensor?``: a base type, a fixed list length, optionality."""

    base: str
    size: int | None = None
    optional: bool = False

    @staticmethod
    def parse(text: str) -> Type:
        m = re.fullmatch(r"([A-Za-z]+)(?:\[(\d+)\])?(\?)?", text)
        if m is None or m.group(1) not in BASE_TYPES:
            raise SchemaError(f"unknown type {text!r} (known: {', '.join(BASE_TYPES)})")
        base, size, optional = m.group(1), m.group(2), m.group(3)
        if size is not None and not base.endswith("List"):
            raise SchemaError(f"only list types take a length, got {text!r}")
        return Type(base, int(size) if size else None, optional == "?")

    def __str__(self) -> str:
        size = f"[{self.size}]" if self.size is not None else ""
        return f"{self.base}{size}{'?' if self.optional else ''}"


_NO_DEFAULT = object()


@dataclass(frozen=True)
class Param:
    """One parameter: ``Scalar alpha=1``. ``default_text`` keeps the default as written."""

    type: Type
    name: str
    default_text: str | None = None
    kw_only: bool = False

    @property
    def has_default(self) -> bool:
        return self.default_text is not None

    @property
    def default(self):
        return _parse_default(self.default_text) if self.default_text is not None else _NO_DEFAULT

    @staticmethod
    def parse(text: str, kw_only: bool) -> Param:
        m = re.fullmatch(r"(\S+)\s+([A-Za-z_]\w*)(?:=(.+))?", text.strip())
        if m is None:
            raise SchemaError(f"cannot parse parameter {text!r} (expected 'Type name' or 'Type name=default')")
        param = Param(Type.parse(m.group(1)), m.group(2), m.group(3), kw_only)
        if param.default_text is not None:
            _parse_default(param.default_text)  # fail now on a default that is not a literal
        return param

    def __str__(self) -> str:
        default = f"={self.default_text}" if self.default_text is not None else ""
        return f"{self.type} {self.name}{default}"


def _parse_default(text: str):
    if text in ("inf", "-inf"):
        return float(text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise SchemaError(f"default {text!r} is not a Python literal") from exc
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class Return:
    """The result: ``Tensor``, or a named tuple ``(Tensor values, Tensor indices)``."""

    types: tuple[str, ...]
    names: tuple[str, ...] | None = None  # names make a named tuple, as torch.return_types
    tuple_: bool = False

    @staticmethod
    def parse(text: str) -> Return:
        text = text.strip()
        if not text.startswith("("):
            if text not in RETURN_TYPES:
                raise SchemaError(f"unknown return type {text!r} (known: {', '.join(RETURN_TYPES)})")
            return Return((text,))
        parts = [p.split() for p in text[1:-1].split(",")]
        types = tuple(p[0] for p in parts)
        for t in types:
            if t not in RETURN_TYPES:
                raise SchemaError(f"unknown return type {t!r} in {text!r}")
        named = [len(p) == 2 for p in parts]
        if any(named) and not all(named):
            raise SchemaError(f"name all results or none in {text!r}")
        names = tuple(p[1] for p in parts) if all(named) else None
        return Return(types, names, True)

    def __str__(self) -> str:
        if not self.tuple_:
            return self.types[0]
        if self.names is None:
            return f"({', '.join(self.types)})"
        return f"({', '.join(f'{t} {n}' for t, n in zip(self.types, self.names, strict=True))})"


@dataclass(frozen=True)
class Signature:
    """``Tensor (Tensor x, *, Bool inplace=False) => Relu``."""

    returns: Return
    params: tuple[Param, ...]
    functor: str

    @staticmethod
    def parse(text: str) -> Signature:
        m = re.fullmatch(r"\s*(\(.*?\)|\w+)\s*\((.*)\)\s*=>\s*(\w+)\s*", text)
        if m is None:
            raise SchemaError(f"cannot parse signature {text!r} (expected 'Returns (params) => Functor')")
        params: list[Param] = []
        kw_only = False
        for piece in _split_params(m.group(2)):
            if piece == "*":
                if kw_only:
                    raise SchemaError(f"two '*' markers in {text!r}")
                kw_only = True
                continue
            params.append(Param.parse(piece, kw_only))
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise SchemaError(f"repeated parameter name in {text!r}")
        seen_default = False
        for p in params:
            if p.kw_only:
                break
            if seen_default and not p.has_default:
                raise SchemaError(f"positional parameter {p.name!r} without a default follows one with a default in {text!r}")
            seen_default = seen_default or p.has_default
        return Signature(Return.parse(m.group(1)), tuple(params), m.group(3))

    def __str__(self) -> str:
        pieces = []
        star = False
        for p in self.params:
            if p.kw_only and not star:
                pieces.append("*")
                star = True
            pieces.append(str(p))
        return f"{self.returns} ({', '.join(pieces)}) => {self.functor}"

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not p.kw_only)

    @property
    def keyword(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kw_only)


def _split_params(text: str) -> list[str]:
    """Split on commas outside brackets (defaults may be lists: ``IntList dims=[0, 1]``)."""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    if last:
        pieces.append(last)
    return pieces


# Keys of an entry besides name and signature, with their defaults.
ENTRY_KEYS = {
    "method": False,  # also a Tensor method (True, or the method's name)
    "inplace": None,  # name of the in-place variant, e.g. relu_
    "out": False,  # accepts out=
    "differentiable": True,
    "strided": True,  # the kernel accepts non-contiguous inputs
    "composite": False,  # written with other ops: no kernel, no derivative of its own
    "op": None,  # the primitive op type(s) a primitive's functor dispatches (default: the name)
    "aliases": (),  # other public names of the same function (array API / PyTorch spellings)
    "operators": (),  # Tensor dunder methods bound to this function (__add__, __radd__, __iadd__)
    # other public namespaces that also show it, e.g. "nn.functional" (PyTorch's F.relu); "special:expit"
    # shows it there under another name (torch.special.expit is torch.sigmoid)
    "namespaces": (),
    # TensorFlow's op type of the primitives, as graph nodes carry it: "MatMul", or "AddV2:add" where
    # TensorFlow's Python wrapper names the node otherwise (the default name of "a + b" is "add");
    # a dict gives each primitive its own ({"div": "RealDiv:truediv", "div_trunc": "TruncateDiv"})
    "tf": None,
    "doc": "",
}


@dataclass(frozen=True)
class OpEntry:
    """One schema entry: a public function, its overloads and how it is bound."""

    name: str
    signatures: tuple[Signature, ...]
    method: bool | str = False
    inplace: str | None = None
    out: bool = False
    differentiable: bool = True
    strided: bool = True
    composite: bool = False
    op: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()
    tf: str | tuple[tuple[str, str], ...] | None = None
    doc: str = ""
    family: str = field(default="", compare=False)
    # The keys it was parsed from, as text: a cheap fingerprint of the whole entry (see fingerprint())
    declared: str = field(default="", init=False, repr=False, compare=False)

    def fingerprint(self) -> str:
        """Text that changes whenever any field does: the keys the entry was parsed from (with this
        module's source, they determine it), or its full repr for an entry made otherwise."""
        return self.declared or repr(self)

    @property
    def namespace(self) -> str:
        """``linalg`` for ``linalg.inv`` (public as ``ember.linalg.inv``); '' for top level."""
        return self.name.rpartition(".")[0]

    @property
    def short_name(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def python_name(self) -> str:
        """The generated function's name: ``linalg_inv`` for ``linalg.inv``."""
        return self.name.replace(".", "_")

    @property
    def method_name(self) -> str | None:
        if self.method is True:
            return self.short_name
        return self.method or None

    @property
    def primitives(self) -> tuple[str, ...]:
        """The op types this entry's functor dispatches (none for a composite)."""
        if self.composite:
            return ()
        return self.op or (self.name,)

    def tf_types(self) -> tuple[tuple[str, str], ...]:
        """(primitive, "Type" or "Type:name") for each primitive the ``tf`` key names."""
        if self.tf is None:
            return ()
        if isinstance(self.tf, str):
            return tuple((p, self.tf) for p in self.primitives)
        return self.tf

    def to_dict(self) -> dict:
        """The entry as the keys ``declare`` takes (defaults left out); it parses back to itself."""
        sigs = [str(s) for s in self.signatures]
        out: dict = {"name": self.name, "signature": sigs[0] if len(sigs) == 1 else sigs}
        for key, default in ENTRY_KEYS.items():
            value = getattr(self, key)
            if key == "op":
                value = value[0] if len(value) == 1 else list(value) if value else None
            elif key == "tf" and isinstance(value, tuple):
                value = dict(value)
            elif isinstance(value, tuple):
                value = list(value)
            if value == default or (isinstance(default, tuple) and value == list(default)):
                continue
            out[key] = value
        return out


def parse_entry(raw: dict, family: str = "") -> OpEntry:
    """An entry from its keys: ``name``, ``signature`` and any of ``ENTRY_KEYS``."""
    if not isinstance(raw, dict) or "name" not in raw or "signature" not in raw:
        raise SchemaError(f"each schema entry needs 'name' and 'signature', got {raw!r}")
    unknown = set(raw) - {"name", "signature", *ENTRY_KEYS}
    if unknown:
        raise SchemaError(f"schema entry {raw['name']!r}: unknown keys {sorted(unknown)}")
    sigs = raw["signature"]
    sigs = [sigs] if isinstance(sigs, str) else list(sigs)
    kwargs = {k: raw[k] for k in ENTRY_KEYS if k in raw}
    for key in ("aliases", "operators", "namespaces"):
        if key in kwargs:
            kwargs[key] = (kwargs[key],) if isinstance(kwargs[key], str) else tuple(kwargs[key])
    if "op" in kwargs:
        kwargs["op"] = (kwargs["op"],) if isinstance(kwargs["op"], str) else tuple(kwargs["op"])
    if "doc" in kwargs:
        kwargs["doc"] = inspect.cleandoc(kwargs["doc"])
    if isinstance(kwargs.get("tf"), dict):
        kwargs["tf"] = tuple(kwargs["tf"].items())
    entry = OpEntry(raw["name"], tuple(Signature.parse(s) for s in sigs), family=family, **kwargs)
    object.__setattr__(entry, "declared", f"{family!r}: {raw!r}")  # frozen: set once, here
    if entry.composite and entry.op:
        raise SchemaError(f"schema entry {entry.name!r}: a composite dispatches no primitive of its own ('op')")
    for primitive, _ in entry.tf_types():
        if primitive not in entry.primitives:
            raise SchemaError(f"schema entry {entry.name!r}: 'tf' names {primitive!r}, which the entry does not dispatch")
    return entry


# Every declared entry by name, in the order the family modules declared them.
_ENTRIES: dict[str, OpEntry] = {}


def schema_family(family: str, **defaults) -> Callable[..., OpEntry]:
    """The ``declare`` function of one op family: ``declare(name, signature, **keys)``;
    ``defaults`` are keys every entry of the family has unless it says otherwise.

    >>> declare = schema_family("doc_example")
    >>> entry = declare("doc_identity", "Tensor (Tensor input) => DocIdentity", method=True, doc="input, unchanged.")
    >>> entry.family, entry.method_name, str(entry.signatures[0])
    ('doc_example', 'doc_identity', 'Tensor (Tensor input) => DocIdentity')
    >>> _ = _ENTRIES.pop("doc_identity")
    """

    def declare(name: str, signature: str | list[str], **keys) -> OpEntry:
        entry = parse_entry({"name": name, "signature": signature, **defaults, **keys}, family)
        if name in _ENTRIES:
            raise SchemaError(f"op {name!r} is declared twice (list overloads under one entry instead)")
        _ENTRIES[name] = entry
        return entry

    return declare


def load_schema() -> tuple[OpEntry, ...]:
    """Every declared entry (all of them once ``ember.ops`` has loaded its families)."""
    return tuple(_ENTRIES.values())


def tf_op_table() -> dict[str, tuple[str, str]]:
    """primitive -> (TensorFlow op type, default node name), from the entries' ``tf`` keys.

    Two entries that dispatch one primitive agree on its type, or the one named after the
    primitive wins (``floor_divide``'s entry over ``div``'s, which also dispatches it).
    """
    table: dict[str, tuple[str, str]] = {}
    owners: dict[str, str] = {}
    for entry in _ENTRIES.values():
        for primitive, spec in entry.tf_types():
            kind, _, name = spec.partition(":")
            value = (kind, name or kind)
            if primitive in table and table[primitive] != value:
                if owners[primitive] == primitive.removesuffix("_scalar"):
                    continue
                if entry.name != primitive.removesuffix("_scalar"):
                    raise SchemaError(
                        f"primitive {primitive!r}: entries {owners[primitive]!r} and {entry.name!r} give it different TensorFlow types "
                        f"({table[primitive][0]} and {kind})"
                    )
            table[primitive] = value
            owners[primitive] = entry.name
    return table
