"""detect_anomaly / set_detect_anomaly: the NaN check names the backward node, the forward stack is
shown for a failing node, the settings nest and restore, and nothing changes when detection is off."""

from __future__ import annotations

import warnings

import pytest

import ember
from ember.autograd.function import Function


def _quiet_anomaly(check_nan: bool = True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ember.autograd.detect_anomaly(check_nan)


def test_nan_in_a_backward_output_names_the_node_and_the_forward_line():
    x = ember.tensor([-1.0, 4.0], requires_grad=True)
    with _quiet_anomaly():
        y = x.sqrt().sum()  # the forward line the warning must show
        with pytest.warns(UserWarning, match=r"(?s)Error detected in SqrtBackward0.*x.sqrt\(\).sum\(\)"):
            with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in its 0th output\."):
                y.backward()


def test_output_index_is_the_input_position():
    x = ember.tensor([0.0], requires_grad=True)
    with _quiet_anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="'DivBackward0' returned nan values in its 1th output"):
            (x / x).sum().backward()


def test_without_detection_nan_gradients_pass_silently():
    x = ember.tensor([-1.0], requires_grad=True)
    x.sqrt().sum().backward()
    assert x.grad.isnan().all().item()
    assert not ember.is_anomaly_enabled()


def test_check_nan_false_and_decorator():
    x = ember.tensor([-1.0], requires_grad=True)
    with _quiet_anomaly(check_nan=False):
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
        x.sqrt().sum().backward()
    assert not ember.is_anomaly_enabled() and ember.is_anomaly_check_nan_enabled()

    @_quiet_anomaly()
    def step():
        assert ember.autograd.is_anomaly_enabled()
        x.sqrt().sum().backward()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            step()
    assert not ember.is_anomaly_enabled()


def test_set_detect_anomaly_as_function_and_context():
    ember.autograd.set_detect_anomaly(True)
    try:
        assert ember.is_anomaly_enabled()
        with ember.autograd.set_detect_anomaly(False):
            assert not ember.is_anomaly_enabled()
        assert ember.is_anomaly_enabled()
    finally:
        ember.autograd.set_detect_anomaly(False)
    assert not ember.is_anomaly_enabled()


def test_enter_warns_and_a_raising_backward_shows_its_forward_stack():
    class Broken(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("broken backward")

    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = ember.autograd.detect_anomaly()
    x = ember.tensor([1.0], requires_grad=True)
    with mode:
        y = (Broken.apply(x) * 3).sum()
        with pytest.raises(ValueError, match="broken backward"), warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            y.backward()
    assert any("Error detected in BrokenBackward" in str(w.message) and "Broken.apply(x)" in str(w.message) for w in seen)
