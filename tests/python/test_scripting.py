"""The Python pipeline builder, and the examples folder (each example runs as users run it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shlo.ir.module import parse_source
from shlo.ir.source import Source
from shlo.ir.worlds import ContextPolicy, get_world
from shlo.pipeline.scripting import Pipeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NESTED = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @double(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _module():
    world = get_world("stablehlo")
    return parse_source(
        world,
        world.make_context(ContextPolicy()),
        Source("nested.mlir", NESTED.encode(), first_line=1),
    )


def test_builder_prints_the_textual_pipeline() -> None:
    pipeline = (
        Pipeline()
        .inline()
        .canonicalize(max_iterations=3, top_down=False)
        .nest("func.func", lambda fn: fn.cse())
        .stablehlo_legalize_composite_to_call(except_=("a.b", "c"))
    )
    assert str(pipeline) == (
        "builtin.module(inline, canonicalize{max-iterations=3 "
        "top-down=false}, func.func(cse), "
        "stablehlo-legalize-composite-to-call{except=a.b,c})"
    )
    assert Pipeline.parse(str(pipeline)) == pipeline


def test_run_mixes_worlds_and_captures_instrumentation() -> None:
    result = (
        Pipeline()
        .inline()
        .symbol_dce()
        .iree_util_drop_compiler_hints()
        .shlo_op_stats()
        .run(_module(), print_ir_after_all=True, timing=True, statistics=True)
    )
    assert result.module.text().count("func.func") == 1
    assert "IR Dump After InlinerPass" in result.log
    assert "Execution time report" in result.log
    assert "Pass statistics report" in result.log


def test_unknown_pass_in_a_built_pipeline() -> None:
    from shlo.errors import UnknownPass

    with pytest.raises(UnknownPass, match="did you mean 'canonicalize'"):
        Pipeline().canonicalise().run(_module())


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("pipeline_scripting.py", "timing report captured: True"),
        ("pattern_pass.py", "stablehlo.add %arg0, %arg0"),
        ("pass_with_options.py", "limit=2 -> 1"),
    ],
)
def test_examples_run(script: str, expected: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout
