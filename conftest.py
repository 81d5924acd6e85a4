"""Doctests everywhere (modules, the generated functional API) see ``ember`` and ``np``."""

import builtins

import numpy as np
import pytest

import ember


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace["ember"] = ember
    doctest_namespace["np"] = np
    # the generated functional module's globals include ember.round, ember.abs...: keep Python's
    for name in ("abs", "all", "any", "max", "min", "pow", "round", "sum"):
        doctest_namespace[name] = getattr(builtins, name)
