"""ember.cuda and ember.backends answer a program's device questions as PyTorch does without a GPU."""

import warnings

import pytest

import ember
from tests._oracle import require_torch


def test_the_device_line_picks_the_cpu():
    device = ember.device("cuda" if ember.cuda.is_available() else "cpu")
    assert device == ember.device("cpu")
    model = ember.nn.Linear(2, 3).to(device)
    assert model(ember.zeros(1, 2, device=device)).device == device


def test_cuda_answers():
    assert ember.cuda.is_available() is False and ember.cuda.device_count() == 0 and not ember.cuda.is_initialized()
    assert ember.cuda.manual_seed(0) is None and ember.cuda.manual_seed_all(0) is None and ember.cuda.empty_cache() is None
    assert ember.cuda.memory_allocated() == 0 and ember.cuda.is_bf16_supported() is False
    for needs_a_device in (ember.cuda.synchronize, ember.cuda.current_device, ember.cuda.get_device_name):
        with pytest.raises(AssertionError, match="no CUDA backend"):
            needs_a_device()


def test_backend_flags_are_kept():
    import ember.backends.cudnn as cudnn  # the way programs import it

    before = cudnn.benchmark, cudnn.deterministic
    try:
        cudnn.benchmark, cudnn.deterministic = True, True
        assert ember.backends.cudnn.benchmark and ember.backends.cudnn.deterministic
    finally:
        cudnn.benchmark, cudnn.deterministic = before
    assert not cudnn.is_available() and not ember.backends.mps.is_available() and not ember.backends.mps.is_built()
    assert ember.backends.cuda.matmul.allow_tf32 is False


def test_process_switches():
    assert ember.get_float32_matmul_precision() == "highest"
    try:
        ember.set_float32_matmul_precision("medium")
        assert ember.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            ember.set_float32_matmul_precision("fast")
        assert ember.get_float32_matmul_precision() == "medium"
    finally:
        ember.set_float32_matmul_precision("highest")
    try:
        ember.use_deterministic_algorithms(True, warn_only=True)
        assert ember.are_deterministic_algorithms_enabled() and ember.is_deterministic_algorithms_warn_only_enabled()
    finally:
        ember.use_deterministic_algorithms(False)
    with pytest.raises(TypeError, match=r"argument 'mode' .* must be bool, not str"):
        ember.use_deterministic_algorithms("yes")


def test_answers_match_torch_without_a_gpu():
    torch = require_torch()
    if torch.cuda.is_available():
        pytest.skip("this torch sees a GPU; ember's answers are those of torch without one")
    for name in ("is_available", "device_count", "is_initialized", "memory_allocated", "max_memory_allocated"):
        assert getattr(ember.cuda, name)() == getattr(torch.cuda, name)(), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ember.backends.mps.is_available() == torch.backends.mps.is_available()
    assert ember.backends.cudnn.is_available() == torch.backends.cudnn.is_available()
    for name in ("synchronize", "current_device", "get_device_name"):
        with pytest.raises(AssertionError):
            getattr(torch.cuda, name)()
        with pytest.raises(AssertionError):
            getattr(ember.cuda, name)()
