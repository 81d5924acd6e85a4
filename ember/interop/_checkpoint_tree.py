"""The object tree of a checkpoint: plain Python values as tagged JSON, tensors by index.

JSON keeps ``null``, ``true``/``false``, strings, arrays (Python lists) and numbers as they
are. Everything JSON would lose is a one-key object whose key is a tag: ``{"tuple": [...]}``,
``{"dict": ...}``, ``{"int": "123..."}`` beyond 2**53, ``{"float": "nan"}``, ``{"bytes":
base64}``, ``{"tensor": i}``... (docs/checkpoint-format.md lists them). Decoding only ever
builds these fixed types: nothing is imported, evaluated or looked up by name.

>>> enc = TreeEncoder()
>>> node = enc.encode({"betas": (0.9, 0.999), 3: float("inf")})
>>> node
{'dict': [['betas', {'tuple': [0.9, 0.999]}], [3, {'float': 'inf'}]]}
>>> decode(node, [])
{'betas': (0.9, 0.999), 3: inf}
"""

from __future__ import annotations

import base64
import binascii
import math
from collections import OrderedDict

from .._core import dtype as _dt
from .._core.tensor import Tensor

__all__ = ["TreeEncoder", "decode", "render_path"]

_SAFE_INT = 2**53  # beyond this, JSON readers other than Python's lose digits
_FLOAT_SPECIALS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_SUPPORTED = "tensors, dict/OrderedDict, list, tuple, str, int, float, complex, bool, None, bytes and ember dtypes"


def render_path(keys: list) -> str:
    """``obj['state'][3]``: where a value sits inside the saved object."""
    return "obj" + "".join(f"[{k!r}]" for k in keys)


class TreeEncoder:
    """Turns an object into a JSON-ready tree, collecting its tensors in first-seen order.

    ``tensors[i]`` is the tensor that ``{"tensor": i}`` refers to, and ``names[i]`` the dotted
    path where it was first seen (``"state.0.exp_avg"``), or None when that path has keys that
    are neither str nor int. The same tensor object seen twice is stored once.
    """

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self.names: list[str | None] = []
        self._index: dict[int, int] = {}
        self._keys: list = []  # the path to the value being encoded
        self._open: set[int] = set()  # containers on that path: a cycle would recurse forever

    def encode(self, obj: object) -> object:
        kind = type(obj)
        if obj is None or kind is bool or kind is str:
            return obj
        if kind is int:
            return obj if -_SAFE_INT <= obj <= _SAFE_INT else {"int": str(obj)}
        if kind is float:
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, Tensor):
            return {"tensor": self._tensor(obj)}
        if kind is list:
            return self._container(obj, lambda: [self._item(i, v) for i, v in enumerate(obj)])
        if kind is tuple:
            return self._container(obj, lambda: {"tuple": [self._item(i, v) for i, v in enumerate(obj)]})
        if kind is dict or kind is OrderedDict:
            return self._container(obj, lambda: {kind.__name__: self._mapping(obj)})
        if kind is bytes:
            return {"bytes": base64.b64encode(obj).decode("ascii")}
        if kind is complex:
            return {"complex": [self.encode(obj.real), self.encode(obj.imag)]}
        if kind is _dt.DType:
            return {"dtype": obj.name}
        raise TypeError(
            f"ember.save(): cannot save {render_path(self._keys)} of type {kind.__module__}.{kind.__qualname__}; "
            f"a checkpoint holds {_SUPPORTED} (no pickle: arbitrary objects, modules and functions are refused)"
        )

    def _item(self, key: object, value: object) -> object:
        self._keys.append(key)
        node = self.encode(value)
        self._keys.pop()
        return node

    def _container(self, obj: object, build) -> object:
        if id(obj) in self._open:
            raise ValueError(f"ember.save(): {render_path(self._keys)} contains itself (a reference cycle cannot be saved)")
        self._open.add(id(obj))
        try:
            return build()
        finally:
            self._open.discard(id(obj))

    def _mapping(self, obj: dict) -> object:
        # str keys: a JSON object, readable as it is; any other key type: [key, value] pairs.
        if all(type(k) is str for k in obj):
            return {k: self._item(k, v) for k, v in obj.items()}
        pairs = []
        for k, v in obj.items():
            if isinstance(k, Tensor) or type(k) not in _KEY_TYPES:
                raise TypeError(
                    f"ember.save(): cannot save a dict key of type {type(k).__qualname__} at {render_path(self._keys)}; "
                    f"keys must be str, int, float, complex, bool, None, bytes, dtypes or tuples of those"
                )
            self._keys.append(k)
            pairs.append([self.encode(k), self.encode(v)])
            self._keys.pop()
        return pairs

    def _tensor(self, t: Tensor) -> int:
        index = self._index.get(id(t))
        if index is None:
            index = self._index[id(t)] = len(self.tensors)
            self.tensors.append(t)
            self.names.append(".".join(map(str, self._keys)) if all(type(k) in (str, int) for k in self._keys) else None)
        return index


