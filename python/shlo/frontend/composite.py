"""High-level ops kept whole as `stablehlo.composite`, marked in a model's forward.

    builder = CompositeBuilder("shlo.sdpa", {"scale": 0.25})
    q, k, v = builder.mark_inputs(q, k, v)
    out = F.scaled_dot_product_attention(q, k, v, scale=0.25)
    out = builder.mark_outputs(out)

(the shape of torch_xla's StableHLOCompositeBuilder).  The marks are identity ops in the
exported graph.  Before torch-mlir imports it, each marked region is outlined into a subgraph
called through a higher-order op, which torch-mlir's importer (extended here) emits as a call to
the subgraph's function; after lowering, that call becomes `stablehlo.composite "NAME"` with the
attributes and the function as its decomposition.
"""

from __future__ import annotations

import functools
import itertools
import json
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch._ops import HigherOrderOperator

from shlo.frontend.fx_importer import (
    FxImporter,
    GraphNodeImporter,
    export_and_import,
    lower,
    register_torch_dialect,
)
from shlo.ir.edit import declare_function, functions, ops_in
from shlo.ir.stablehlo import ir

_ids = itertools.count()
_COMPOSITE_ATTRIBUTE = "shlo.composite"


@torch.library.custom_op("shlo::mark", mutates_args=())
def _mark(x: torch.Tensor, info: str) -> torch.Tensor:
    """A composite boundary: the value itself (a copy, so no op ever sees an alias)."""
    return x.clone()


@_mark.register_fake
def _(x: torch.Tensor, info: str) -> torch.Tensor:
    return torch.empty_like(x)


class CompositeBuilder:
    """Marks the inputs and outputs of one composite region in `forward`."""

    def __init__(self, name: str, attributes: dict[str, Any] | None = None) -> None:
        self.name, self.attributes, self.id = name, dict(attributes or {}), next(_ids)
        json.dumps(self.attributes)  # attributes must be plain values (str, int, float, bool)

    def _mark(self, tensors: tuple[torch.Tensor, ...], is_input: bool) -> Any:
        def info(position: int) -> str:
            return json.dumps(
                {"name": self.name, "id": self.id, "pos": position, "input": is_input,
                 "attributes": self.attributes}
            )  # fmt: skip

        marked = tuple(_mark(tensor, info(i)) for i, tensor in enumerate(tensors))
        return marked[0] if len(marked) == 1 else marked

    def mark_inputs(self, *tensors: torch.Tensor) -> Any:
        return self._mark(tensors, True)

    def mark_outputs(self, *tensors: torch.Tensor) -> Any:
        return self._mark(tensors, False)


class _CompositeCall(HigherOrderOperator):
    """`composite(subgraph, *inputs)`: imported by torch-mlir as a call; run, runs the subgraph."""

    def __init__(self) -> None:
        super().__init__("shlo_composite")  # type: ignore[no-untyped-call]

    def __call__(self, subgraph: Any, *inputs: Any) -> Any:
        return subgraph(*inputs)


composite_call = _CompositeCall()


@dataclass
class _Region:
    name: str
    attributes: dict[str, Any]
    inputs: dict[int, torch.fx.Node] = field(default_factory=dict)
    outputs: dict[int, torch.fx.Node] = field(default_factory=dict)


def _regions(graph: torch.fx.Graph) -> dict[int, _Region]:
    regions: dict[int, _Region] = {}
    for node in graph.nodes:
        if node.op == "call_function" and node.target is torch.ops.shlo.mark.default:
            info = json.loads(node.args[1])
            region = regions.setdefault(info["id"], _Region(info["name"], info["attributes"]))
            (region.inputs if info["input"] else region.outputs)[info["pos"]] = node
    return regions


def outline_composites(program: torch.export.ExportedProgram) -> int:
    """Outline every marked region of `program` (after its decompositions) into a subgraph
    called through `composite_call`; unmarks everything.  Returns how many were outlined."""
    module = program.graph_module
    graph = module.graph
    regions = _regions(graph)
    for key, region in regions.items():
        _outline(module, graph, key, region)
    for node in list(graph.nodes):  # marks whose region had no outputs: plain values again
        if node.op == "call_function" and node.target is torch.ops.shlo.mark.default:
            node.replace_all_uses_with(_marked(node))
            graph.erase_node(node)
    graph.lint()
    module.recompile()
    return len(regions)


