"""Run every program of the corpus under ember and, where torch is installed, under torch too.

Under ember (always) a program must train: finite losses that go down, and its own checks (the
asserts inside ``main``) must hold. Under torch its results must match ember's: both start from
the same weights, drawn from NumPy by :func:`numpy_init` and written through ``load_state_dict``,
and each program names the results it compares, with their tolerances, in ``COMPARE``.
"""

from __future__ import annotations

import functools
import importlib
import math
import zlib

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

# name -> marks for a program that meets a gap ember still has (strict=False: it turns green when fixed)
PROGRAMS = {
    "balanced_classifier": [],
    "char_rnn": [],
    "distillation": [],
    "fourier": [],
    "graph_net": [],
    "metric_learning": [],
    "policy_gradient": [],
    "resnet": [],
    "seq2seq": [],
    "signal_denoiser": [],
    "unet": [],
    "vae": [],
}


def numpy_init(framework, seed=0):
    """A function that sets every parameter of a model from a NumPy generator, the same in any framework.

    Each parameter's values come from a generator seeded by its name: normal, scaled by 1/sqrt(fan-in);
    one-dimensional weights (norm layers' scales) are drawn around 1. Buffers keep their defaults.
    """

    def init_weights(model):
        values = {}
        for name, parameter in model.named_parameters():
            rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
            shape = tuple(parameter.shape)
            fan_in = math.prod(shape[1:]) if len(shape) > 1 else shape[0]
            value = rng.standard_normal(shape) / math.sqrt(max(fan_in, 1))
            if len(shape) == 1 and name.endswith("weight"):
                value = 1.0 + 0.1 * value
            values[name] = framework.from_numpy(value.astype(np.float32))
        missing, unexpected = model.load_state_dict(values, strict=False)
        assert not unexpected and all(name not in values for name in missing)

    return init_weights


def run(framework, name):
    program = importlib.import_module(f"tests.programs.{name}")
    return program.main(framework, init_weights=numpy_init(framework))


@functools.cache
def run_under_ember(name):
    return run(ember, name)


def params(names):
    return [pytest.param(name, marks=PROGRAMS.get(name, []), id=name) for name in names]


ALL = sorted(PROGRAMS)


@pytest.mark.parametrize("name", params(ALL))
def test_program_trains_under_ember(name):
    results = run_under_ember(name)
    losses = np.asarray(results["losses"], dtype=np.float64)
    assert np.all(np.isfinite(losses)), f"{name}: non-finite losses {losses}"
    assert losses[-1] < losses[0], f"{name}: the loss did not go down: {losses}"


@needs_torch
@pytest.mark.parametrize("name", params(ALL))
def test_program_matches_torch(name):
    ours = run_under_ember(name)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the CI machine has 2 cores; torch's thread pool only slows these small steps
    try:
        theirs = run(torch, name)
    finally:
        torch.set_num_threads(threads)
    program = importlib.import_module(f"tests.programs.{name}")
    for key, (rtol, atol) in program.COMPARE.items():
        np.testing.assert_allclose(
            np.asarray(ours[key], dtype=np.float64),
            np.asarray(theirs[key], dtype=np.float64),
            rtol=rtol,
            atol=atol,
            err_msg=f"{name}: {key}",
        )
