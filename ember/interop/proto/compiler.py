"""A small compiler for the subset of proto3 that ember's ``.proto`` files use.

It reads the text of a ``.proto`` file and builds the ``FileDescriptorProto`` that ``protoc``
would have built, so protobuf's own runtime can make real message classes from it at import
time; no ``protoc`` runs, at build time or ever, and the ``.proto`` file stays the one source
of truth for the messages.

The subset: ``syntax = "proto3"``, ``package``, ``import`` (of files handed to `compile_proto`
already compiled), ``message`` (nested too), ``enum``, singular and ``repeated`` fields of
scalar, message and enum types, ``map<K, V>`` fields and ``oneof`` blocks (both as protoc
lays them out), the field option ``packed``, ``reserved`` numbers, ranges and names, and
``//`` and ``/* */`` comments. Anything else is a `ProtoSyntaxError` that names the file, the
line and what was expected.

>>> fd = compile_proto('syntax = "proto3"; package demo; message Point { repeated sint32 xy = 1; }', "demo.proto")
>>> fd.package, fd.message_type[0].name, fd.message_type[0].field[0].number
('demo', 'Point', 1)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf import descriptor_pb2

__all__ = ["ProtoSyntaxError", "compile_proto"]

_F = descriptor_pb2.FieldDescriptorProto
SCALAR_TYPES = {
    "double": _F.TYPE_DOUBLE, "float": _F.TYPE_FLOAT, "int64": _F.TYPE_INT64, "uint64": _F.TYPE_UINT64,
    "int32": _F.TYPE_INT32, "fixed64": _F.TYPE_FIXED64, "fixed32": _F.TYPE_FIXED32, "bool": _F.TYPE_BOOL,
    "string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "uint32": _F.TYPE_UINT32, "sfixed32": _F.TYPE_SFIXED32,
    "sfixed64": _F.TYPE_SFIXED64, "sint32": _F.TYPE_SINT32, "sint64": _F.TYPE_SINT64,
}
# Only numeric scalars can be packed: strings, bytes and messages are length-delimited already.
_PACKABLE = set(SCALAR_TYPES) - {"string", "bytes"}
# protoc's rule for map keys: any integral or string scalar (not floating point, not bytes).
_MAP_KEY_TYPES = set(SCALAR_TYPES) - {"double", "float", "bytes"}
_MAX_FIELD_NUMBER = (1 << 29) - 1
_RESERVED_FOR_PROTOBUF = range(19000, 20000)

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>-?(?:0[xX][0-9a-fA-F]+|[0-9]+))
  | (?P<ident>\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<symbol>[{}=;\[\],<>])
""", re.VERBOSE | re.DOTALL)


class ProtoSyntaxError(ValueError):
    """A ``.proto`` text outside the supported subset, or malformed."""


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    line: int


def _tokenize(text: str, filename: str) -> list[_Token]:
    tokens = []
    pos = 0
    line = 1
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ProtoSyntaxError(f"{filename}:{line}: unexpected character {text[pos]!r}")
        kind = match.lastgroup
        if kind not in ("space", "comment"):
            tokens.append(_Token(kind, match.group(), line))
        line += match.group().count("\n")
        pos = match.end()
    tokens.append(_Token("end", "end of file", line))
    return tokens


