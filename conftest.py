"""Doctests everywhere (modules, the generated functional API) see ``ember`` and ``np``.

A doctest that imports an optional peer (torch, jax) skips, with the reason, where the peer
is not installed, as the test modules do with ``pytest.importorskip``.
"""

import builtins
import importlib.util
import re

import numpy as np
import pytest

import ember

_PEER_IMPORT = re.compile(r"^\s*import\s+(.+)$|^\s*from\s+(\w+)", re.MULTILINE)
_OPTIONAL_PEERS = {"torch", "jax", "mpi4py"}


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace["ember"] = ember
    doctest_namespace["np"] = np
    # the generated functional module's globals include ember.round, ember.abs...: keep Python's
    for name in ("abs", "all", "any", "max", "min", "pow", "round", "sum"):
        doctest_namespace[name] = getattr(builtins, name)


def _missing_peers(doctest) -> list[str]:
    wanted = set()
    for example in doctest.examples:
        for names, module in _PEER_IMPORT.findall(example.source):
            wanted.update(n.strip().split(".")[0].split(" ")[0] for n in (names.split(",") if names else [module]))
    return sorted(p for p in wanted & _OPTIONAL_PEERS if importlib.util.find_spec(p) is None)


def pytest_collection_modifyitems(config, items):
    for item in items:
        doctest = getattr(item, "dtest", None)
        if doctest is not None and (missing := _missing_peers(doctest)):
            item.add_marker(pytest.mark.skip(reason=f"needs {', '.join(missing)}, which is not installed"))
