"""Parsing in either world, locations that name the user's file, bytecode hand-over."""

from __future__ import annotations

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
