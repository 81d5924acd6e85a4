"""``no_grad`` for nn's in-place initialisation and copies, independent of autograd's progress.

>>> from ember.nn._grad import no_grad
>>> with no_grad():
...     pass
"""

from __future__ import annotations

import contextlib


def no_grad():
    """``ember.no_grad()`` once autograd provides it; until then plain writes are already untracked."""
    import ember

    factory = getattr(ember, "no_grad", None)
    return factory() if factory is not None else contextlib.nullcontext()
