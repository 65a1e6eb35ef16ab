"""`shlo-split-grouped-convolutions`: a grouped convolution as one convolution per group.

IREE 3.13's Vulkan target computes a convolution with `feature_group_count` G wrong when each
group has several input channels (2-D and 3-D, strided or not: values off by up to 2, or all
zeros; depthwise, one channel per group, is right), with no error.  This pass slices the input
along its feature dimension and the kernel along its output-feature dimension into G parts,
convolves each pair with `feature_group_count = 1`, and concatenates the results along the
output's feature dimension: the same numbers, in ops the target computes correctly.  The
Vulkan driver runs it before compiling.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import equal_part, rewrite_each
from shlo.ir.stablehlo import ConvDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass


def _groups(conv: Any) -> int:
    """G when `conv` is grouped with several input channels per group, else 1."""
    groups = ir.IntegerAttr(conv.attributes["feature_group_count"]).value
    batch_groups = ir.IntegerAttr(conv.attributes["batch_group_count"]).value
    rhs = ir.RankedTensorType(conv.operands[1].type)
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    per_group = rhs.shape[numbers.kernel_input_feature_dimension]
    values = (*conv.operands, conv.result)
    static = all(ir.RankedTensorType(value.type).has_static_shape for value in values)
    return groups if groups > 1 and batch_groups == 1 and per_group > 1 and static else 1


def _split(conv: Any) -> None:
    groups = _groups(conv)
    if groups == 1:
        return
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    result_type = ir.RankedTensorType(conv.result.type)
    shape = list(result_type.shape)
    shape[numbers.output_feature_dimension] //= groups
    part_type = ir.RankedTensorType.get(shape, result_type.element_type)
    attributes = {name: conv.attributes[name] for name in conv.attributes}
    attributes["feature_group_count"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
    lhs, rhs = conv.operands[0], conv.operands[1]
    parts = [
        ir.Operation.create(
            "stablehlo.convolution",
            results=[part_type],
            operands=[
                equal_part(lhs, numbers.input_feature_dimension, group, groups),
                equal_part(rhs, numbers.kernel_output_feature_dimension, group, groups),
            ],
            attributes=attributes,
        ).result
        for group in range(groups)
    ]
    joined = ir.Operation.create(
        "stablehlo.concatenate",
        results=[result_type],
        operands=parts,
        attributes={
            "dimension": ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), numbers.output_feature_dimension
            )
        },
    ).result
    conv.result.replace_all_uses_with(joined)
    conv.erase()


@register_pass("shlo-split-grouped-convolutions")
def split_grouped_convolutions(module: Any, options: None) -> None:
    """Rewrite each grouped convolution (several channels per group) as one per group."""
    rewrite_each(module, "stablehlo.convolution", _split)
