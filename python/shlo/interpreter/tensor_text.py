"""Interpreter results as `stablehlo-translate --interpret` prints them.

Its default layout is the interpreter's own (`tensor<2x2xi8> {` then nested rows, innermost
dimension on one line); `--interpreter-print-dense` prints the elements attribute instead.
Elements keep MLIR's spelling (`1.000000e+00`, `true`): they are taken from the attribute text
MLIR printed, never reformatted by Python.  MLIR prints an attribute of more than 100 elements,
not all the same, as a hex string of its raw data (`dense<"0x...">`); those bytes are handed back
to MLIR in short runs to be spelled element by element, and complex ones are taken apart and put
together as raw data, so every layout holds for every size.
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np

from shlo.ir.stablehlo import ir
from shlo.ir.text import split_top_level

_ATTRIBUTE = re.compile(r"^dense<(.*)> : tensor<(.*)>$", re.DOTALL)
_HEX = re.compile(r'^"0x([0-9A-Fa-f]*)"$')
_SPELLED = 100  # the most elements MLIR spells out before it prints raw hex
Element = str | tuple[str, str]  # a complex element is its (real, imaginary) parts
Nested = list["Nested"] | Element


def split_tensor_type(tensor_type: str) -> tuple[list[int], str]:
    """`2x3xf32` -> ([2, 3], 'f32'); `f32` -> ([], 'f32')."""
    element = tensor_type.lstrip("0123456789x")  # no element type starts with a digit or x
    dims = tensor_type[: len(tensor_type) - len(element)]
    return [int(d) for d in dims.split("x")[:-1]], element


def _parse(body: str) -> Nested:
    """`[[1, 2], [3, 4]]` as nested lists of element strings."""
    body = body.strip()
    if body.startswith("["):
        return [_parse(item) for item in split_top_level(body[1:-1]) if item.strip()]
    if body.startswith("("):
        real, imaginary = body[1:-1].split(",")
        return (real.strip(), imaginary.strip())
    return body


def _flat(value: Nested) -> list[Element]:
    return [e for item in value for e in _flat(item)] if isinstance(value, list) else [value]


def _nest(elements: list[str], shape: list[int]) -> str:
    """Flat element texts as MLIR's nested brackets for `shape`."""
    if not shape:
        return elements[0]
    step = len(elements) // shape[0] if shape[0] else 0
    rows = [_nest(elements[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]
    return f"[{', '.join(rows)}]"


def _groups(text: str) -> tuple[str, str]:
    """(body, tensor type) of an elements attribute's text."""
    match = _ATTRIBUTE.match(text.strip())
    if not match:
        raise ValueError(f"not an elements attribute: {text[:80]}")
    body, tensor_type = match.groups()
    return body.strip(), tensor_type


def _element_bytes(element: str) -> int:
    """The bytes one element takes in MLIR's raw data (sub-byte types take a whole byte)."""
    if element.startswith("complex<"):
        return 2 * _element_bytes(element[len("complex<") : -1])
    width = re.match(r"u?[if](\d+)", element)
    bits = 16 if element == "bf16" else int(width.group(1)) if width else 0
    if not bits:
        raise ValueError(f"unknown element type {element}")
    return (bits + 7) // 8


@functools.cache
def _context() -> ir.Context:
    return ir.Context()


def _raw(body: str, element: str, count: int) -> np.ndarray:
    """The raw data of `count` elements, one row of bytes each, from a hex body or a spelled
    splat."""
    hexed = _HEX.match(body)
    if hexed:
        data = bytes.fromhex(hexed.group(1))
    else:
        with _context():
            attribute = ir.DenseElementsAttr(
                ir.Attribute.parse(f"dense<{body}> : tensor<{element}>")
            )
            data = np.array(attribute).tobytes()
    rows = np.frombuffer(data, np.uint8).reshape(-1, _element_bytes(element))
    return np.broadcast_to(rows, (count, rows.shape[1])) if len(rows) == 1 else rows


def _spelled(rows: np.ndarray, element: str) -> list[str]:
    """Raw elements (one row of bytes each) as MLIR spells them, in runs short enough that MLIR
    does not print hex."""
    if element.startswith("complex<"):
        half = rows.shape[1] // 2
        part = element[len("complex<") : -1]
        pairs = zip(_spelled(rows[:, :half], part), _spelled(rows[:, half:], part), strict=True)
        return [f"({real},{imaginary})" for real, imaginary in pairs]
    values = np.ascontiguousarray(rows).view(f"u{rows.shape[1]}").reshape(-1)
    spelled: list[str] = []
    with _context(), ir.Location.unknown():
        element_type = ir.Type.parse(element)
        for start in range(0, len(values), _SPELLED):
            run = values[start : start + _SPELLED]
            attribute = ir.DenseElementsAttr.get(run, type=element_type, shape=[len(run)])
            body, _ = _groups(str(attribute))
            items = _flat(_parse(body))
            spelled += [str(e) for e in items] * (len(run) if len(items) == 1 else 1)
    return spelled


def _hex_attribute(rows: np.ndarray, tensor_type: str) -> str:
    return (
        f'dense<"0x{np.ascontiguousarray(rows).tobytes().hex().upper()}"> : tensor<{tensor_type}>'
    )


def complex_attribute(real: str, imaginary: str) -> str:
    """The attribute text of a complex tensor from those of its real and imaginary parts
    (`dense<1.0> : tensor<2xf32>` twice -> `dense<(1.0,1.0)> : tensor<2xcomplex<f32>>`), spelled
    as MLIR spells it: raw hex when a part is."""
    (real_body, tensor_type), (imaginary_body, _) = _groups(real), _groups(imaginary)
    shape, element = split_tensor_type(tensor_type)
    dims = tensor_type[: len(tensor_type) - len(element)]
    complex_type = f"tensor<{dims}complex<{element}>>"
    count = math.prod(shape)
    if _HEX.match(real_body) or _HEX.match(imaginary_body):
        rows = [_raw(body, element, count) for body in (real_body, imaginary_body)]
        return _hex_attribute(np.concatenate(rows, axis=1), f"{dims}complex<{element}>")
    splat = [not body.startswith("[") for body in (real_body, imaginary_body)]
    if all(splat):
        return f"dense<({real_body},{imaginary_body})> : {complex_type}"
    columns = []
    for body, is_splat in zip((real_body, imaginary_body), splat, strict=True):
        elements = [str(e) for e in _flat(_parse(body))]
        columns.append(elements * count if is_splat else elements)
    pairs = [f"({r},{i})" for r, i in zip(*columns, strict=True)]
    return f"dense<{_nest(pairs, shape)}> : {complex_type}"


def complex_parts_text(text: str) -> tuple[str, str]:
    """The attribute texts of a complex tensor's real and imaginary parts, from its text as MLIR
    printed it (the inverse of `complex_attribute`)."""
    body, tensor_type = _groups(text)
    shape, element = split_tensor_type(tensor_type)
    if not element.startswith("complex<"):
        raise ValueError(f"not a complex tensor: tensor<{tensor_type}>")
    part = element[len("complex<") : -1]
    part_type = f"{tensor_type[: len(tensor_type) - len(element)]}{part}"
    if _HEX.match(body):
        rows = _raw(body, element, math.prod(shape))
        half = rows.shape[1] // 2
        return _hex_attribute(rows[:, :half], part_type), _hex_attribute(rows[:, half:], part_type)
    value = _parse(body) if math.prod(shape) else []
    if isinstance(value, tuple):  # a splat
        real, imaginary = value
    else:
        pairs = _flat(value)
        real = _nest([p[0] for p in pairs], shape) if pairs else ""
        imaginary = _nest([p[1] for p in pairs], shape) if pairs else ""
    return f"dense<{real}> : tensor<{part_type}>", f"dense<{imaginary}> : tensor<{part_type}>"


def _filled(shape: list[int], value: Nested) -> Nested:
    """A splat attribute's one value repeated over its shape (rows of an empty one: [])."""
    return value if not shape else [_filled(shape[1:], value) for _ in range(shape[0])]


def _element(value: Nested) -> str:
    return value if isinstance(value, str) else f"[{value[0]}, {value[1]}]"


def _layout(value: Nested, indent: int) -> list[str]:
    """Rows of elements on one line; every outer dimension opens its own bracket."""
    pad = " " * indent
    if not isinstance(value, list):
        return [pad + _element(value)]
    if not value or not isinstance(value[0], list):
        return [f"{pad}[{', '.join(_element(v) for v in value)}]"]
    lines = [pad + "["]
    for index, child in enumerate(value):
        child_lines = _layout(child, indent + 2)
        if index < len(value) - 1:
            child_lines[-1] += ","
        lines += child_lines
    return [*lines, pad + "]"]


def interpreter_layout(attribute: str) -> str:
    """`dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>` in the interpreter's layout."""
    match = _ATTRIBUTE.match(attribute.strip())
    if not match:
        return attribute
    body, tensor_type = match.groups()
    shape, element = split_tensor_type(tensor_type)
    if _HEX.match(body.strip()):
        body = _nest(_spelled(_raw(body.strip(), element, math.prod(shape)), element), shape)
    if 0 in shape:  # no elements: the rows before the first zero dimension, each empty
        value: Nested = _filled(shape[: shape.index(0)], [])
    elif body.strip().startswith("["):
        value = _parse(body)
    else:
        value = _filled(shape, _parse(body))
    if not shape:
        return f"tensor<{tensor_type}> {{{_element(value)}}}"
    return "\n".join([f"tensor<{tensor_type}> {{", *_layout(value, 2), "}"])
