"""`shlo-patchify-convolutions`: a convolution whose windows do not overlap, as one matmul.

A vision transformer's patch embedding (`nn.Conv2d(3, 768, 16, stride=16)`) is a convolution
whose stride equals its window: every input element is read once, so the convolution is a
reshape and transpose of the input into patches times the kernel as a matrix.  IREE 3.13
compiles such a convolution as a slow direct convolution, and as a matmul it is fast.  (IREE's
`--iree-global-opt-use-im2col-for-convs` does the same for this one but slows 3x3
convolutions down, so it is no default.)  A ResNet's 1x1 convolutions (stride 1, or 2 in its
downsampling shortcuts: every other row and column, then a 1x1) are the same case.  A matmul
whose result is transposed back to a channels-first output is fenced off from what follows
(an optimization_barrier): IREE otherwise fuses that transpose, the batch norm and the next
convolution's padding into its store, and a matmul writing that layout is one it does not
data-tile; so is one whose result goes on through a transpose.  A channels-last output
(`shlo-channels-last` runs first in the IREE driver) that no transpose follows needs no fence,
and each fence would split IREE's stream into one more command buffer.
The measurements are in benchmarks/README.md.

Only exact rewrites: static shapes, each spatial stride equal to its window or a window of 1,
no padding, no dilation, no window reversal, one feature and batch group, and windows that
tile the input to its end: trailing rows no window reads are `shlo-trim-window-tails`'s to cut,
and it runs before this pass in the IREE driver.

Overlapping windows (a ResNet's 3x3 convolutions) become the same matmul by im2col when the
input is wide and the output not large: the padded input is sliced once per window offset
(strided by the stride) and the slices concatenated along the features.  IREE 3.13's direct
convolution was slower than that matmul on 3x3 convolutions of 256 or more input features
(outputs up to 28x28, the largest measured) and faster on narrower ones, so only
convolutions of at least `IM2COL_MIN_FEATURES` input features and at most
`IM2COL_MAX_POSITIONS` output positions a batch are rewritten.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, cast

from shlo.ir.edit import rewrite_each, transpose
from shlo.ir.elementwise import static_float, zeros
from shlo.ir.stablehlo import ConvDimensionNumbers, DotDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass

_GROUPS = ("feature_group_count", "batch_group_count")
_DILATIONS = ("lhs_dilation", "rhs_dilation")
IM2COL_MIN_FEATURES = 256
IM2COL_MAX_POSITIONS = 28 * 28


def _ints(op: Any, name: str) -> list[int] | None:
    if name not in op.attributes:
        return None
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _bools(op: Any, name: str) -> list[bool]:
    return list(ir.DenseBoolArrayAttr(op.attributes[name]))


def _window(conv: Any) -> tuple[list[int], list[int], list[int]] | None:
    """The window sizes, strides and padding (low and high per spatial dimension, flattened) of
    a convolution this pass can rewrite at all: static shapes, no dilation, no window
    reversal, one feature and batch group."""
    lhs, rhs = (ir.RankedTensorType(value.type) for value in conv.operands)
    result = ir.RankedTensorType(conv.results[0].type)
    if not (lhs.has_static_shape and rhs.has_static_shape and result.has_static_shape):
        return None
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    window = [rhs.shape[d] for d in numbers.kernel_spatial_dimensions]
    groups = [ir.IntegerAttr(conv.attributes[name]).value for name in _GROUPS]
    padding = conv.attributes["padding"] if "padding" in conv.attributes else None
    if (
        any(_ints(conv, name) not in (None, [1] * len(window)) for name in _DILATIONS)
        or ("window_reversal" in conv.attributes and any(_bools(conv, "window_reversal")))
        or groups != [1, 1]
    ):
        return None
    pads = list(ir.DenseIntElementsAttr(padding)) if padding is not None else [0] * 2 * len(window)
    return window, _ints(conv, "window_strides") or [1] * len(window), pads


def _non_overlapping(conv: Any, window: list[int], strides: list[int], pads: list[int]) -> bool:
    """Each spatial stride equals its window and the windows end where the input does, or the
    window is 1 (a strided 1x1); no padding."""
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    shape = ir.RankedTensorType(conv.operands[0].type).shape
    spatial = [shape[d] for d in numbers.input_spatial_dimensions]
    fits = all(
        k == 1 or (k == stride and size % k == 0)
        for k, stride, size in zip(window, strides, spatial, strict=True)
    )
    return fits and not any(pads)


def _im2col_pays(conv: Any) -> bool:
    """At least `IM2COL_MIN_FEATURES` input features and at most `IM2COL_MAX_POSITIONS`
    output positions a batch."""
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    features = ir.RankedTensorType(conv.operands[0].type).shape[numbers.input_feature_dimension]
    shape = ir.RankedTensorType(conv.results[0].type).shape
    positions = math.prod(shape[d] for d in numbers.output_spatial_dimensions)
    return cast(bool, features >= IM2COL_MIN_FEATURES and positions <= IM2COL_MAX_POSITIONS)


def _tensor(shape: list[int], element: Any) -> Any:
    return ir.RankedTensorType.get(shape, element)


def _create(
    name: str, shape: list[int], element: Any, operands: list[Any], **attributes: Any
) -> Any:
    return ir.Operation.create(
        name, results=[_tensor(shape, element)], operands=operands, attributes=attributes
    ).results[0]


def _reshape(value: Any, shape: list[int]) -> Any:
    return _create("stablehlo.reshape", shape, value.type.element_type, [value])


def _image(conv: Any) -> Any:
    """The input as [batch, spatial..., feature]."""
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    return transpose(
        conv.operands[0],
        [
            numbers.input_batch_dimension,
            *numbers.input_spatial_dimensions,
            numbers.input_feature_dimension,
        ],
    )


def _patch_rows(conv: Any, window: list[int], strides: list[int]) -> tuple[Any, list[int]]:
    """Non-overlapping patches as [rows, patch] (rows batch-major, then spatial), and how many
    patches each spatial dimension has."""
    rank = len(window)
    image = _image(conv)
    batch, *spatial, features = ir.RankedTensorType(image.type).shape
    # A 1-wide window with stride s reads every s-th row; a window as wide as its stride reads
    # whole patches.
    steps = [stride if k == 1 else 1 for k, stride in zip(window, strides, strict=True)]
    counts = [-(-size // step) // k for size, k, step in zip(spatial, window, steps, strict=True)]
    if steps != [1] * rank:
        image = _create(
            "stablehlo.slice",
            [batch, *(n * k for n, k in zip(counts, window, strict=True)), features],
            image.type.element_type,
            [image],
            start_indices=ir.DenseI64ArrayAttr.get([0] * (rank + 2)),
            limit_indices=ir.DenseI64ArrayAttr.get([batch, *spatial, features]),
            strides=ir.DenseI64ArrayAttr.get([1, *steps, 1]),
        )
    split = [batch, *(d for n, k in zip(counts, window, strict=True) for d in (n, k)), features]
    patches = transpose(
        _reshape(image, split),
        [0, *(1 + 2 * i for i in range(rank)), *(2 + 2 * i for i in range(rank)), 2 * rank + 1],
    )
    return _reshape(patches, [batch * math.prod(counts), math.prod(window) * features]), counts


def _im2col_rows(
    conv: Any, window: list[int], strides: list[int], pads: list[int]
) -> tuple[Any, list[int]]:
    """Overlapping windows as [rows, patch]: the padded input sliced at each window offset,
    the slices side by side along the features, in the kernel's (spatial..., feature) order."""
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    result = ir.RankedTensorType(conv.results[0].type).shape
    counts = [result[d] for d in numbers.output_spatial_dimensions]
    image = _image(conv)
    batch, *spatial, features = ir.RankedTensorType(image.type).shape
    element = image.type.element_type
    low, high = pads[0::2], pads[1::2]
    if any(pads):
        spatial = [size + lo + hi for size, lo, hi in zip(spatial, low, high, strict=True)]
        image = _create(
            "stablehlo.pad",
            [batch, *spatial, features],
            element,
            [image, zeros(_tensor([], element))],
            edge_padding_low=ir.DenseI64ArrayAttr.get([0, *low, 0]),
            edge_padding_high=ir.DenseI64ArrayAttr.get([0, *high, 0]),
            interior_padding=ir.DenseI64ArrayAttr.get([0] * (len(window) + 2)),
        )
    shifted = [
        _create(
            "stablehlo.slice",
            [batch, *counts, features],
            element,
            [image],
            start_indices=ir.DenseI64ArrayAttr.get([0, *offset, 0]),
            limit_indices=ir.DenseI64ArrayAttr.get(
                [
                    batch,
                    *(o + (n - 1) * s + 1 for o, n, s in zip(offset, counts, strides, strict=True)),
                    features,
                ]
            ),
            strides=ir.DenseI64ArrayAttr.get([1, *strides, 1]),
        )
        for offset in itertools.product(*(range(k) for k in window))
    ]
    patch = math.prod(window) * features
    columns = _create(
        "stablehlo.concatenate",
        [batch, *counts, patch],
        element,
        shifted,
        dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(window) + 1),
    )
    return _reshape(columns, [batch * math.prod(counts), patch]), counts


