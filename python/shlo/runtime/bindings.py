"""The IREE runtime's Python bindings: the only module that imports them.

IREE's bindings report every runtime object still referenced at interpreter exit (a loaded
module held by a script's global) as a leak: a screenful of noise after such scripts, so the
report is turned off once, here.
"""

from __future__ import annotations

import iree.runtime as ireert
from iree.runtime.array_interop import map_dtype_to_element_type

ireert._binding.disable_leak_checker()

__all__ = ["ireert", "map_dtype_to_element_type"]