_KEY_TYPES = {str, int, float, complex, bool, type(None), bytes, tuple, _dt.DType}


# ---------------------------------------------------------------------------------------
# decoding: a fixed set of types, nothing else


def decode(node: object, tensors: list[Tensor]) -> object:
    """Rebuild the object from its tree; a malformed node raises ValueError naming where it is."""
    try:
        return _decode(node, tensors, [])
    except RecursionError:
        raise ValueError("the object tree is nested too deeply") from None


def _decode(node: object, tensors: list, keys: list) -> object:
    kind = type(node)
    if node is None or kind is bool or kind is str or kind is int or kind is float:
        return node
    if kind is list:
        return [_decode_item(i, v, tensors, keys) for i, v in enumerate(node)]
    if kind is not dict or len(node) != 1:
        raise ValueError(f"{render_path(keys)}: expected a value or a one-key tagged object, got {_short(node)}")
    ((tag, value),) = node.items()
    if tag == "tensor":
        if type(value) is not int or not 0 <= value < len(tensors):
            raise ValueError(f"{render_path(keys)}: tensor index {_short(value)} is not one of the {len(tensors)} saved tensors")
        return tensors[value]
    if tag == "tuple":
        _expect(value, list, keys, tag)
        return tuple(_decode_item(i, v, tensors, keys) for i, v in enumerate(value))
    if tag == "dict" or tag == "OrderedDict":
        return _decode_mapping(dict if tag == "dict" else OrderedDict, value, tensors, keys)
    if tag == "int":
        _expect(value, str, keys, tag)
        if not value.lstrip("-").isdigit() or not value.isascii() or len(value) > 10_000:
            raise ValueError(f"{render_path(keys)}: {_short(value)} is not a decimal integer")
        return int(value)
    if tag == "float":
        if value not in _FLOAT_SPECIALS:
            raise ValueError(f"{render_path(keys)}: 'float' tags hold 'nan', 'inf' or '-inf', got {_short(value)}")
        return _FLOAT_SPECIALS[value]
    if tag == "bytes":
        _expect(value, str, keys, tag)
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{render_path(keys)}: 'bytes' holds invalid base64") from None
    if tag == "complex":
        _expect(value, list, keys, tag)
        parts = [_decode(v, tensors, keys) for v in value]
        if len(parts) != 2 or any(type(p) is not float for p in parts):
            raise ValueError(f"{render_path(keys)}: 'complex' holds [real, imag] floats, got {_short(value)}")
        return complex(*parts)
    if tag == "dtype":
        if type(value) is not str or value not in _DTYPES:
            raise ValueError(f"{render_path(keys)}: unknown dtype {_short(value)}")
        return _DTYPES[value]
    raise ValueError(f"{render_path(keys)}: unknown tag {_short(tag)} (this file needs a newer ember, or is not an ember checkpoint)")


_DTYPES = {d.name: d for d in _dt.ALL_DTYPES}


def _decode_item(key: object, node: object, tensors: list, keys: list) -> object:
    keys.append(key)
    value = _decode(node, tensors, keys)
    keys.pop()
    return value


def _decode_mapping(cls: type, value: object, tensors: list, keys: list) -> dict:
    out = cls()
    if type(value) is dict:
        for k, v in value.items():
            out[k] = _decode_item(k, v, tensors, keys)
        return out
    _expect(value, list, keys, cls.__name__)
    for pair in value:
        if type(pair) is not list or len(pair) != 2:
            raise ValueError(f"{render_path(keys)}: a {cls.__name__} holds [key, value] pairs, got {_short(pair)}")
        key = _decode(pair[0], tensors, keys)
        try:
            hash(key)
        except TypeError:
            raise ValueError(f"{render_path(keys)}: dict key {_short(pair[0])} is not hashable") from None
        if isinstance(key, Tensor) or (type(key) is tuple and any(isinstance(k, Tensor) for k in key)):
            raise ValueError(f"{render_path(keys)}: a tensor cannot be a dict key")
        out[key] = _decode_item(key, pair[1], tensors, keys)
    return out


def _expect(value: object, kind: type, keys: list, tag: str) -> None:
    if type(value) is not kind:
        raise ValueError(f"{render_path(keys)}: tag {tag!r} expects a JSON {'array' if kind is list else 'string'}, got {_short(value)}")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
