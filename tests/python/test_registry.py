"""The pass registry: where each pass runs, parsed from the tools and checked in each world."""

from __future__ import annotations

import dataclasses

import pytest

from shlo.pipeline.python_pass import REGISTRY, register_pass
from shlo.pipeline.python_registry import python_passes
from shlo.pipeline.registry import (
    all_passes,
    closest_names,
    format_pass_list,
    native_passes,
    parse_list_passes,
)

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
    assert registry["refback-generalize-tensor-concat"].source == "torch-mlir-opt"
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


def test_a_python_pass_replaces_a_native_pass_where_it_says_so(monkeypatch) -> None:
    name = "stablehlo-aggressive-simplification"
    assert native_passes()[name].source == "torch-mlir-opt"  # the wheel's tool has it too
    info = all_passes()[name]
    assert (info.source, info.replaces) == ("python", "torch-mlir-opt")
    assert [o.name for o in info.options] == ["fold-op-element-limit"]
    entries = [line for line in format_pass_list(all_passes()).splitlines() if f"--{name} " in line]
    assert len(entries) == 1 and "[python]" in entries[0]
    assert entries[0].endswith("(in place of torch-mlir-opt's)")
    # The same pass without the declaration is a clash, as any other reused name.
    monkeypatch.setitem(REGISTRY, name, dataclasses.replace(REGISTRY[name], replaces=None))
    with pytest.raises(ValueError, match=f"Python pass '{name}' clashes with the torch-mlir-opt"):
        all_passes()


def test_every_declared_replacement_names_a_pass_of_that_tool() -> None:
    native = native_passes()
    declared = {name: p.replaces for name, p in python_passes().items() if p.replaces}
    assert declared  # stablehlo-aggressive-simplification, at least
    assert {name: native[name].source for name in declared if name in native} == declared


def test_only_a_native_tools_pass_can_be_replaced() -> None:
    with pytest.raises(ValueError, match="can replace a pass of torch-mlir-opt or iree-opt"):
        register_pass("canonicalize", replaces="stablehlo")(lambda module, options: None)
    assert "canonicalize" not in REGISTRY