def _outline(
    module: torch.fx.GraphModule, graph: torch.fx.Graph, key: int, region: _Region
) -> None:
    if not region.inputs or not region.outputs:
        raise ValueError(f"composite {region.name}: mark both its inputs and its outputs")
    marked_inputs = [region.inputs[i] for i in sorted(region.inputs)]
    marked_outputs = [region.outputs[i] for i in sorted(region.outputs)]
    body, extra = _body(graph, marked_inputs, marked_outputs)
    name = f"composite_{key}"
    module.add_submodule(name, _subgraph(module, [*marked_inputs, *extra], body, marked_outputs))
    with graph.inserting_before(marked_outputs[0]):
        call = graph.call_function(composite_call, (graph.get_attr(name), *marked_inputs, *extra))
        call.meta["val"] = tuple(n.meta["val"] for n in marked_outputs)
        call.meta["shlo_composite"] = {"name": region.name, "attributes": region.attributes}
        for index, output in enumerate(marked_outputs):
            item = graph.call_function(operator.getitem, (call, index))
            item.meta["val"] = output.meta["val"]
            output.replace_all_uses_with(item)
    for node in reversed([*body, *marked_outputs]):
        if not node.users:
            graph.erase_node(node)
    for node in marked_inputs:
        node.replace_all_uses_with(_marked(node))
        graph.erase_node(node)


def _marked(node: torch.fx.Node) -> torch.fx.Node:
    """The value a marker node (a composite's input or output) stands for."""
    value = node.args[0]
    assert isinstance(value, torch.fx.Node)
    return value


def _body(
    graph: torch.fx.Graph, inputs: list[torch.fx.Node], outputs: list[torch.fx.Node]
) -> tuple[list[torch.fx.Node], list[torch.fx.Node]]:
    """The region's nodes in graph order, and the values it reads from outside that were not
    marked (weights, constants): those come in after the marked inputs."""
    order = {node: i for i, node in enumerate(graph.nodes)}
    inside = _between(inputs, [_marked(n) for n in outputs])
    _take_in_constants(inside, inputs)
    extra: list[torch.fx.Node] = []
    for node in inside:
        for used in node.all_input_nodes:
            if used not in inside and used not in inputs and used not in extra:
                extra.append(used)
    return sorted(inside, key=order.__getitem__), sorted(extra, key=order.__getitem__)


def _take_in_constants(inside: set[torch.fx.Node], inputs: list[torch.fx.Node]) -> None:
    """Add the region's private constant computations (a causal mask built from `ones`): they
    depend on no graph input and feed only the region, so they belong to the decomposition."""
    changed = True
    while changed:
        changed = False
        for node in [u for n in inside for u in n.all_input_nodes if u not in inside]:
            if (
                node not in inputs
                and node.op == "call_function"
                and all(user in inside for user in node.users)
                and not _reads_inputs(node)
            ):
                inside.add(node)
                changed = True


def _reads_inputs(node: torch.fx.Node) -> bool:
    seen, stack = set(), [node]
    while stack:
        current = stack.pop()
        if current.op == "placeholder":
            return True
        if current not in seen:
            seen.add(current)
            stack.extend(current.all_input_nodes)
    return False


def _subgraph(
    root: torch.fx.GraphModule,
    inputs: list[torch.fx.Node],
    body: list[torch.fx.Node],
    outputs: list[torch.fx.Node],
) -> torch.fx.GraphModule:
    sub = torch.fx.Graph()
    mapping: dict[torch.fx.Node, torch.fx.Node] = {}
    for index, node in enumerate(inputs):
        mapping[node] = sub.placeholder(f"input{index}")
        mapping[node].meta = dict(node.meta)
    for node in body:
        mapping[node] = sub.node_copy(node, lambda n: mapping[n])
    sub.output(tuple(mapping[_marked(n)] for n in outputs))
    return torch.fx.GraphModule(root, sub)


def _between(starts: list[torch.fx.Node], ends: list[torch.fx.Node]) -> set[torch.fx.Node]:
    """Nodes on a path from a start's users to an end (both ends' own nodes included)."""
    forward: set[torch.fx.Node] = set()
    stack = [user for start in starts for user in start.users]
    while stack:
        node = stack.pop()
        if node not in forward:
            forward.add(node)
            stack.extend(node.users)
    backward: set[torch.fx.Node] = set()
    stack = list(ends)
    while stack:
        node = stack.pop()
        if node not in backward and node in forward:
            backward.add(node)
            stack.extend(node.all_input_nodes)
    return backward


