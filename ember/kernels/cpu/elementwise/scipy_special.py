"""SciPy's special functions as an optional accelerator of ember's float64 kernels.

``scipy.special`` is not a dependency of ember: when it is importable (the ``special`` extra), the
float64 erf and erfinv kernels call it (about 10x and 25x faster than ember's NumPy evaluations
and as accurate: within ~4e-16 and ~7e-16 relative of them); otherwise, or inside
``numpy_special()``, they run ember's own NumPy code. Only functions that keep float64 rounding
go through SciPy: its erfc loses ~1.7e-15 relative near x = 1 and more in the tail, and its
gammaln ~1e-10 relative near the zeros of lgamma at 1 and 2, so erfc and lgamma stay on ember's
code.

>>> with numpy_special():
...     scipy_special() is None
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from types import ModuleType

__all__ = ["numpy_special", "scipy_special"]

_ENABLED: ContextVar[bool] = ContextVar("ember_scipy_special", default=True)
_MODULE: list[ModuleType | None] = []  # filled on first use: [scipy.special] or [None]


def scipy_special() -> ModuleType | None:
    """``scipy.special`` when it is importable and not switched off in this context, else None."""
    if not _ENABLED.get():
        return None
    if not _MODULE:
        try:  # imported on first use: optional, and ~0.1 s that `import ember` should not pay
            import scipy.special as module
        except ImportError:
            module = None
        _MODULE.append(module)
    return _MODULE[0]


@contextlib.contextmanager
def numpy_special() -> Iterator[None]:
    """Within the block, the special-function kernels use ember's NumPy code even when SciPy is
    importable (for tests that cover both paths, and to compare them)."""
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)
