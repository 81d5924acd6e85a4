"""Every test here starts and ends in ember's own mode: eager, a fresh default graph, TF2 printing."""

import pytest

from ember.compat.v1 import framework
from ember.graph import graph as graph_module


@pytest.fixture(autouse=True)
def _eager_after_each_test():
    yield
    framework.enable_v2_behavior()
    graph_module.set_implicit_default_graph(False)
    graph_module._GLOBAL[0] = graph_module.Graph()
