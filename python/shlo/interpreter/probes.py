"""Values taken out of a running program through `interpreter.probe`, wherever they are computed.

The interpreter writes each probed value as a `.npy` file and one `probe_id,type,path` line in
`index.csv` per execution, so a probe inside a called function, a loop body or a parallel
program records every value it sees.  The pinned interpreter serializes only some element types
(it aborts on complex<f64>, 4-bit integers and small floats), so a value is first brought to a
type it writes: complex numbers as their real and imaginary parts, small floats converted to
f32 (exactly), narrow integers widened to 8 bits.  The `.npy` headers do not name the true
element type (f16 is written as `<u2`), so files are read as raw bytes in the type the index
line names.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from shlo.interpreter.tensor_text import split_tensor_type
from shlo.ir.edit import create
from shlo.ir.element_types import DTYPES
from shlo.ir.stablehlo import ir

INDEX = "index.csv"
_WRITTEN = {**DTYPES, "bf16": ml_dtypes.bfloat16}
SMALL_FLOATS = {
    "f4E2M1FN": ml_dtypes.float4_e2m1fn,
    "f6E2M3FN": ml_dtypes.float6_e2m3fn,
    "f6E3M2FN": ml_dtypes.float6_e3m2fn,
    "f8E3M4": ml_dtypes.float8_e3m4,
    "f8E4M3": ml_dtypes.float8_e4m3,
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz,
    "f8E5M2": ml_dtypes.float8_e5m2,
    "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
    "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
}
NARROW_INTEGERS = {
    "i2": ml_dtypes.int2,
    "i4": ml_dtypes.int4,
    "ui2": ml_dtypes.uint2,
    "ui4": ml_dtypes.uint4,
}
# Every element type upstream's interpreter takes and gives (reference/Types.cpp), as numpy.
NUMPY_TYPES: dict[str, Any] = {**_WRITTEN, **SMALL_FLOATS, **NARROW_INTEGERS}


@dataclass(frozen=True)
class ProbeRecord:
    """One execution of one probe: its id, the MLIR type written, the file."""

    probe_id: str
    type: str
    path: str


def read_index(directory: str | Path) -> list[ProbeRecord]:
    """The probe executions in the order they ran (none when nothing was probed)."""
    index = Path(directory) / INDEX
    if not index.exists():
        return []
    with index.open(newline="") as stream:
        return [ProbeRecord(*row[:3]) for row in csv.reader(stream) if len(row) >= 3]


def load(record: ProbeRecord) -> np.ndarray:
    """The probed value as numpy, read by the type its index line names."""
    shape, element = split_tensor_type(record.type.strip()[len("tensor<") : -1])
    dtype = _WRITTEN.get(element)
    if dtype is None:
        raise ValueError(f"probe {record.probe_id}: cannot read element type {element}")
    data = Path(record.path).read_bytes()
    header = int.from_bytes(data[8:10], "little") + 10
    return np.frombuffer(data[header:], dtype=np.dtype(dtype)).reshape(shape)


@dataclass(frozen=True)
class Probed:
    """How one value was probed: the ids written and how to put the value back together."""

    element: str  # the value's MLIR element type
    ids: tuple[str, ...]  # one id, or (real, imaginary) for complex values

    def value(self, records: dict[str, list[ProbeRecord]], execution: int) -> np.ndarray:
        """The value as seen at its `execution`-th run, in numpy's nearest type (ml_dtypes for
        small floats, complex128/64 for complex)."""
        parts = [load(records[i][execution]) for i in self.ids]
        if len(parts) == 2:
            return join_complex(*parts)
        if self.element in SMALL_FLOATS:
            return parts[0].astype(SMALL_FLOATS[self.element])
        return parts[0]


def join_complex(real: np.ndarray, imaginary: np.ndarray) -> np.ndarray:
    """Complex numbers from their parts, set apart (`re + 1j * im` makes (0, inf) (nan, inf))."""
    joined = np.empty(real.shape, np.complex64 if real.dtype == np.float32 else np.complex128)
    joined.real, joined.imag = real, imaginary
    return joined


def probe(value: Any, probe_id: str) -> Probed:
    """Probe `value` at the current insertion point under `probe_id`, first brought to a type
    the interpreter writes."""
    element = ir.RankedTensorType(value.type).element_type
    name = str(element)
    if isinstance(element, ir.ComplexType):
        ids = (f"{probe_id}.re", f"{probe_id}.im")
        for part_value, part_id in zip(complex_parts(value), ids, strict=True):
            _probe_op(part_value, part_id)
        return Probed(name, ids)
    _probe_op(widened(value, SMALL_FLOATS), probe_id)
    return Probed(name, (probe_id,))


def widened(value: Any, floats: Iterable[str]) -> Any:
    """`value` converted, at the insertion point, to a type that holds it exactly and that numpy
    reads: the float types named in `floats` to f32 (sign and NaN included), integers narrower
    than 8 bits to 8 bits; else `value` itself."""
    tensor = ir.RankedTensorType(value.type)
    element, shape = tensor.element_type, list(tensor.shape)
    if str(element) in floats:
        return create(
            "stablehlo.convert", ir.RankedTensorType.get(shape, ir.F32Type.get()), [value]
        )
    if isinstance(element, ir.IntegerType) and 1 < ir.IntegerType(element).width < 8:
        return _widen(value, shape, unsigned=ir.IntegerType(element).is_unsigned)
    return value


def complex_parts(value: Any) -> tuple[Any, Any]:
    """`stablehlo.real` and `stablehlo.imag` of a complex tensor, at the insertion point."""
    tensor = ir.RankedTensorType(value.type)
    part = ir.RankedTensorType.get(
        list(tensor.shape), ir.ComplexType(tensor.element_type).element_type
    )
    return create("stablehlo.real", part, [value]), create("stablehlo.imag", part, [value])


def _widen(value: Any, shape: list[int], unsigned: bool) -> Any:
    """A narrow integer tensor converted to 8 bits (values unchanged)."""
    wide = ir.IntegerType.get_unsigned(8) if unsigned else ir.IntegerType.get_signless(8)
    return create("stablehlo.convert", ir.RankedTensorType.get(shape, wide), [value])


def _probe_op(value: Any, probe_id: str) -> None:
    create("interpreter.probe", value.type, [value], {"probe_id": ir.StringAttr.get(probe_id)})
