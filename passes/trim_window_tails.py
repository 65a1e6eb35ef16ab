"""`shlo-trim-window-tails`: a window op's input without the tail no window reaches.

A `stablehlo.reduce_window` or `stablehlo.convolution` whose strided windows stop short of the
end of its padded input ignores that tail: `avg_pool2d(x, 2)` of 3 rows reads the first two.
IREE 3.13 fails to compile such an op when one of its output's spatial dimensions has size 1
("'linalg.generic' op inferred input/output operand #1 has shape's dimension #0 to be 5, but
found 3"), which pooling or convolving a small input with a stride hits.  This pass takes the
tail off each spatial dimension: high padding first, then the input's last elements (where
the input is not dilated).  The windows, and so every result element, stay as they were.
Ops with dynamic shapes are left as they are.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create, rewrite_each, shaped_like
from shlo.ir.stablehlo import ConvDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass


def _ints(op: Any, name: str, default: list[int]) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else default


def _trimmed(
    value: Any,
    dims: list[int],
    window: list[int],
    strides: list[int],
    input_dilations: list[int],
    window_dilations: list[int],
    padding: list[list[int]],
    outputs: list[int],
) -> tuple[Any, list[list[int]]] | None:
    """`value` and `padding` (per dimension of `dims`) without the tails, or None where
    there is none to take off."""
    shape = list(ir.RankedTensorType(value.type).shape)
    limits, pads, changed = list(shape), [list(pair) for pair in padding], False
    for i, d in enumerate(dims):
        (low, high), n = pads[i], shape[d]
        extent = low + (n - 1) * input_dilations[i] + 1 + high
        needed = (outputs[i] - 1) * strides[i] + (window[i] - 1) * window_dilations[i] + 1
        tail = extent - needed
        if tail <= 0 or outputs[i] < 1:
            continue
        cut = min(tail, max(high, 0))
        pads[i][1] -= cut
        rest = tail - cut
        if rest and (input_dilations[i] != 1 or rest >= n):
            pads[i][1] += cut  # only part of the tail could go: leave this dimension whole
            continue
        limits[d] -= rest
        changed = True
    if not changed:
        return None
    if limits != shape:
        attributes = {
            "start_indices": ir.DenseI64ArrayAttr.get([0] * len(shape)),
            "limit_indices": ir.DenseI64ArrayAttr.get(limits),
            "strides": ir.DenseI64ArrayAttr.get([1] * len(shape)),
        }
        value = create("stablehlo.slice", shaped_like(value, limits), [value], attributes)
    return value, pads


def _padding(op: Any, rank: int) -> list[list[int]]:
    if "padding" not in op.attributes:
        return [[0, 0] for _ in range(rank)]
    flat = list(ir.DenseIntElementsAttr(op.attributes["padding"]))
    return [flat[2 * i : 2 * i + 2] for i in range(rank)]


def _padding_attribute(pads: list[list[int]]) -> Any:
    import numpy as np  # numpy stays out of shlo-opt's start-up

    return ir.DenseIntElementsAttr.get(np.array(pads, dtype=np.int64))


def _static(op: Any) -> bool:
    values = [*op.operands, *op.results]
    return all(ir.RankedTensorType(v.type).has_static_shape for v in values)


def _trim_reduce_window(op: Any) -> None:
    if not _static(op):
        return
    count = len(op.results)
    shape = list(ir.RankedTensorType(op.operands[0].type).shape)
    rank = len(shape)
    ones = [1] * rank
    window = _ints(op, "window_dimensions", ones)
    strides = _ints(op, "window_strides", ones)
    base = _ints(op, "base_dilations", ones)
    dilations = _ints(op, "window_dilations", ones)
    outputs = list(ir.RankedTensorType(op.results[0].type).shape)
    padding = _padding(op, rank)
    dims, found = list(range(rank)), None
    for index in range(count):
        found = _trimmed(
            op.operands[index], dims, window, strides, base, dilations, padding, outputs
        )
        if found is None:
            return
        op.operands[index] = found[0]
    if found is not None:
        op.attributes["padding"] = _padding_attribute(found[1])


def _trim_convolution(op: Any) -> None:
    if not _static(op):
        return
    numbers = ConvDimensionNumbers(op.attributes["dimension_numbers"])
    spatial = list(numbers.input_spatial_dimensions)
    ones = [1] * len(spatial)
    kernel = ir.RankedTensorType(op.operands[1].type).shape
    result = ir.RankedTensorType(op.results[0].type).shape
    found = _trimmed(
        op.operands[0],
        spatial,
        [kernel[d] for d in numbers.kernel_spatial_dimensions],
        _ints(op, "window_strides", ones),
        _ints(op, "lhs_dilation", ones),
        _ints(op, "rhs_dilation", ones),
        _padding(op, len(spatial)),
        [result[d] for d in numbers.output_spatial_dimensions],
    )
    if found is not None:
        op.operands[0] = found[0]
        op.attributes["padding"] = _padding_attribute(found[1])


@register_pass("shlo-trim-window-tails")
def trim_window_tails(module: Any, options: None) -> None:
    """Take off the tail of each window op's padded input that no window reaches."""
    rewrite_each(module, "stablehlo.reduce_window", _trim_reduce_window)
    rewrite_each(module, "stablehlo.convolution", _trim_convolution)
