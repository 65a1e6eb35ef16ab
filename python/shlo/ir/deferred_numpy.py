"""Import MLIR's Python bindings without paying for numpy until something uses it.

Both wheels' `ir.py` run `import numpy as np` only to define attribute builders
(`I64ElementsAttr` and three more) that call `np.array` when a Python op builder is handed a
list. Loading numpy there is half of the time `shlo-opt` needs to parse and print a small file,
and most runs never build such an attribute. While the bindings load, `numpy` names a stand-in
module that imports the real one the first time an attribute of it is read, so the builders
are registered exactly as before and behave the same when called.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

_NAME = "numpy"


class _OnFirstUse(ModuleType):
    """Stands for numpy in the modules imported under `numpy_on_first_use`."""

    def __getattr__(self, attribute: str) -> Any:
        if sys.modules.get(_NAME) is self:
            del sys.modules[_NAME]
        return getattr(importlib.import_module(_NAME), attribute)


@contextmanager
def numpy_on_first_use() -> Iterator[None]:
    """Within this block, `import numpy` binds a stand-in that loads numpy when first used.

    Does nothing when numpy is already loaded. The stand-in leaves `sys.modules` on exit, so
    any later `import numpy` gets the real module.
    """
    if _NAME in sys.modules:
        yield
        return
    stand_in = _OnFirstUse(_NAME)
    sys.modules[_NAME] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(_NAME) is stand_in:
            del sys.modules[_NAME]