class _Parser:
    """Recursive descent over the token list; builds descriptor protos as it goes."""

    def __init__(self, text: str, filename: str, dependencies: Iterable[descriptor_pb2.FileDescriptorProto] = ()) -> None:
        self.tokens = _tokenize(text, filename)
        self.dependencies = {dep.name: dep for dep in dependencies}
        self.pos = 0
        self.filename = filename
        # (descriptor, the field's type as written, its scope) for resolution after parsing
        self.unresolved: list[tuple[descriptor_pb2.FieldDescriptorProto, str, str, int]] = []
        self.kinds: dict[str, int] = {}  # fully qualified name -> TYPE_MESSAGE or TYPE_ENUM
        self.packed_later: list[tuple[descriptor_pb2.FieldDescriptorProto, int]] = []  # [packed] on a named type

    # -- tokens
    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def error(self, expected: str, token: _Token | None = None) -> ProtoSyntaxError:
        token = token or self.peek()
        return ProtoSyntaxError(f"{self.filename}:{token.line}: expected {expected}, got {token.text!r}")

    def take(self, kind: str, text: str | None = None, expected: str | None = None) -> _Token:
        token = self.peek()
        if token.kind != kind or (text is not None and token.text != text):
            raise self.error(expected or (repr(text) if text else kind))
        self.pos += 1
        return token

    def accept(self, text: str) -> bool:
        if self.peek().text == text and self.peek().kind in ("symbol", "ident"):
            self.pos += 1
            return True
        return False

    def name(self, what: str) -> str:
        token = self.take("ident", expected=what)
        if "." in token.text:
            raise self.error(f"a plain {what}", token)
        return token.text

    def number(self, what: str) -> int:
        return int(self.take("number", expected=what).text, 0)

    # -- file
    def file(self) -> descriptor_pb2.FileDescriptorProto:
        fd = descriptor_pb2.FileDescriptorProto(name=self.filename, syntax="proto3")
        self.take("ident", "syntax", expected="'syntax = \"proto3\";' first")
        self.take("symbol", "=")
        syntax = self.take("string", expected='"proto3"')
        if syntax.text[1:-1] != "proto3":
            raise ProtoSyntaxError(f"{self.filename}:{syntax.line}: only proto3 is supported, got {syntax.text}")
        self.take("symbol", ";")
        scope = ""
        while self.peek().kind != "end":
            if self.accept(";"):
                continue
            if self.accept("package"):
                if fd.package:
                    raise self.error("a single package statement")
                fd.package = self.take("ident", expected="a package name").text
                scope = "." + fd.package
                self.take("symbol", ";")
            elif self.accept("import"):
                self.import_(fd)
            elif self.accept("message"):
                self.message(fd.message_type.add(), scope)
            elif self.accept("enum"):
                self.enum(fd.enum_type.add(), scope)
            else:
                raise self.error("'package', 'message' or 'enum'")
        self.resolve()
        return fd

    def import_(self, fd: descriptor_pb2.FileDescriptorProto) -> None:
        token = self.take("string", expected="a quoted file name")
        name = token.text[1:-1]
        dep = self.dependencies.get(name)
        if dep is None:
            raise ProtoSyntaxError(f"{self.filename}:{token.line}: import {token.text} names no file given to compile_proto "
                                   f"(given: {sorted(self.dependencies) or 'none'})")
        if name not in fd.dependency:
            fd.dependency.append(name)
            self.declare_file_types(dep)
        self.take("symbol", ";")

    def declare_file_types(self, dep: descriptor_pb2.FileDescriptorProto) -> None:
        def walk(messages, enums, scope):
            for enum in enums:
                self.declare(f"{scope}.{enum.name}", _F.TYPE_ENUM)
            for msg in messages:
                self.declare(f"{scope}.{msg.name}", _F.TYPE_MESSAGE)
                walk(msg.nested_type, msg.enum_type, f"{scope}.{msg.name}")
        walk(dep.message_type, dep.enum_type, "." + dep.package if dep.package else "")

    # -- message
    def message(self, msg: descriptor_pb2.DescriptorProto, scope: str) -> None:
        msg.name = self.name("message name")
        full = f"{scope}.{msg.name}"
        self.declare(full, _F.TYPE_MESSAGE)
        self.take("symbol", "{")
        numbers: dict[int, str] = {}
        while not self.accept("}"):
            if self.accept(";"):
                continue
            if self.accept("message"):
                self.message(msg.nested_type.add(), full)
            elif self.accept("enum"):
                self.enum(msg.enum_type.add(), full)
            elif self.accept("reserved"):
                self.reserved(msg.reserved_range, msg.reserved_name, end_inclusive=False)
            elif self.accept("oneof"):
                self.oneof(msg, full, numbers)
            else:
                self.field(msg, full, numbers)
        for r in msg.reserved_range:
            for number, field_name in numbers.items():
                if r.start <= number < r.end:
                    raise ProtoSyntaxError(f"{self.filename}: field {msg.name}.{field_name} uses reserved number {number}")
        for field in msg.field:
            if field.name in msg.reserved_name:
                raise ProtoSyntaxError(f"{self.filename}: field {msg.name}.{field.name} uses a reserved name")

    def oneof(self, msg: descriptor_pb2.DescriptorProto, scope: str, numbers: dict[int, str]) -> None:
        index = len(msg.oneof_decl)
        msg.oneof_decl.add(name=self.name("oneof name"))
        self.take("symbol", "{")
        while not self.accept("}"):
            if self.accept(";"):
                continue
            token = self.peek()
            if token.text in ("repeated", "map", "optional", "oneof"):
                raise ProtoSyntaxError(f"{self.filename}:{token.line}: a oneof field can't be {token.text!r}")
            self.field(msg, scope, numbers)
            msg.field[-1].oneof_index = index
        if not any(f.HasField("oneof_index") and f.oneof_index == index for f in msg.field):
            raise ProtoSyntaxError(f"{self.filename}: oneof {msg.name}.{msg.oneof_decl[index].name} has no fields")

    def map_entry(self, msg: descriptor_pb2.DescriptorProto, scope: str) -> tuple[str, _Token]:
        """Parses ``<K, V>`` after ``map`` and adds protoc's nested ``XxxEntry``; returns the entry's name."""
        self.take("symbol", "<")
        key = self.take("ident", expected="a map key type")
        if key.text not in _MAP_KEY_TYPES:
            raise ProtoSyntaxError(f"{self.filename}:{key.line}: a map key must be an integral or string type, "
                                   f"not {key.text!r}")
        self.take("symbol", ",")
        value = self.take("ident", expected="a map value type")
        self.take("symbol", ">")
        field_name = self.peek().text
        # protoc's MapEntryName: "attr" -> "AttrEntry", "foo_bar" -> "FooBarEntry".
        entry_name = "".join(part[:1].upper() + part[1:] for part in field_name.split("_")) + "Entry"
        entry = msg.nested_type.add(name=entry_name)
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL, type=SCALAR_TYPES[key.text])
        value_field = entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL)
        full = f"{scope}.{entry_name}"
        self.declare(full, _F.TYPE_MESSAGE)
        if value.text == "map":
            raise ProtoSyntaxError(f"{self.filename}:{value.line}: a map value can't be a map")
        if value.text in SCALAR_TYPES:
            value_field.type = SCALAR_TYPES[value.text]
        else:
            self.unresolved.append((value_field, value.text, full, value.line))
        return entry_name, value

    def field(self, msg: descriptor_pb2.DescriptorProto, scope: str, numbers: dict[int, str]) -> None:
        start = self.peek()
        repeated = self.accept("repeated")
        type_token = self.take("ident", expected="a field, 'message', 'enum', 'reserved' or '}'")
        entry_name = None
        if type_token.text == "map" and self.peek().text == "<":
            if repeated:
                raise ProtoSyntaxError(f"{self.filename}:{start.line}: a map field can't be 'repeated'")
            entry_name, _ = self.map_entry(msg, scope)
        field = msg.field.add(name=self.name("field name"))
        self.take("symbol", "=")
        number_token = self.peek()
        field.number = self.number("a field number")
        if not 1 <= field.number <= _MAX_FIELD_NUMBER or field.number in _RESERVED_FOR_PROTOBUF:
            raise ProtoSyntaxError(f"{self.filename}:{number_token.line}: field number {field.number} is out of range")
        if field.number in numbers:
            raise ProtoSyntaxError(f"{self.filename}:{number_token.line}: field number {field.number} is used by "
                                   f"{numbers[field.number]} and {field.name}")
        if any(f.name == field.name for f in msg.field[:-1]):
            raise ProtoSyntaxError(f"{self.filename}:{start.line}: field {field.name} is declared twice")
        numbers[field.number] = field.name
        field.label = _F.LABEL_REPEATED if repeated or entry_name else _F.LABEL_OPTIONAL
        if entry_name:
            field.type = _F.TYPE_MESSAGE
            field.type_name = f"{scope}.{entry_name}"
        elif type_token.text in SCALAR_TYPES:
            field.type = SCALAR_TYPES[type_token.text]
        else:
            self.unresolved.append((field, type_token.text, scope, type_token.line))
        if self.accept("["):
            while True:
                option = self.take("ident", "packed", expected="the option 'packed' (the only one supported)")
                self.take("symbol", "=")
                value = self.take("ident", expected="true or false")
                if value.text not in ("true", "false"):
                    raise self.error("true or false", value)
                if not repeated or (type_token.text in SCALAR_TYPES and type_token.text not in _PACKABLE):
                    raise ProtoSyntaxError(f"{self.filename}:{option.line}: [packed] needs a repeated numeric field, "
                                           f"not {field.name}")
                if type_token.text not in SCALAR_TYPES:  # an enum packs, a message doesn't: known after resolve()
                    self.packed_later.append((field, option.line))
                field.options.packed = value.text == "true"
                if not self.accept(","):
                    break
            self.take("symbol", "]")
        self.take("symbol", ";")

    def reserved(self, ranges, names, *, end_inclusive: bool) -> None:
        while True:
            if self.peek().kind == "string":
                names.append(self.take("string").text[1:-1])
            else:
                start = self.number("a number, a range or a quoted name")
                end = start
                if self.accept("to"):
                    end = _MAX_FIELD_NUMBER if self.accept("max") else self.number("a number or 'max'")
                ranges.add(start=start, end=end if end_inclusive else end + 1)
            if not self.accept(","):
                break
        self.take("symbol", ";")

    # -- enum
    def enum(self, enum: descriptor_pb2.EnumDescriptorProto, scope: str) -> None:
        enum.name = self.name("enum name")
        self.declare(f"{scope}.{enum.name}", _F.TYPE_ENUM)
        self.take("symbol", "{")
        while not self.accept("}"):
            if self.accept(";"):
                continue
            if self.accept("reserved"):
                self.reserved(enum.reserved_range, enum.reserved_name, end_inclusive=True)
                continue
            token = self.peek()
            value = enum.value.add(name=self.name("an enum value name or '}'"))
            self.take("symbol", "=")
            value.number = self.number("an enum number")
            self.take("symbol", ";")
            if len(enum.value) == 1 and value.number != 0:
                raise ProtoSyntaxError(f"{self.filename}:{token.line}: the first value of a proto3 enum must be 0")

    # -- names
    def declare(self, full: str, kind: int) -> None:
        if full in self.kinds:
            raise ProtoSyntaxError(f"{self.filename}: {full[1:]} is declared twice")
        self.kinds[full] = kind

    def resolve(self) -> None:
        # protoc's rule: look in the innermost scope first, then each enclosing one.
        for field, written, scope, line in self.unresolved:
            candidates = [written] if written.startswith(".") else []
            parts = scope.split(".")
            candidates += [".".join([*parts[:i], written]) for i in range(len(parts), 0, -1)]
            found = next((c for c in candidates if c in self.kinds), None)
            if found is None:
                raise ProtoSyntaxError(f"{self.filename}:{line}: unknown type {written!r} for field {field.name}")
            field.type = self.kinds[found]
            field.type_name = found
        for field, line in self.packed_later:
            if field.type != _F.TYPE_ENUM:
                raise ProtoSyntaxError(f"{self.filename}:{line}: [packed] needs a repeated numeric field, not {field.name}")


def compile_proto(text: str, filename: str,
                  dependencies: Iterable[descriptor_pb2.FileDescriptorProto] = ()) -> descriptor_pb2.FileDescriptorProto:
    """The ``FileDescriptorProto`` of a proto3 text (see the module docstring for the subset).

    ``dependencies`` are the compiled files its ``import`` statements may name (by their ``name``);
    the types they declare resolve as protoc resolves imported ones.
    """
    return _Parser(text, filename, dependencies).file()
