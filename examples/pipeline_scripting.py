"""Build a pipeline in Python, run it with IR printing and timing, read the log.

.venv/bin/python examples/pipeline_scripting.py
"""

from shlo.ir.module import parse_source
from shlo.ir.source import Source
from shlo.ir.worlds import ContextPolicy, get_world
from shlo.pipeline.scripting import Pipeline

PROGRAM = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @double(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @double(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

world = get_world("stablehlo")
module = parse_source(
    world, world.make_context(ContextPolicy()), Source("example.mlir", PROGRAM.encode())
)

pipeline = (
    Pipeline()
    .inline()
    .symbol_dce()
    .canonicalize(max_iterations=3)
    .nest("func.func", lambda fn: fn.cse())
    .iree_util_drop_compiler_hints()  # an IREE-world pass, in the same pipeline
    .shlo_op_stats()  # a Python pass
)
print("pipeline:", pipeline)
result = pipeline.run(module, print_ir_after_all=True, timing=True)
print(result.module.text(), end="")
dumps = [line for line in result.log.splitlines() if "IR Dump After" in line]
print(
    f"{len(dumps)} IR dumps captured; timing report captured:",
    "Execution time report" in result.log,
)
