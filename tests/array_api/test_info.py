"""Inspection: ``__array_namespace_info__``."""

from __future__ import annotations

import pytest

import ember
import ember.array_api as xp

from ._reference import DATA_TYPES


def test_namespace_info():
    info = xp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert caps["max dimensions"] == 64
    assert info.default_device() == ember.device("cpu")
    assert info.devices() == (ember.device("cpu"),)
    defaults = info.default_dtypes()
    assert defaults == {"real floating": xp.float32, "complex floating": xp.complex64, "integral": xp.int64, "indexing": xp.int64}
    with ember.default_dtype(ember.float64):
        assert info.default_dtypes(device="cpu")["complex floating"] == xp.complex128
    everything = info.dtypes()
    assert list(everything) == DATA_TYPES
    assert all(everything[k] is getattr(xp, k) for k in DATA_TYPES)
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind=("bool", "complex floating"))) == ["bool", "complex64", "complex128"]
    assert list(info.dtypes(kind="integral")) == DATA_TYPES[1:9]
    assert "bfloat16" not in everything and "float16" not in everything
    with pytest.raises(ValueError, match="unsupported kind 'floating'"):
        info.dtypes(kind="floating")
    with pytest.raises(ValueError, match="not one of this namespace's devices"):
        info.dtypes(device="meta")
