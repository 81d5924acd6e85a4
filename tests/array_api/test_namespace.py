"""ember.array_api itself (``__init__``): the standard's names, ``__array_namespace__``, version, constants, dtypes."""

from __future__ import annotations

import math
import sys

import pytest

import ember
import ember.array_api as xp
from ember.array_api import (
    _creation,
    _data_type_functions,
    _elementwise,
    _info,
    _linear_algebra,
    _manipulation,
    _searching_sorting,
    _statistical,
)
from ember.interop.dlpack import from_dlpack
from ember.ops.functional import FUNCTIONS, NAMESPACES

from ._reference import DATA_TYPES, LINALG_MISSING, LINALG_NAMES, MISSING, STANDARD_NAMES


@pytest.mark.parametrize("name", STANDARD_NAMES)
def test_namespace_has_standard_name(name):
    if MISSING.get(name):
        assert not hasattr(xp, name)
        pytest.skip(f"{name}: ember has none yet")
    assert hasattr(xp, name), name
    assert name in xp.__all__


@pytest.mark.parametrize("name", LINALG_NAMES)
def test_linalg_extension_has_standard_name(name):
    if name in LINALG_MISSING:
        assert not hasattr(xp.linalg, name)
        pytest.skip(f"linalg.{name}: ember.linalg has none")
    assert callable(getattr(xp.linalg, name))


def test_array_namespace_and_version():
    x = ember.ones((2,))
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2025.12") is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    with pytest.raises(ValueError, match=r"unsupported api_version '2099\.01'"):
        x.__array_namespace__(api_version="2099.01")
    assert xp.__array_api_version__ == "2025.12"
    assert xp.e == math.e and xp.pi == math.pi and xp.newaxis is None
    assert math.isinf(xp.inf) and xp.inf > 0 and math.isnan(xp.nan)
    assert x[xp.newaxis].shape == (1, 2)


def test_dtypes_are_embers():
    for name in DATA_TYPES:
        assert getattr(xp, name) is getattr(ember, name)
    assert xp.float32 != xp.float64 and xp.float32 == ember.float32


def test_against_array_api_strict_names(xps):
    strict_names = {n for n in xps.__all__ if not n.startswith(("ArrayAPIStrict", "get_array", "set_array", "reset_array"))}
    strict_names -= {"Device", "__version__", "fft"}  # fft: an extension ember does not implement
    missing = {n for n in strict_names if not hasattr(xp, n)}
    assert missing == {n for n, gone in MISSING.items() if gone}
    assert set(STANDARD_NAMES) >= strict_names
    assert set(LINALG_NAMES) >= set(xps.linalg.__all__)
    strict_linalg = {n for n in LINALG_NAMES if hasattr(xps.linalg, n)}
    assert {n for n in strict_linalg if not hasattr(xp.linalg, n)} <= LINALG_MISSING


CHAPTERS = [_creation, _data_type_functions, _elementwise, _info, _linear_algebra, _manipulation, _searching_sorting, _statistical]


@pytest.mark.parametrize("module", CHAPTERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_same_tuple_lists_exactly_the_chapters_reexports(module):
    # The tuple and the assignments under it are written by hand side by side: they must agree.
    same = getattr(module, "_SAME", ())
    generated = {id(fn) for fn in FUNCTIONS.values()}
    bound = {name for name, value in vars(module).items() if not name.startswith("_") and id(value) in generated}
    assert bound == set(same)
    assert all(getattr(module, name) is FUNCTIONS[name] for name in same)
    assert all(getattr(xp, name) is FUNCTIONS[name] and name in xp.__all__ for name in same)


def test_linalg_is_a_module_whose_same_tuple_lists_its_reexports():
    import ember.array_api.linalg as la  # the import statement itself is under test

    assert la is xp.linalg is sys.modules["ember.array_api.linalg"]
    assert la.__name__ == "ember.array_api.linalg" and la.__file__.endswith("linalg.py")
    generated = {id(fn) for fn in NAMESPACES["linalg"].values()}
    bound = {name for name, value in vars(la).items() if not name.startswith("_") and id(value) in generated}
    assert bound == set(la._LINALG_SAME)
    assert all(getattr(la, name) is NAMESPACES["linalg"][name] for name in la._LINALG_SAME)
    assert la.__all__ == sorted(name for name in vars(la) if not name.startswith("_"))


def test_from_dlpack_is_embers_own():
    assert xp.from_dlpack is from_dlpack and "from_dlpack" in xp.__all__
