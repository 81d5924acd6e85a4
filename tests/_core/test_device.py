import pickle

import pytest

import ember
from tests._oracle import require_torch


def test_parse_and_print_like_pytorch():
    assert repr(ember.device("cpu")) == "device(type='cpu')"
    assert repr(ember.device("cuda:1")) == "device(type='cuda', index=1)"
    assert repr(ember.device("cuda", 2)) == "device(type='cuda', index=2)"
    assert str(ember.device("cuda:1")) == "cuda:1"
    assert str(ember.device("meta")) == "meta"
    assert ember.device("cuda:1").index == 1 and ember.device("cuda").index is None
    assert ember.device("cpu").type == "cpu"


def test_equality_hashing_and_strings():
    assert ember.device("cuda:0") == ember.device("cuda", 0)
    assert ember.device("cuda") != ember.device("cuda:0")
    assert ember.device("cpu") == "cpu"
    assert len({ember.device("cpu"), ember.device("cpu"), ember.device("meta")}) == 2
    assert pickle.loads(pickle.dumps(ember.device("cuda:3"))) == ember.device("cuda:3")


def test_matches_torch_repr():
    torch = require_torch()
    for spec in ["cpu", "meta", "cuda", "cuda:1"]:
        assert repr(ember.device(spec)) == repr(torch.device(spec))
        assert str(ember.device(spec)) == str(torch.device(spec))


@pytest.mark.parametrize(
    ("spec", "error", "fragment"),
    [
        ("tpu", ValueError, "expected one of cpu, meta, cuda"),
        ("cuda:x", ValueError, "invalid device string"),
        ("cuda:-1", ValueError, "invalid device string"),
        (3.5, TypeError, "must be str or device, not float"),
    ],
)
def test_bad_device_strings(spec, error, fragment):
    with pytest.raises(error, match=fragment):
        ember.device(spec)


def test_cuda_parses_but_fails_clearly_at_allocation():
    dev = ember.device("cuda:0")  # naming it is fine
    with pytest.raises(RuntimeError, match=r"cannot allocate .* on device 'cuda:0'.*no CUDA backend"):
        ember.zeros(3, device=dev)
