"""``RemovableHandle``: what ``register_*_hook`` returns; ``.remove()`` unregisters the hook.

>>> from collections import OrderedDict
>>> hooks = OrderedDict()
>>> handle = RemovableHandle(hooks)
>>> hooks[handle.id] = print
>>> handle.remove()
>>> len(hooks)
0
"""

from __future__ import annotations

import weakref


class RemovableHandle:
    """A handle on one entry of (one or more) hook dicts; also a context manager that removes it."""

    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None) -> None:
        # weak: a handle kept by user code must not keep a dead module's hooks alive
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict] if extra_dict is not None else []
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<RemovableHandle id={self.id}>"
