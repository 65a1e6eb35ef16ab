"""PyTorch -> StableHLO: torch.export, then torch-mlir's FX importer.

The result is an `IRModule` in the StableHLO world plus what is needed to call it like the model
(the pytree specs of its inputs and outputs).  Failures come back as a short message naming the
offending ops and where they are, not a wall of traceback.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils import _pytree as pytree

from shlo.errors import ShloError
from shlo.frontend.composite import has_composites, import_with_composites
from shlo.frontend.decompositions import DECOMPOSITIONS
from shlo.frontend.fx_importer import (
    FxImporterHooks,
    create_mlir_tensor_type,
    export_and_import,
    get_decomposition_table,
)
from shlo.ir.diagnostics import capture_native_stderr
from shlo.ir.edit import ops_in
from shlo.ir.module import IRModule
from shlo.ir.stablehlo import WORLD, ir

OUTPUT_TYPES = ("stablehlo", "torch", "linalg-on-tensors")
_ILLEGAL_OP = re.compile(
    r"failed to legalize operation '([^']+)'(?:[^\n]*?torch\.operator[^\n]*?name = \"([\w.]+)\")?"
)
_FILE_LINE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+)')


class FrontendError(ShloError, RuntimeError):
    """The model could not be exported or lowered; the message lists what and where."""


@dataclass
class Imported:
    """A model as an IR module, with the specs to call the module like the model."""

    module: IRModule
    in_spec: Any
    out_spec: Any
    function: str = "main"
    # With weights="external": the state (by reference) that @main takes first, in order.
    weights: dict[str, torch.Tensor] | None = None

    @functools.cached_property
    def positional_count(self) -> int | None:
        """How many tensors the model takes, when it takes only tensors and positionally."""
        count = self.in_spec.num_leaves
        return count if self.in_spec == _positional_tensors(count) else None

    def flatten_inputs(self, args: tuple, kwargs: dict | None = None) -> list[Any]:
        if (
            not kwargs
            and len(args) == self.positional_count
            and all(isinstance(arg, torch.Tensor) for arg in args)
        ):  # the common case, without pytree's per-call cost
            return list(args)
        leaves, spec = pytree.tree_flatten((tuple(args), kwargs or {}))
        if spec != self.in_spec:
            raise FrontendError(
                f"inputs do not match the structure the model was imported "
                f"with: expected {self.in_spec}, got {spec}"
            )
        return leaves

    def unflatten_outputs(self, outputs: list[Any]) -> Any:
        if self.out_spec.is_leaf():
            return outputs[0]
        return pytree.tree_unflatten(outputs, self.out_spec)


@functools.cache
def _positional_tensors(count: int) -> Any:
    """The input spec of `count` tensors passed positionally and no keyword arguments."""
    return pytree.tree_structure((tuple(range(count)), {}))


@contextmanager
def _persistent_buffers(model: torch.nn.Module) -> Iterator[None]:
    """Make buffers persistent while exporting, then restore.

    torch-mlir's importer fails with "Could not find state mapping for buffer" on
    non-persistent buffers (BERT's position_ids, for one); persistence only changes what
    `state_dict` saves, not what the model computes.
    """
    saved = {module: set(module._non_persistent_buffers_set) for module in model.modules()}
    for module in saved:
        module._non_persistent_buffers_set.clear()
    try:
        yield
    finally:
        for module, names in saved.items():
            module._non_persistent_buffers_set.update(names)


def export(
    model: torch.nn.Module, args: tuple, kwargs: dict | None = None, dynamic_shapes: Any = None
) -> torch.export.ExportedProgram:
    """torch.export with the fixes shlo applies; a trace failure becomes a FrontendError."""
    with _persistent_buffers(model), warnings.catch_warnings():
        # torch 2.13 deprecates its own pytree LeafSpec check inside torch.export
        warnings.filterwarnings("ignore", "`isinstance\\(treespec, LeafSpec\\)`", FutureWarning)
        try:
            return torch.export.export(
                model, tuple(args), kwargs or {}, dynamic_shapes=dynamic_shapes, strict=False
            )
        except Exception as error:  # torch raises many kinds; all mean "cannot trace"
            raise FrontendError(
                _first_lines(f"torch.export failed: {type(error).__name__}: {error}")
            ) from None


class ParametersAsInputs(torch.nn.Module):
    """The model called with its state as leading arguments (torch_xla's calling convention,
    and how weights stay out of the IR)."""

    def __init__(self, model: torch.nn.Module, names: list[str], in_spec: Any) -> None:
        super().__init__()
        self.model, self.names, self.in_spec = model, names, in_spec

    def forward(self, *flat: Any) -> Any:
        state = dict(zip(self.names, flat[: len(self.names)], strict=True))
        args, kwargs = pytree.tree_unflatten(list(flat[len(self.names) :]), self.in_spec)
        return torch.func.functional_call(self.model, state, args, kwargs)


def import_model(
    model: torch.nn.Module,
    args: tuple,
    kwargs: dict | None = None,
    *,
    dynamic_shapes: Any = None,
    output_type: str = "stablehlo",
    function: str = "main",
    weights: str = "inline",
) -> Imported:
    """Export `model` on example inputs and import it as `output_type` IR.

    `weights="external"`: the weights never enter the IR; @main takes them first (their names
    and tensors are in `Imported.weights`) and the backend binds them to an IREE parameter
    archive (`compile_module(..., parameters=...)`)."""
    if output_type not in OUTPUT_TYPES:
        raise FrontendError(f"output type '{output_type}' is not one of {OUTPUT_TYPES}")
    if weights not in ("inline", "external"):
        raise FrontendError(f"weights must be 'inline' or 'external', not '{weights}'")
    if weights == "external":
        return _import_without_weights(model, args, kwargs, dynamic_shapes, output_type, function)
    program = export(model, args, kwargs, dynamic_shapes)
    failure = None
    with capture_native_stderr() as printed:  # torch-mlir prints lowering errors natively
        try:
            decompositions = {**get_decomposition_table(), **DECOMPOSITIONS}
            if has_composites(program):
                module = import_with_composites(
                    program, decompositions, output_type, function, WeightsWithoutCopies()
                )
            else:
                module = export_and_import(
                    program,
                    output_type=output_type,
                    func_name=function,
                    decomposition_table=decompositions,
                    hooks=WeightsWithoutCopies(),
                )
        except Exception as error:  # the importer raises plain Python errors on unsupported graphs
            failure = error
    if failure is not None:
        unknown = _unknown_ops(program, decompositions) if "torch.operator" in printed[0] else set()
        raise FrontendError(_lowering_failure(printed[0], failure, unknown))
    signature = program.module_call_graph[0].signature
    operation = module.operation
    return Imported(
        IRModule(WORLD, operation.context, operation),
        signature.in_spec,
        signature.out_spec,
        function,
    )


def _import_without_weights(
    model: torch.nn.Module,
    args: tuple,
    kwargs: dict | None,
    dynamic_shapes: Any,
    output_type: str,
    function: str,
) -> Imported:
    state = {key: value.detach() for key, value in model.state_dict().items()}
    leaves, in_spec = pytree.tree_flatten((tuple(args), kwargs or {}))
    shapes = None
    if dynamic_shapes is not None:
        given = pytree.tree_leaves(dynamic_shapes, is_leaf=lambda x: x is None)
        shapes = (*([None] * len(state)), *given)
    lifted = ParametersAsInputs(model, list(state), in_spec)
    imported = import_model(
        lifted,
        (*state.values(), *leaves),
        dynamic_shapes=shapes,
        output_type=output_type,
        function=function,
    )
    out_spec = pytree.tree_structure(
        pytree.tree_unflatten(list(range(imported.out_spec.num_leaves)), imported.out_spec)
    )
    return Imported(imported.module, in_spec, out_spec, function, weights=state)


class WeightsWithoutCopies(FxImporterHooks):
    """torch-mlir copies every weight through a Python list (`tensor.tolist()`, several times
    the weight bytes and most of the import time); here the tensor's own storage is handed to
    MLIR as the resource blob, without a copy (MLIR keeps a reference to it)."""

    def __init__(self) -> None:
        self._attributes: dict[int, tuple[torch.Tensor, Any]] = {}

    def resolve_literal(self, gni: Any, literal: Any, info: Any) -> Any:
        if (
            not isinstance(literal, torch.Tensor)
            or literal.numel() <= 1  # torch-mlir makes these splats, which optimize better
            or literal.dtype not in _ZERO_COPY_DTYPES
            or isinstance(literal, torch._subclasses.FakeTensor)
        ):
            return None
        key = id(literal)
        if key not in self._attributes:
            array = literal.detach().contiguous().numpy()
            shape = "_".join(map(str, literal.shape))
            attribute = ir.DenseResourceElementsAttr.get_from_buffer(
                array, f"torch_tensor_{shape}_{literal.dtype}", create_mlir_tensor_type(literal)
            )
            self._attributes[key] = (literal, attribute)  # the tensor lives as long as we do
        vtensor_type = gni._cc.tensor_to_vtensor_type(literal)
        return ir.Operation.create(
            "torch.vtensor.literal",
            results=[vtensor_type],
            attributes={"value": self._attributes[key][1]},
        ).result


_ZERO_COPY_DTYPES = {
    torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8,
}  # fmt: skip


def _unknown_ops(program: torch.export.ExportedProgram, decompositions: dict) -> set:
    """(ATen op, site) for every op torch-mlir does not know: its lowering stops at the first,
    but the unlowered import holds them all, as `torch.operator`s."""
    try:
        raw = export_and_import(program, output_type="raw", decomposition_table=decompositions)
    except Exception:  # noqa: BLE001 (this only adds detail to an error being reported)
        return set()
    return {
        (ir.StringAttr(op.attributes["name"]).value, _site(str(op.location)))
        for op in ops_in(raw, "torch.operator")
    }


def _site(text: str) -> str:
    """`file:line` of the first file location in `text`."""
    where = _FILE_LINE.search(text)
    return f"{where.group(1)}:{where.group(2)}" if where else "unknown location"


def _lowering_failure(printed: str, error: Exception, unknown: set) -> str:
    """Every op torch-mlir could not lower, with where the model uses it, else the error."""
    # torch.operator wraps an ATen op torch-mlir does not know; name the ATen op instead
    found = set(unknown)
    for line in printed.splitlines():
        if (op := _ILLEGAL_OP.search(line)) is None:
            continue
        found.add((op.group(2) or op.group(1), _site(line[: op.start()])))
    if not found:
        return _first_lines(f"torch-mlir import failed: {error}")
    lines = [f"  {op} (at {where})" for op, where in sorted(found)]
    return "torch-mlir cannot lower these ops to StableHLO:\n" + "\n".join(lines)


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    more = f"\n... ({len(lines) - count} more lines)" if len(lines) > count else ""
    return "\n".join(lines[:count]) + more
