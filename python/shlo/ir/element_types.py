"""MLIR element types and the numpy dtypes that hold them, for the runtime, the interpreter and
the command line (no bindings needed)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

DTYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "ui8": np.uint8,
    "ui16": np.uint16,
    "ui32": np.uint32,
    "ui64": np.uint64,
    "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
}


def as_saved(array: np.ndarray, dtype: str) -> np.ndarray:
    """`array` read back from `np.save`, which writes bfloat16 as 2-byte voids, as `dtype` (a
    numpy dtype name, or `bfloat16`)."""
    if dtype == "bfloat16" and array.dtype == np.dtype("V2"):
        return array.view(ml_dtypes.bfloat16)
    return array
