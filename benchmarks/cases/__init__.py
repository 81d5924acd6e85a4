"""The benchmark cases. Importing a module registers its cases: every module of this package
whose name does not start with an underscore is imported, in name order (workers start with one)."""

import importlib
import pkgutil

__all__ = sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))

for _name in __all__:
    importlib.import_module(f"{__name__}.{_name}")
