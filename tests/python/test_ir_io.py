"""Parsing in either world, locations that name the user's file, bytecode hand-over."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import NESTED
from shlo.ir.module import IRModule, PrintOptions, parse_source
from shlo.ir.source import Source, read_source
from shlo.ir.worlds import ContextPolicy, get_world


@pytest.mark.parametrize("world_name", ["stablehlo", "iree"])
def test_chunk_locations_point_into_the_whole_file(world_name: str) -> None:
    world = get_world(world_name)
    chunk = Source("big.mlir", NESTED.encode(), first_line=40)
    module = parse_source(world, world.make_context(ContextPolicy()), chunk)
    text = module.text(PrintOptions(debug_info=True, local_scope=True))
    assert 'loc("big.mlir":46:8)' in text  # the multiply: line 7 of the chunk


def test_transfer_between_worlds_keeps_ir_and_locations(nested_file) -> None:
    stablehlo, iree = get_world("stablehlo"), get_world("iree")
    source = read_source(str(nested_file))
    module = parse_source(stablehlo, stablehlo.make_context(ContextPolicy()), source)
    moved = module.transfer(iree, iree.make_context(ContextPolicy()))
    assert isinstance(moved, IRModule) and moved.world is iree
    assert moved.text() == module.text()
    assert f'"{nested_file}":7:8' in moved.text(PrintOptions(debug_info=True, local_scope=True))


def test_bytecode_output_parses_back(nested_file) -> None:
    world = get_world("stablehlo")
    context = world.make_context(ContextPolicy())
    module = parse_source(world, context, read_source(str(nested_file)))
    again = parse_source(world, context, Source("x", module.to_bytecode()))
    assert again.text() == module.text()


@pytest.mark.parametrize("world_name", ["stablehlo", "iree"])
def test_numpy_loads_only_when_an_attribute_builder_needs_it(world_name: str) -> None:
    """The world loads without numpy; the bindings' list-to-ElementsAttr builder still works."""
    script = f"""
import sys
from shlo.ir.worlds import get_world
world = get_world({world_name!r})
print("numpy" in sys.modules)
with world.ir.Context(), world.ir.Location.unknown():
    print(world.ir.AttrBuilder.get("I64ElementsAttr")([1, 2, 3], context=None))
import numpy
print(type(numpy).__name__, hasattr(numpy, "ndarray"))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "False",
        "dense<[1, 2, 3]> : tensor<3xi64>",
        "module True",
    ]
