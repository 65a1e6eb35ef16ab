"""A Python pass with typed options, used from a pipeline and from shlo-opt's command line.

.venv/bin/python examples/pass_with_options.py
"""

from dataclasses import dataclass, field

from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass
from shlo.tools.opt_main import main as shlo_opt


@dataclass(frozen=True)
class MaxOpsOptions:
    limit: int = field(default=100, metadata={"help": "most ops a function may have"})
    dialect: str = field(default="stablehlo", metadata={"help": "count only this dialect"})


@register_pass("max-ops", options=MaxOpsOptions)
def max_ops(module, options: MaxOpsOptions) -> None:
    """Fail when a function has more than `limit` ops of `dialect`."""
    for function in module.regions[0].blocks[0].operations:
        count = 0

        def visit(op) -> ir.WalkResult:
            nonlocal count
            count += op.name.startswith(options.dialect + ".")
            return ir.WalkResult.ADVANCE

        function.operation.walk(visit)
        if count > options.limit:
            raise PassFailure(f"{count} {options.dialect} ops, limit {options.limit}", function)


if __name__ == "__main__":
    import pathlib
    import tempfile

    source = pathlib.Path(tempfile.mkdtemp()) / "three_adds.mlir"
    source.write_text(
        "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        + "".join(f"  %{i} = stablehlo.add %x, %x : tensor<2xf32>\n" for i in range(3))
        + "  return %x : tensor<2xf32>\n}\n"
    )
    print("limit=5 ->", shlo_opt([str(source), "--max-ops=limit=5", "-o", "/dev/null"]))
    print(
        "limit=2 ->",
        shlo_opt([str(source), "--max-ops=limit=2 dialect=stablehlo", "-o", "/dev/null"]),
    )
