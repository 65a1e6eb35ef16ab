"""`dense_resource` constants rewritten as dense elements, for consumers that cannot use blobs.

torch-mlir's importer puts every tensor constant in a resource blob.  The interpreter binding
misreads such blobs, and IREE's Vulkan target, which narrows i64 to i32, cannot retype one
(`'arith.constant' op failed to verify that all of {value, result} have same type`).  The
bytes are read from the module's printed resource section (`0x`, a 4-byte alignment word, the
data), the one place the bindings expose them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from shlo.ir.edit import ops_in
from shlo.ir.element_types import DTYPES
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import ir

_RESOURCE = re.compile(r'^\s*([\w.$-]+): "0x([0-9A-Fa-f]*)"', re.MULTILINE)


def inline_resources(module: Any, wanted: Callable[[str], bool] = lambda _: True) -> None:
    """Rewrite each `stablehlo.constant` whose value is a resource blob, and whose element type
    (`i64`, `f32`) `wanted` accepts, as dense elements."""
    constants = [
        op
        for op in ops_in(module, "stablehlo.constant")
        if str(constant_value(op)).startswith("dense_resource<")
        and wanted(str(op.results[0].type.element_type))
    ]
    if not constants:
        return
    blobs = {
        name: bytes.fromhex(data)[4:]
        for name, data in _RESOURCE.findall(module.operation.get_asm(assume_verified=True))
    }
    for op in constants:
        name = str(constant_value(op)).split("<", 1)[1].split(">", 1)[0]
        shaped = op.results[0].type
        dtype = DTYPES.get(str(shaped.element_type))
        if name not in blobs or dtype is None:
            continue
        array = np.frombuffer(blobs[name], dtype=dtype).reshape(shaped.shape)
        op.attributes["value"] = ir.DenseElementsAttr.get(array, type=shaped)
