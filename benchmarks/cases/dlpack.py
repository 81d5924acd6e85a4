"""DLPack: one export or import, consumer's call to the deleter included (each result dies at once).

Every case runs for 1 element and for 100 MB (allocated once in setup): the cost must not
depend on the size. The columns are the producer under test ('ember', 'numpy', 'torch')
with the same consumer, or the consumer under test with the same producer.
"""

import numpy as np
from harness import case, torch

import ember

SIZES = {"1 elem": 1, "100 MB": 25 * 2**20}  # float32 elements


def _arrays(n: int) -> dict:
    a = np.ones(n, dtype=np.float32)
    arrays = {"ember": ember.from_numpy(a.copy()), "numpy": a}
    if torch is not None:
        arrays["torch"] = torch.from_numpy(a.copy())
    return arrays


for _label, _n in SIZES.items():

    @case(f"dlpack/export: np.from_dlpack(x) {_label}", target_us=5.0,
          note="x from each library, NumPy consumes; reference here: np.from_dlpack(torch tensor) 1.8 us")
    def _export_numpy(n=_n):
        arrays = _arrays(n)
        return {name: (lambda x=x: np.from_dlpack(x)) for name, x in arrays.items()}

    @case(f"dlpack/import: from_dlpack(ndarray) {_label}", target_us=5.0,
          note="each library's from_dlpack on a NumPy array; reference here: torch.from_dlpack(ndarray) 1.0 us")
    def _import_numpy(n=_n):
        a = _arrays(n)["numpy"]
        impls = {"ember": lambda: ember.from_dlpack(a), "numpy": lambda: np.from_dlpack(a)}
        if torch is not None:
            impls["torch"] = lambda: torch.from_dlpack(a)
        return impls

    if torch is not None:

        @case(f"dlpack/export: torch.from_dlpack(x) {_label}", target_us=5.0, note="x from each library, PyTorch consumes")
        def _export_torch(n=_n):
            arrays = _arrays(n)
            return {name: (lambda x=x: torch.from_dlpack(x)) for name, x in arrays.items()}

        @case(f"dlpack/import: from_dlpack(torch tensor) {_label}", target_us=5.0,
              note="each library's from_dlpack on a PyTorch tensor")
        def _import_torch(n=_n):
            tt = _arrays(n)["torch"]
            return {"ember": lambda: ember.from_dlpack(tt), "numpy": lambda: np.from_dlpack(tt), "torch": lambda: torch.from_dlpack(tt)}

    @case(f"dlpack/round trip: own(np.from_dlpack(x)) {_label}", target_us=10.0,
          note="each library's array through NumPy and back into the same library: one export and one import each way")
    def _round_trip(n=_n):
        arrays = _arrays(n)
        impls = {"ember": lambda t=arrays["ember"]: ember.from_dlpack(np.from_dlpack(t))}
        if torch is not None:
            impls["torch"] = lambda t=arrays["torch"]: torch.from_dlpack(np.from_dlpack(t))
        return impls

    @case(f"dlpack/capsule only: x.__dlpack__() {_label}", target_us=5.0,
          note="a versioned capsule never consumed: its destructor calls the deleter")
    def _capsule(n=_n):
        arrays = _arrays(n)
        return {name: (lambda x=x: x.__dlpack__(max_version=(1, 0))) for name, x in arrays.items()}


if torch is not None:

    @case("dlpack/import a torch tensor (numpy, torch: the peers' own imports) 1 elem", target_us=3.0,
          note="ember.from_dlpack(torch tensor) vs np.from_dlpack(torch tensor) vs torch.from_dlpack(ndarray): "
               "each consumer's whole import, the result dying at once; target <= 3 us (NumPy 1.8 us there)")  # fmt: skip
    def _import_torch_tensor():
        a = np.ones(1, dtype=np.float32)
        tt = torch.from_numpy(a.copy())
        return {"ember": lambda: ember.from_dlpack(tt), "numpy": lambda: np.from_dlpack(tt), "torch": lambda: torch.from_dlpack(a)}
