"""Interpreter results as `stablehlo-translate --interpret` prints them.

Its default layout is the interpreter's own (`tensor<2x2xi8> {` then nested rows, innermost
dimension on one line); `--interpreter-print-dense` prints the elements attribute instead.
Elements keep MLIR's spelling (`1.000000e+00`, `true`): they are taken from the attribute text
MLIR printed, never reformatted by Python.
"""

from __future__ import annotations

import re

from shlo.ir.text import split_top_level

_ATTRIBUTE = re.compile(r"^dense<(.*)> : tensor<(.*)>$", re.DOTALL)
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


def complex_attribute(real: str, imaginary: str) -> str:
    """The attribute text of a complex tensor from those of its real and imaginary parts
    (`dense<1.0> : tensor<2xf32>` twice -> `dense<(1.0,1.0)> : tensor<2xcomplex<f32>>`)."""
    parts = []
    for text in (real, imaginary):
        match = _ATTRIBUTE.match(text.strip())
        if not match:
            raise ValueError(f"not an elements attribute: {text[:80]}")
        parts.append(match.groups())
    (real_body, tensor_type), (imaginary_body, _) = parts
    shape, element = split_tensor_type(tensor_type)
    complex_type = f"tensor<{tensor_type[: len(tensor_type) - len(element)]}complex<{element}>>"
    splat = [not body.strip().startswith("[") for body in (real_body, imaginary_body)]
    if all(splat):
        return f"dense<({real_body.strip()},{imaginary_body.strip()})> : {complex_type}"
    count = 1
    for dim in shape:
        count *= dim
    columns = []
    for body, is_splat in zip((real_body, imaginary_body), splat, strict=True):
        elements = [str(e) for e in _flat(_parse(body))]
        columns.append(elements * count if is_splat else elements)
    pairs = [f"({r},{i})" for r, i in zip(*columns, strict=True)]
    return f"dense<{_nest(pairs, shape)}> : {complex_type}"


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
    shape, _ = split_tensor_type(tensor_type)
    if 0 in shape:  # no elements: the rows before the first zero dimension, each empty
        value: Nested = _filled(shape[: shape.index(0)], [])
    elif body.strip().startswith("["):
        value = _parse(body)
    else:
        value = _filled(shape, _parse(body))
    if not shape:
        return f"tensor<{tensor_type}> {{{_element(value)}}}"
    return "\n".join([f"tensor<{tensor_type}> {{", *_layout(value, 2), "}"])