class CompositeImporter(GraphNodeImporter):
    """torch-mlir's node importer, taught `composite_call`: a call of the region's function,
    which carries the composite's name and attributes for `to_stablehlo_composites`."""

    def _import_hop_shlo_composite(self, loc: Any, node: torch.fx.Node, hop: Any) -> None:
        subgraph_node, *inputs = node.args
        assert isinstance(subgraph_node, torch.fx.Node) and isinstance(subgraph_node.target, str)
        root = node.graph.owning_module
        function = self.fx_importer._graph_module_to_func_name[
            id(getattr(root, subgraph_node.target))
        ]
        operands = [self._import_argument(loc, value) for value in inputs]
        result_types = [self._cc.value_info_to_type(v) for v in node.meta["val"]]
        call = ir.Operation.create(
            "func.call",
            attributes={"callee": ir.FlatSymbolRefAttr.get(function)},
            results=result_types,
            operands=operands,
            loc=loc,
        )
        described = json.dumps(node.meta["shlo_composite"])
        callee = self.fx_importer.symbol_table[function]
        callee.attributes[_COMPOSITE_ATTRIBUTE] = ir.StringAttr.get(described)
        self._multi_result_nodes.add(node)
        for index, value in enumerate(call.results):
            self.bind_node_value(node, value, index)


def _attribute_text(value: Any) -> str:
    """A composite attribute as MLIR text, typed as torch_xla types them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value} : i64"
    if isinstance(value, float):
        return f"{value!r} : f32"
    return json.dumps(str(value))


def lower_with_composites(raw: Any, lower: Callable[[Any], Any]) -> Any:
    """Lower torch-mlir's raw module to StableHLO with `lower`, keeping composite regions whole.

    Lowering would inline the regions' functions (and rejects calls), so each is lowered on its
    own; its calls become `stablehlo.composite` ops (between torch-mlir's builtin-tensor casts)
    on a declaration of the lowered signature, and the lowered body then replaces it."""
    lowered: dict[str, Any] = {}
    with raw.context, ir.Location.unknown():
        for name, op in functions(raw).items():
            if _COMPOSITE_ATTRIBUTE not in op.attributes:
                continue
            described = json.loads(ir.StringAttr(op.attributes[_COMPOSITE_ATTRIBUTE]).value)
            alone = ir.Module.create()
            body = op.operation.clone(ir.InsertionPoint(alone.body))
            del body.attributes[_COMPOSITE_ATTRIBUTE]
            body.attributes["sym_visibility"] = ir.StringAttr.get("public")
            alone = lower(alone)
            (function,) = functions(alone).values()
            signature = ir.TypeAttr(function.attributes["function_type"]).value
            with ir.InsertionPoint(op):
                declare_function(name, signature)
            op.operation.erase()
            lowered[name] = function
            _calls_to_composites(raw, name, described, signature)
        raw = lower(raw)
        for name, function in lowered.items():
            declaration = functions(raw)[name]
            copy = function.operation.clone(ir.InsertionPoint(declaration))
            copy.attributes["sym_visibility"] = ir.StringAttr.get("private")
            declaration.operation.erase()
    return raw


def _calls_to_composites(module: Any, name: str, described: dict[str, Any], signature: Any) -> None:
    calls = [op for op in ops_in(module, "func.call") if str(op.attributes["callee"]) == f"@{name}"]
    attributes = ", ".join(
        f"{key} = {_attribute_text(value)}" for key, value in described["attributes"].items()
    )
    for call in calls:
        with ir.InsertionPoint(call), call.location:
            operands = [
                ir.Operation.create(
                    "torch_c.to_builtin_tensor", results=[wanted], operands=[value]
                ).result
                for value, wanted in zip(call.operands, signature.inputs, strict=True)
            ]
            composite = ir.Operation.create(
                "stablehlo.composite",
                results=list(signature.results),
                operands=operands,
                attributes={
                    "name": ir.StringAttr.get(described["name"]),
                    "composite_attributes": ir.Attribute.parse(f"{{{attributes}}}"),
                    "decomposition": ir.FlatSymbolRefAttr.get(name),
                },
            )
            for old, new in zip(call.results, composite.results, strict=True):
                back = ir.Operation.create(
                    "torch_c.from_builtin_tensor", results=[old.type], operands=[new]
                )
                old.replace_all_uses_with(back.result)
        call.erase()


def has_composites(program: torch.export.ExportedProgram) -> bool:
    return any(
        node.op == "call_function" and node.target is torch.ops.shlo.mark.default
        for node in program.graph.nodes
    )


def import_with_composites(
    program: torch.export.ExportedProgram, output_type: str, function: str, hooks: Any = None
) -> Any:
    """torch-mlir's import of `program` (decomposed already) with its marked regions as
    `stablehlo.composite`s (other output types get the regions inlined)."""
    outline_composites(program)
    context = ir.Context()
    register_torch_dialect(context)
    importer = FxImporter(context=context, graph_node_importer_cls=CompositeImporter, hooks=hooks)
    raw = export_and_import(program, fx_importer=importer, func_name=function)
    if output_type != "stablehlo":
        return lower(raw, output_type)
    return lower_with_composites(raw, functools.partial(lower, output_type=output_type))
