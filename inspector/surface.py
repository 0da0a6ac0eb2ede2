"""Package surfaces that load their modules on first use.

A package lists its public names by the module that defines them; ``import inspector`` (or a
subpackage) then costs nothing, and a name imports its module the first time it is read.
This is what lets ``python -m inspector report`` fork its analysis workers before the engine
(numpy, the splitters, the probe) is imported, and keeps SQLite, CSV and pandas out of a run
that never needs them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module


def lazy_surface(package: str, names: Mapping[str, Sequence[str]]
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for ``package``, whose public names are
    ``names`` (module path relative to the package -> names it defines)."""
    home = {name: module for module, listed in names.items() for name in listed}

    def __getattr__(name: str) -> object:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)  # found directly next time
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(home))

    return __getattr__, __dir__, sorted(home)
