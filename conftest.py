"""Doctests everywhere (modules, the generated functional API) see ``ember`` and ``np``."""

import numpy as np
import pytest

import ember


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace["ember"] = ember
    doctest_namespace["np"] = np
