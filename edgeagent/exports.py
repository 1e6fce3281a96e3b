"""Package front doors that import nothing until a name is used.

Each package's `__init__.py` names its public API with `lazy_exports`: `__all__` lists the
names, and a name's module is imported only when the name is first read. So importing
`edgeagent.engine.base` does not load llama.cpp, and `edgeagent.tui` does not load textual.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, modules: Mapping[str, tuple[str, ...]]
) -> tuple[list[str], Callable[[str], Any]]:
    """`modules`: submodule name -> the public names it defines. Returns (`__all__`,
    a module-level `__getattr__`)."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return sorted(where), __getattr__
