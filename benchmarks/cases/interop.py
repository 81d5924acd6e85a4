"""Zero-copy borders: the cost of wrapping a NumPy array and unwrapping it again."""

import numpy as np
from harness import case, torch

import ember


@case("interop/from_numpy+numpy 3x3 f32", note="numpy's nearest equivalent is a.view() (a new array object over the same memory); PyTorch reference ~0.95 us")
def _roundtrip():
    a = np.arange(9, dtype=np.float32).reshape(3, 3)
    impls = {
        "ember": lambda: ember.from_numpy(a).numpy(),
        "numpy": lambda: a.view(),
    }
    if torch is not None:
        impls["torch"] = lambda: torch.from_numpy(a).numpy()
    return impls
