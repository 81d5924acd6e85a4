"""Random number generators: ``ember.Generator`` and the default one behind ``manual_seed``.

A generator is a NumPy ``PCG64`` bit generator with PyTorch's interface: ``manual_seed``,
``seed``, ``initial_seed``, ``get_state`` / ``set_state``. The same seed gives the same
stream on every run and every machine. Random kernels draw from ``numpy()`` when they run,
which on an asynchronous VM stream is later than the call: reseeding and reading or setting
the state are sync points, so they see (and act after) every draw queued before them.

>>> g = Generator().manual_seed(0)
>>> a = g.numpy().random(2)
>>> _ = g.manual_seed(0)
>>> bool((g.numpy().random(2) == a).all())
True
"""

from __future__ import annotations

import json
import secrets

import numpy as np

from .device import CPU, Device, as_device
from .storage import sync_point

__all__ = ["Generator", "default_generator", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

_DEFAULT_SEED = 67280421310721  # PyTorch's default_generator seed, so fresh processes agree


class Generator:
    """A reproducible stream of random numbers for one device."""

    def __init__(self, device: Device | str | None = "cpu") -> None:
        self.device = as_device(device, op="Generator")
        self._seed = _DEFAULT_SEED
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> Generator:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"manual_seed(): argument 'seed' must be int, not {type(seed).__name__}")
        seed = int(seed)
        sync_point()
        if not -(2**63) <= seed < 2**64:
            raise RuntimeError(f"manual_seed(): seed must be within the range [-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff], got {seed}")
        self._seed = seed % 2**64
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the seed."""
        self.manual_seed(secrets.randbits(63))
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The generator's state as a uint8 tensor (opaque; pass it back to ``set_state``)."""
        from .tensor import tensor

        sync_point()
        raw = json.dumps([self._seed, self._rng.bit_generator.state]).encode()  # JSON: safe to load back
        return tensor(list(raw), dtype="uint8")

    def set_state(self, state) -> Generator:
        """Restore a state ``get_state`` returned (a uint8 tensor)."""
        from .tensor import Tensor  # tensor imports this module's users; import when called

        if not isinstance(state, Tensor):
            raise TypeError(f"expected a ember.ByteTensor, but got {type(state).__name__}")
        if state.dtype.name != "uint8":
            raise TypeError("RNG state must be a ember.ByteTensor")
        sync_point()
        try:
            seed, bit_state = json.loads(bytes(state.tolist()))
            probe = np.random.PCG64()
            probe.state = bit_state
        except (ValueError, TypeError, KeyError) as err:
            raise RuntimeError("set_rng_state(): the state is not one get_rng_state() returned") from err
        self._seed = seed
        self._rng.bit_generator.state = bit_state
        return self

    def numpy(self) -> np.random.Generator:
        """The NumPy generator that kernels draw from."""
        return self._rng

    def __repr__(self) -> str:
        return f"<ember.Generator object at {id(self):#x}, device='{self.device}'>"


default_generator = Generator(CPU)


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (and so every op that takes no generator).

    >>> _ = manual_seed(42); initial_seed()
    42
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor (``torch.get_rng_state``).

    >>> state = get_rng_state()
    >>> a = default_generator.numpy().random()
    >>> set_rng_state(state)
    >>> default_generator.numpy().random() == a
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator to a state ``get_rng_state`` returned."""
    default_generator.set_state(new_state)
