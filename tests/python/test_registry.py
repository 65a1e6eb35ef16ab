"""The pass registry: where each pass runs, parsed from the tools and checked in each world."""

from __future__ import annotations

from shlo.pipeline.registry import all_passes, closest_names, format_pass_list, parse_list_passes

LISTED = """Passes:
  --canonicalize                           -   Canonicalize operations
    --max-iterations=<long>                - Max. iterations
    --region-simplify=<value>              - Perform control flow optimizations
    =disabled                            -   Don't run any control-flow simplification.
    --top-down                             - Seed the worklist in general top-down order
  --cse                                    -   Eliminate common sub-expressions
"""


def test_list_passes_text_is_parsed_with_options() -> None:
    passes = parse_list_passes(LISTED, "iree-opt")
    assert list(passes) == ["canonicalize", "cse"]
    options = [(o.name, o.type) for o in passes["canonicalize"].options]
    assert options == [
        ("max-iterations", "long"),
        ("region-simplify", "value"),
        ("top-down", "flag"),
    ]


def test_every_source_is_represented() -> None:
    registry = all_passes()
    assert registry["canonicalize"].source == "stablehlo"
    assert registry["stablehlo-legalize-to-vhlo"].source == "stablehlo"
    assert registry["iree-util-drop-compiler-hints"].source == "iree"
    assert registry["stablehlo-aggressive-simplification"].source == "torch-mlir-opt"
    assert registry["shlo-op-stats"].source == "python"
    assert {info.source for info in registry.values()} >= {
        "stablehlo",
        "iree",
        "torch-mlir-opt",
        "python",
    }


def test_suggestions_and_listing() -> None:
    names = list(all_passes())
    assert closest_names("canonicalise", names)[0] == "canonicalize"
    text = format_pass_list(all_passes())
    assert "--shlo-op-stats" in text and "[python]" in text
