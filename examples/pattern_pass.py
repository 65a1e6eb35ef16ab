"""A pattern-based Python pass: rewrite `x * 2` into `x + x` with the bindings' RewritePatternSet.

.venv/bin/python examples/pattern_pass.py
(then `shlo-opt --x-times-two-to-add` works in any program that imports this module)
"""

from shlo.ir.module import parse_source
from shlo.ir.source import Source
from shlo.ir.stablehlo import ir, rewrite
from shlo.ir.worlds import ContextPolicy, get_world
from shlo.pipeline.python_pass import register_pass
from shlo.pipeline.scripting import Pipeline


def _is_two(value) -> bool:
    producer = value.owner
    if not isinstance(producer, ir.OpView) or producer.operation.name != "stablehlo.constant":
        return False
    attribute = producer.operation.attributes["value"]
    return (
        isinstance(attribute, ir.DenseElementsAttr)
        and attribute.is_splat
        and str(attribute.get_splat_value()).startswith("2.0")
    )


def _times_two(op, rewriter) -> bool:
    """Matches `stablehlo.multiply %x, 2`; returning False means the pattern applied."""
    lhs, rhs = op.operands
    if not _is_two(rhs):
        return True
    with ir.InsertionPoint(op), op.location:
        added = ir.Operation.create("stablehlo.add", results=[op.result.type], operands=[lhs, lhs])
    rewriter.replace_op(op, added)
    return False


@register_pass("x-times-two-to-add")
def x_times_two_to_add(module, options) -> None:
    """Rewrite multiplications by two as additions."""
    patterns = rewrite.RewritePatternSet(module.context)
    patterns.add("stablehlo.multiply", _times_two)
    rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())


PROGRAM = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<4xf32>
  %0 = stablehlo.multiply %x, %two : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

if __name__ == "__main__":
    world = get_world("stablehlo")
    module = parse_source(
        world, world.make_context(ContextPolicy()), Source("times_two.mlir", PROGRAM.encode())
    )
    print(Pipeline().x_times_two_to_add().run(module).module.text(), end="")
