"""`shlo-patchify-convolutions`: a convolution whose windows do not overlap, as one matmul.

A vision transformer's patch embedding (`nn.Conv2d(3, 768, 16, stride=16)`) is a convolution
whose stride equals its window: every input element is read once, so the convolution is a
reshape and transpose of the input into patches times the kernel as a matrix.  IREE 3.13
compiles such a convolution as a direct convolution that ran ViT-B's at 42 ms single-threaded
against PyTorch's 3 ms; as a matmul it takes 2 ms.  (IREE's `--iree-global-opt-use-im2col-for-convs`
gets the same for this one but makes 3x3 convolutions 3-4x slower, so it is no default.)

Only exact rewrites: static shapes, stride equal to the window in every spatial dim, no padding,
no dilation, no window reversal, one feature and batch group.  Trailing input rows a strided
window never reaches are sliced off first, as the convolution ignores them.
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir_edit import ops_in
from shlo.python_pass import register_pass
from shlo.stablehlo_world import _stablehlo, ir

_GROUPS = ("feature_group_count", "batch_group_count")
_DILATIONS = ("lhs_dilation", "rhs_dilation")


def _ints(op: Any, name: str) -> list[int] | None:
    if name not in op.attributes:
        return None
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _bools(op: Any, name: str) -> list[bool]:
    return list(ir.DenseBoolArrayAttr(op.attributes[name]))


def _patch_sizes(conv: Any) -> list[int] | None:
    """The window sizes when `conv` is a non-overlapping convolution this pass rewrites."""
    lhs, rhs = (ir.RankedTensorType(value.type) for value in conv.operands)
    result = ir.RankedTensorType(conv.results[0].type)
    if not (lhs.has_static_shape and rhs.has_static_shape and result.has_static_shape):
        return None
    numbers = _stablehlo.ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    window = [rhs.shape[d] for d in numbers.kernel_spatial_dimensions]
    groups = [ir.IntegerAttr(conv.attributes[name]).value for name in _GROUPS]
    padding = conv.attributes["padding"] if "padding" in conv.attributes else None
    if (
        _ints(conv, "window_strides") != window
        or any(_ints(conv, name) not in (None, [1] * len(window)) for name in _DILATIONS)
        or (padding is not None and any(ir.DenseIntElementsAttr(padding)))
        or ("window_reversal" in conv.attributes and any(_bools(conv, "window_reversal")))
        or groups != [1, 1]
    ):
        return None
    return window


def _tensor(shape: list[int], element: Any) -> Any:
    return ir.RankedTensorType.get(shape, element)


def _create(name: str, shape: list[int], element: Any, operands: list, **attributes: Any) -> Any:
    return ir.Operation.create(
        name, results=[_tensor(shape, element)], operands=operands, attributes=attributes
    ).results[0]


def _transpose(value: Any, permutation: list[int]) -> Any:
    if permutation == sorted(permutation):
        return value
    shape = ir.RankedTensorType(value.type).shape
    return _create(
        "stablehlo.transpose",
        [shape[p] for p in permutation],
        value.type.element_type,
        [value],
        permutation=ir.DenseI64ArrayAttr.get(permutation),
    )


def _reshape(value: Any, shape: list[int]) -> Any:
    return _create("stablehlo.reshape", shape, value.type.element_type, [value])


def _rewrite(conv: Any, window: list[int]) -> None:
    numbers = _stablehlo.ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    lhs, rhs = conv.operands
    out_type = ir.RankedTensorType(conv.results[0].type)
    rank = len(window)
    # Input as [batch, spatial..., feature], cut to whole patches, then [rows, patch].
    image = _transpose(
        lhs,
        [
            numbers.input_batch_dimension,
            *numbers.input_spatial_dimensions,
            numbers.input_feature_dimension,
        ],
    )
    batch, *spatial, features = ir.RankedTensorType(image.type).shape
    counts = [size // k for size, k in zip(spatial, window, strict=True)]
    whole = [batch, *(n * k for n, k in zip(counts, window, strict=True)), features]
    if whole != [batch, *spatial, features]:
        image = _create(
            "stablehlo.slice",
            whole,
            image.type.element_type,
            [image],
            start_indices=ir.DenseI64ArrayAttr.get([0] * len(whole)),
            limit_indices=ir.DenseI64ArrayAttr.get(whole),
            strides=ir.DenseI64ArrayAttr.get([1] * len(whole)),
        )
    split = [batch, *(d for n, k in zip(counts, window, strict=True) for d in (n, k)), features]
    patches = _transpose(
        _reshape(image, split),
        [0, *(1 + 2 * i for i in range(rank)), *(2 + 2 * i for i in range(rank)), 2 * rank + 1],
    )
    rows = _reshape(patches, [batch * math.prod(counts), math.prod(window) * features])
    # Kernel as [patch, out features], its patch order the same as the input's.
    kernel = _transpose(
        rhs,
        [
            *numbers.kernel_spatial_dimensions,
            numbers.kernel_input_feature_dimension,
            numbers.kernel_output_feature_dimension,
        ],
    )
    out_features = ir.RankedTensorType(kernel.type).shape[-1]
    matrix = _reshape(kernel, [math.prod(window) * features, out_features])
    attributes = {
        "dot_dimension_numbers": _stablehlo.DotDimensionNumbers.get(
            lhs_batching_dimensions=[],
            rhs_batching_dimensions=[],
            lhs_contracting_dimensions=[1],
            rhs_contracting_dimensions=[0],
        )
    }
    if "precision_config" in conv.attributes:
        attributes["precision_config"] = conv.attributes["precision_config"]
    product = _create(
        "stablehlo.dot_general",
        [batch * math.prod(counts), out_features],
        out_type.element_type,
        [rows, matrix],
        **attributes,
    )
    grid = _reshape(product, [batch, *counts, out_features])
    order = [0] * (rank + 2)
    order[numbers.output_batch_dimension] = 0
    order[numbers.output_feature_dimension] = rank + 1
    for i, dim in enumerate(numbers.output_spatial_dimensions):
        order[dim] = 1 + i
    result = _transpose(grid, order)
    conv.results[0].replace_all_uses_with(result)
    conv.erase()


@register_pass("shlo-patchify-convolutions")
def patchify_convolutions(module: Any, options: None) -> None:
    """Rewrite each convolution whose windows do not overlap as a reshape and a dot_general."""
    with module.context:
        for conv in ops_in(module, "stablehlo.convolution"):
            window = _patch_sizes(conv)
            if window is not None:
                with ir.InsertionPoint(conv), conv.location:
                    _rewrite(conv, window)
