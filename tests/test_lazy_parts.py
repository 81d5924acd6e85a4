"""``import ember`` loads tensors, ops, kernels and autograd; the heavier parts load on first use."""

import json
import os
import subprocess
import sys

import pytest

import ember

# Parts a bare ``import ember`` must not load (graph mode and its protobuf, checkpoints, ...).
HEAVY = [
    "ember.array_api",
    "ember.distributed",
    "ember.distributions",
    "ember.graph",
    "ember.interop.checkpoint",
    "ember.io",
    "ember.nn",
    "ember.optim",
    "ember.sparse",
    "ember.utils",
    "google.protobuf",
]


def _fresh(script: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=os.environ)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_bare_import_loads_no_heavy_part():
    script = f"import json, sys; import ember; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    assert _fresh(script) == []


def test_using_a_lazy_name_loads_only_its_part():
    script = (
        "import json, sys; import ember; ember.ones(2) + 1; t = ember.ones(2); t.__dlpack_device__(); x = ember.save; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    assert _fresh(script) == ["ember.interop.checkpoint"]


def test_optim_does_not_load_graph_mode():
    script = f"import json, sys; import ember.optim; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    assert "ember.graph" not in _fresh(script)


@pytest.mark.parametrize(
    ("name", "part"),
    [
        ("Graph", "ember.graph"),
        ("Session", "ember.graph"),
        ("compile", "ember.graph"),
        ("placeholder", "ember.graph"),
        ("summary", "ember.graph"),
        ("SparseTensor", "ember.sparse"),
        ("sparse_add", "ember.sparse"),
        ("save", "ember.interop.checkpoint"),
        ("load", "ember.interop.checkpoint"),
        ("from_dlpack", "ember.interop.dlpack"),
        ("placement", "ember.distributed.tensor"),
        ("__array_api_version__", "ember.array_api"),
    ],
)
def test_a_lazy_name_is_its_part_s_object(name, part):
    module = __import__(part, fromlist=["_"])
    assert getattr(ember, name) is getattr(module, name)
    assert name in dir(ember)


def test_lazy_parts_are_the_submodules():
    import ember.distributions
    import ember.nn
    import ember.nn.parallel

    assert ember.nn.Linear(2, 3).weight.shape == (3, 2)
    assert ember.nn.parallel.DistributedDataParallel is ember.nn.parallel.distributed.DistributedDataParallel
    for name in ("array_api", "distributed", "distributions", "graph", "io", "nn", "optim", "sparse", "utils"):
        assert getattr(ember, name) is sys.modules[f"ember.{name}"]
        assert name in dir(ember)
    assert ember.sbp is sys.modules["ember.dispatch.sbp"]


def test_every_name_in_all_resolves_and_star_import_works():
    missing = [name for name in ember.__all__ if not hasattr(ember, name)]
    assert missing == []
    namespace: dict = {}
    exec("from ember import *", namespace)
    assert namespace["Graph"] is ember.Graph and namespace["add"] is ember.add


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match=r"^module 'ember' has no attribute 'no_such_name'$"):
        ember.no_such_name
    assert not hasattr(ember, "no_such_name")
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        ember.interop.nope


def test_lazy_tensor_methods_work_from_instance_and_class():
    np = pytest.importorskip("numpy")
    t = ember.arange(3.0)
    assert t.__dlpack_device__() == (1, 0)
    assert np.from_dlpack(t).tolist() == [0.0, 1.0, 2.0]
    assert t.to_device("cpu") is t
    assert t.__array_namespace__() is ember.array_api
    assert callable(ember.Tensor.to_global) and callable(ember.Tensor.to_local)
    # each stand-in put the real method in its place
    from ember.interop import dlpack

    assert ember.Tensor.__dict__["__dlpack__"] is dlpack.TENSOR_METHODS["__dlpack__"]
    assert ember.Tensor.__dict__["to_device"] is ember.array_api.TENSOR_METHODS["to_device"]


def test_a_fresh_process_can_use_a_lazy_tensor_method_first():
    script = (
        "import json; import ember, numpy as np; t = ember.ones(2); a = np.from_dlpack(t); "
        "print(json.dumps([a.tolist(), t.__array_namespace__().__name__]))"
    )
    assert _fresh(script) == [[1.0, 1.0], "ember.array_api"]