def _rewrite(conv: Any, window: list[int], rows: Any, counts: list[int]) -> None:
    """`conv` as `rows` times its kernel as a matrix, back in the convolution's layout."""
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    rhs = conv.operands[1]
    out_type = ir.RankedTensorType(conv.results[0].type)
    rank = len(window)
    batch = ir.RankedTensorType(conv.operands[0].type).shape[numbers.input_batch_dimension]
    # Kernel as [patch, out features], its patch order the same as the input's.
    kernel = transpose(
        rhs,
        [
            *numbers.kernel_spatial_dimensions,
            numbers.kernel_input_feature_dimension,
            numbers.kernel_output_feature_dimension,
        ],
    )
    *_, features, out_features = ir.RankedTensorType(kernel.type).shape
    matrix = _reshape(kernel, [math.prod(window) * features, out_features])
    attributes = {
        "dot_dimension_numbers": DotDimensionNumbers.get(
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
    order = [0] * (rank + 2)
    order[numbers.output_batch_dimension] = 0
    order[numbers.output_feature_dimension] = rank + 1
    for i, dim in enumerate(numbers.output_spatial_dimensions):
        order[dim] = 1 + i
    transposed = any(use.owner.operation.name == "stablehlo.transpose" for use in conv.result.uses)
    if order != sorted(order) or transposed:
        # Fenced, so IREE compiles the dot_general as a plain matmul: it otherwise fuses the
        # transpose to the convolution's layout, or one its result goes through (and what
        # follows it), into the store, and a matmul writing that layout is one it does not
        # data-tile.
        product = ir.Operation.create(
            "stablehlo.optimization_barrier", results=[product.type], operands=[product]
        ).results[0]
    result = transpose(_reshape(product, [batch, *counts, out_features]), order)
    conv.results[0].replace_all_uses_with(result)
    conv.erase()


def _patchify(conv: Any) -> None:
    found = _window(conv)
    if found is None:
        return
    window, strides, pads = found
    if _non_overlapping(conv, window, strides, pads):
        _rewrite(conv, window, *_patch_rows(conv, window, strides))
    elif static_float(conv.operands[0]) and _im2col_pays(conv):
        _rewrite(conv, window, *_im2col_rows(conv, window, strides, pads))


@register_pass("shlo-patchify-convolutions")
def patchify_convolutions(module: Any, options: None) -> None:
    """Convolutions as matmuls: non-overlapping windows by reshapes, wide ones by im2col.

    Each convolution whose windows do not overlap becomes a reshape and a dot_general, and
    each wide one whose output is not large slices (im2col) and a dot_general."""
    rewrite_each(module, "stablehlo.convolution", _patchify)
