"""PyTorch -> StableHLO: torch.export, then torch-mlir's FX importer.

The result is an `IRModule` in the StableHLO world plus what is needed to call it like the model
(the pytree specs of its inputs and outputs).  Failures come back as a short message naming the
offending ops and where they are, not a wall of traceback.
"""

from __future__ import annotations

import functools
import io
import operator
import re
import sys
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch
from torch._decomp import decomposition_table
from torch.export.graph_signature import (
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
)
from torch.fx.experimental.symbolic_shapes import (
    GuardOnDataDependentSymNode,
    free_unbacked_symbols,
)
from torch.utils import _pytree as pytree

from shlo.errors import FrontendError
from shlo.frontend.assertions import (
    assertions_as_results,
    bare_asserts_with_messages,
    check,
    without_effect_tokens,
)
from shlo.frontend.composite import has_composites, import_with_composites
from shlo.frontend.constant_values import constants_evaluated
from shlo.frontend.decompositions import (
    DECOMPOSITIONS,
    RefusedOp,
    call_site,
    refuse_complex_to_real,
)
from shlo.frontend.forked import Crashed, announce, call_forked, can_fork
from shlo.frontend.fx_importer import (
    FxImporterHooks,
    create_mlir_tensor_type,
    export_and_import,
    get_decomposition_table,
    register_torch_dialect,
)
from shlo.frontend.lowerings import (
    MISSING_LOWERINGS,
    empty_results_as_constants,
    scalar_casts_as_items,
    write_out_before_decomposing,
)
from shlo.frontend.numbers import (
    NumbersAsTensors,
    as_arrays,
    as_tensors,
    check_fixed,
    check_numbers,
    fixed_values,
    number_dtypes,
)
from shlo.frontend.opmath import in_float32
from shlo.frontend.ragged import cut, ragged_results
from shlo.frontend.tensor_numbers import (
    number_arithmetic_as_tensor_ops,
    scalar_ops_as_tensor_ops,
)
from shlo.ir.diagnostics import capture_native_stderr
from shlo.ir.edit import functions, ops_in
from shlo.ir.module import IRModule, PrintOptions, from_bytecode
from shlo.ir.scalars import number_results_as_tensors, rewrite_scalars
from shlo.ir.stablehlo import WORLD, ir
from shlo.ir.worlds import ContextPolicy
from shlo.pipeline.run import run_pipeline

OUTPUT_TYPES = ("stablehlo", "torch", "linalg-on-tensors")
_ILLEGAL_OP = re.compile(
    r"failed to legalize operation '([^']+)'(?:[^\n]*?torch\.operator[^\n]*?name = \"([\w.]+)\")?"
)
_UNCONVERTED_PREFIXES = ("torch.aten.", "torch.prims.", "torch.prim.Loop", "torch.runtime.")
_FILE_LINE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+)')
# What PyTorch means and torch-mlir's StableHLO says otherwise, for every op that produces it.
TORCH_SEMANTICS = "builtin.module(shlo-torch-nan-order)"


@dataclass
class Imported:
    """A model as an IR module, with what it takes to call the module like the model.

    @main takes `live_state` (buffers the model updates, passed at every call) and then the
    model's input leaves; it returns the new values of the arguments at `mutations` (indices
    into that argument list, written back after each call, as eager updates them in place)
    and then the model's outputs."""

    module: IRModule
    in_spec: Any
    out_spec: Any
    function: str = "main"
    # With weights="external": the state (by reference) that @main takes first, in order.
    weights: dict[str, torch.Tensor] | None = None
    # Input leaf index -> dtype of the Python number there, passed as a 0-d array.
    numbers: dict[int, Any] = field(default_factory=dict)
    # Input leaf index -> the value the graph was traced with (it is a constant in the IR).
    fixed: dict[int, Any] = field(default_factory=dict)
    live_state: dict[str, torch.Tensor] = field(default_factory=dict)
    mutations: tuple[int, ...] = ()
    # Per @main result: "bool", "int" or "float" where the model returns a Python number
    # (@main returns it as a 0-d tensor), None for tensors.
    number_results: tuple[str | None, ...] = ()
    # The messages of the model's run-time assertions, whose conditions @main returns last.
    assertions: tuple[str, ...] = ()
    # (result index, dim) per result of a length read from the data: @main returns it whole
    # and its length after the model's results (before the assertions').
    ragged: tuple[tuple[int, int], ...] = ()

    @functools.cached_property
    def positional_count(self) -> int | None:
        """How many tensors the model takes, when it takes only tensors, positionally, and
        its inputs need no conversion or write-back."""
        if self.numbers or self.fixed or self.live_state or self.mutations:
            return None
        count = self.in_spec.num_leaves
        return count if self.in_spec == _positional_tensors(count) else None

    @functools.cached_property
    def unsigned_results(self) -> dict[int, Any]:
        """@main's results of unsigned integer type (index -> numpy dtype): IREE's calling
        convention is signless, so they come back as signed arrays of the same width."""
        signature = ir.TypeAttr(functions(self.module)[self.function].attributes["function_type"])
        unsigned = {}
        with self.module.context:
            for index, kind in enumerate(signature.value.results):
                element = kind.element_type if isinstance(kind, ir.ShapedType) else kind
                if isinstance(element, ir.IntegerType) and element.is_unsigned:
                    unsigned[index] = np.dtype(f"uint{element.width}")
        return unsigned

    def flatten_inputs(
        self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None
    ) -> list[Any]:
        """@main's arguments for a call of the model with `args` and `kwargs`."""
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
        inputs = (tuple(args), kwargs or {})
        refused = check_fixed(inputs, leaves, self.fixed) or check_numbers(
            inputs, leaves, self.numbers
        )
        if refused is not None:
            raise FrontendError(refused)
        return [*self.live_state.values(), *as_arrays(leaves, self.numbers)]

    def unflatten_outputs(self, outputs: list[Any], arguments: Sequence[Any] = ()) -> Any:
        """The model's outputs from @main's results, after checking its run-time assertions
        (`AssertionFailed` when one fails) and writing the updated state back into
        `arguments` (what `flatten_inputs` returned)."""
        if any(self.number_results):
            outputs = [
                _NUMBER[k](o.item()) if k else o
                for k, o in zip(self.number_results, outputs, strict=True)
            ]
        outputs = cut(check(outputs, self.assertions), self.ragged)
        for index, value in zip(self.mutations, outputs, strict=False):
            arguments[index].copy_(torch.as_tensor(value))
        outputs = outputs[len(self.mutations) :]
        if self.out_spec.is_leaf():
            return outputs[0]
        return _unflattened(iter(outputs), self.out_spec)


def _unflattened(leaves: Iterator[Any], spec: Any) -> Any:
    """`pytree.tree_unflatten`, with a torch.Size given back as one: torch's pytree rebuilds it
    as a tuple (its tracing puts symbolic sizes in it), and eager returns a Size."""
    if spec.is_leaf():
        return next(leaves)
    children = [_unflattened(leaves, child) for child in spec.children()]
    if spec.type is torch.Size:
        return torch.Size(children)
    return pytree.SUPPORTED_NODES[spec.type].unflatten_fn(children, spec.context)


_NUMBER = {"bool": bool, "int": int, "float": float}


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
    model: torch.nn.Module,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    dynamic_shapes: Any = None,
) -> torch.export.ExportedProgram:
    """torch.export with the fixes shlo applies; a trace failure becomes a FrontendError."""
    args, kwargs = _unaliased((tuple(args), kwargs or {}))
    failure: Exception | None = None
    with _persistent_buffers(model), warnings.catch_warnings(), scalar_ops_as_tensor_ops():
        # torch 2.13 deprecates its own pytree LeafSpec check inside torch.export
        warnings.filterwarnings("ignore", "`isinstance\\(treespec, LeafSpec\\)`", FutureWarning)
        # torch logs the partial graph of a failure, which the error below replaces
        with capture_native_stderr() as printed:
            try:
                program = torch.export.export(
                    model, tuple(args), kwargs or {}, dynamic_shapes=dynamic_shapes, strict=False
                )
            except Exception as error:  # torch raises many kinds; all mean "cannot trace"
                failure = error
        if failure is None:
            sys.stderr.write(printed[0])  # what torch warned about a trace that worked
            return program
        if "GuardOnDataDependentSymNode" in str(failure) or isinstance(
            failure, GuardOnDataDependentSymNode
        ):
            # `int(t)`, `float(t)`, `bool(t)` must return a real Python number when the
            # model runs in Python; TorchDynamo traces them as `item()` instead
            try:
                return torch.export.export(
                    model, tuple(args), kwargs or {}, dynamic_shapes=dynamic_shapes, strict=True
                )
            except Exception:  # noqa: BLE001 (the first failure is the one to report)
                pass
        if quantized := _eager_quantized(model):
            raise FrontendError(
                "torch.export cannot trace the quantized tensors (quint8, qint8) of eager-mode "
                f"quantized modules ({', '.join(quantized)}): quantize with PT2E "
                "(torch.ao.quantization.quantize_pt2e), whose quantized_decomposed ops shlo "
                "compiles"
            ) from None
        raise FrontendError(
            _first_lines(f"torch.export failed: {type(failure).__name__}: {failure}")
        ) from None


def _unaliased(inputs: Any) -> Any:
    """`inputs` with each tensor that shares memory with an earlier one copied: torch.export
    traces two example inputs that are one tensor as one input, and the program then read
    the first argument's values for both at every call (`compile_torch(m, (x, x))`)."""
    seen: set[int] = set()

    def own(leaf: Any) -> Any:
        if not isinstance(leaf, torch.Tensor) or leaf.layout != torch.strided:
            return leaf
        memory = leaf.untyped_storage().data_ptr()
        if memory in seen and leaf.numel():
            return leaf.clone()
        seen.add(memory)
        return leaf

    return pytree.tree_map(own, inputs)


_EAGER_QUANTIZED = ("torch.ao.nn.quantized.", "torch.ao.nn.intrinsic.quantized.")


def _eager_quantized(model: torch.nn.Module) -> list[str]:
    """`name (Class)` of each submodule that eager-mode quantization put in `model`
    (`torch.ao.quantization.convert`'s; the float-computing reference modules excepted), which
    makes torch.export fail with a message about data-dependent guards or missing kernels."""
    return [
        f"{name or 'the model'} ({type(module).__name__})"
        for name, module in model.named_modules()
        if type(module).__module__.startswith(_EAGER_QUANTIZED)
        and ".reference." not in type(module).__module__
    ]


def import_model(
    model: torch.nn.Module | Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    dynamic_shapes: Any = None,
    output_type: str = "stablehlo",
    function: str = "main",
    weights: str = "inline",
) -> Imported:
    """Export `model` on example inputs and import it as `output_type` IR.

    Python numbers among the inputs stay inputs (see `shlo.frontend.numbers`).  Buffers the
    model updates as it runs (batch norm's running statistics in training mode) become
    arguments of @main whose new values it returns, written back after each call.

    `weights="external"`: the weights never enter the IR; @main takes them first (their names
    and tensors are in `Imported.weights`) and the backend binds them to an IREE parameter
    archive (`compile_module(..., parameters=...)`)."""
    model = as_module(model)
    if not isinstance(args, tuple | list):
        raise FrontendError(
            f"the example inputs must be a tuple, got {type(args).__name__}: "
            "give (x,) for one input"
        )
    if output_type not in OUTPUT_TYPES:
        raise FrontendError(f"output type '{output_type}' is not one of {OUTPUT_TYPES}")
    if weights not in ("inline", "external"):
        raise FrontendError(f"weights must be 'inline' or 'external', not '{weights}'")
    leaves, in_spec = pytree.tree_flatten((tuple(args), kwargs or {}))
    how = _How(dynamic_shapes, output_type, function, weights == "external")
    imported = _import_numbers(model, leaves, in_spec, how)
    if weights == "inline":
        return imported
    state = {name: tensor.detach() for name, tensor in imported.live_state.items()}
    updated = [name for i, name in enumerate(state) if i in imported.mutations]
    if updated:
        raise FrontendError(
            f"the model updates {', '.join(updated)} as it runs (a module in training mode?), "
            "and weights kept in a parameter archive cannot change: call model.eval() first, "
            "or keep the weights inline"
        )
    return replace(imported, weights=state, live_state={})


def as_module(model: Any) -> torch.nn.Module:
    """`model`, a function made the `forward` of a module (torch.export takes modules)."""
    if isinstance(model, torch.nn.Module):
        return model
    if not callable(model):
        raise FrontendError(f"expected a torch.nn.Module or a function, got {type(model).__name__}")
    return _Function(model)


class _Function(torch.nn.Module):
    """A function as a module.  torch.export records, for each op, only the frames named
    `forward`; so where the function has code of its own, `forward` is given that code's
    file and line, and the sites that errors name are the function's, not this wrapper's."""

    def __init__(self, function: Callable[..., Any]) -> None:
        super().__init__()
        self.function = function
        code = getattr(function, "__code__", None)
        if isinstance(code, types.CodeType):
            template = _Function.forward.__code__
            call = max(line for *_, line in template.co_lines() if line is not None)
            placed = template.replace(
                co_filename=code.co_filename,
                co_firstlineno=code.co_firstlineno - (call - template.co_firstlineno),
            )
            method = types.MethodType(types.FunctionType(placed, globals()), self)
            self.forward = method  # type: ignore[method-assign]  # this instance's own

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)


@dataclass(frozen=True)
class _How:
    """The import options that every stage of `import_model` passes on unchanged.
    `all_state`: every parameter and buffer becomes an argument of @main, not only those
    the model updates."""

    dynamic_shapes: Any
    output_type: str
    function: str
    all_state: bool


def _import_numbers(model: torch.nn.Module, leaves: list[Any], in_spec: Any, how: _How) -> Imported:
    """`model` imported with the Python numbers among `leaves` as runtime inputs, or fixed
    when they cannot be (they decide a shape or a branch)."""
    numbers = number_dtypes(leaves)
    fixed = fixed_values(leaves)
    if numbers:
        others = {i: value for i, value in fixed.items() if i not in numbers}
        wrapped = NumbersAsTensors(model, frozenset(numbers), in_spec)
        try:
            with redirect_stderr(io.StringIO()):  # torch prints the partial graph of a failure
                imported = _import_program(wrapped, as_tensors(leaves, numbers), in_spec, how)
        except FrontendError:
            pass
        else:
            text = imported.module.text(
                PrintOptions(elide_elements_above=1, elide_resources_above=1)
            )
            dynamic = how.dynamic_shapes is None and "tensor<?" in text
            if not dynamic:  # a number that sets a shape is better fixed than dynamic
                return replace(imported, numbers=numbers, fixed=others)
    return replace(_import_program(model, leaves, in_spec, how), fixed=fixed)


def _import_program(model: torch.nn.Module, leaves: list[Any], in_spec: Any, how: _How) -> Imported:
    """torch.export, then torch-mlir's import and lowering: in a forked child where the
    caller may fork (`shlo.frontend.forked`), so that a native crash there is a FrontendError
    naming the stage and the model's ops, and the caller lives on."""
    args, kwargs = pytree.tree_unflatten(leaves, in_spec)
    program = export(model, args, kwargs, how.dynamic_shapes)
    signature = program.module_call_graph[0].signature
    work = functools.partial(_lower, program, how, _decompositions())
    lowered = call_forked(work) if can_fork() else work()
    if isinstance(lowered, Crashed):
        raise FrontendError(_crash_report(lowered, program))
    context = WORLD.make_context(ContextPolicy())
    register_torch_dialect(context)
    prefix = NumbersAsTensors.PREFIX if isinstance(model, NumbersAsTensors) else ""
    return Imported(
        from_bytecode(WORLD, context, lowered.bytecode),
        signature.in_spec,
        signature.out_spec,
        how.function,
        live_state={t.removeprefix(prefix): _state_tensor(model, t) for t in lowered.state},
        mutations=lowered.mutations,
        number_results=lowered.number_results,
        assertions=lowered.assertions,
        ragged=lowered.ragged,
    )


@dataclass(frozen=True)
class _Lowered:
    """What the import hands back across a process boundary: the module as bytecode, the
    parameters and buffers that became @main's leading arguments (by name, in order), and the
    facts `Imported` keeps."""

    bytecode: bytes
    state: tuple[str, ...]
    mutations: tuple[int, ...]
    number_results: tuple[str | None, ...]
    assertions: tuple[str, ...]
    ragged: tuple[tuple[int, int], ...]


@functools.cache
def _decompositions() -> dict[Any, Callable[..., Any]]:
    """What `_lower` decomposes, built once (torch-mlir builds its table anew on every call,
    taking longer than a small model's whole import)."""
    return in_float32({**get_decomposition_table(), **MISSING_LOWERINGS, **DECOMPOSITIONS})


def _lower(
    program: torch.export.ExportedProgram, how: _How, decompositions: dict[Any, Callable[..., Any]]
) -> _Lowered:
    """`decompositions` (PyTorch's), torch-mlir's import and lowering to `how.output_type`,
    and (to StableHLO) where PyTorch's semantics differ from torch-mlir's lowering.  Ops that
    torch-mlir cannot lower and PyTorch can decompose are decomposed, and the import tried
    again (`run_decompositions` keeps every op its table does not name); when that fails too,
    the ops the model calls are the ones named."""
    failure = None
    decomposed = program
    with capture_native_stderr() as printed:  # torch-mlir prints lowering errors natively
        try:
            announce("PyTorch's decompositions")
            write_out_before_decomposing(program)
            bare_asserts_with_messages(program.graph_module)
            number_arithmetic_as_tensor_ops(program.graph_module)
            decomposed = program.run_decompositions(decompositions)
            without_effect_tokens(decomposed)
            scalar_casts_as_items(decomposed.graph)
            empty_results_as_constants(decomposed.graph)
            ragged = ragged_results(decomposed.graph)
            assertions = assertions_as_results(decomposed)
            if not has_composites(decomposed):  # a composite keeps its decomposition's ops
                constants_evaluated(decomposed)
            refuse_complex_to_real(decomposed.graph)
            _refuse_data_dependent_shapes(decomposed)
            state = _state_as_inputs(decomposed, how.all_state)
            announce("torch-mlir's import of the FX graph")
            if has_composites(decomposed):
                module = import_with_composites(
                    decomposed, how.output_type, how.function, WeightsWithoutCopies()
                )
            else:
                module = export_and_import(
                    decomposed,
                    output_type=how.output_type,
                    func_name=how.function,
                    hooks=WeightsWithoutCopies(),
                )
        except Exception as error:  # the importer raises plain Python errors on unsupported graphs
            failure = error
    if isinstance(failure, RefusedOp):
        raise FrontendError(str(failure)) from None
    if failure is not None:
        announce("the search for the ops torch-mlir cannot lower")
        with capture_native_stderr():  # their failures repeat the one being reported
            unknown = _unknown_ops(decomposed) if "torch.operator" in printed[0] else set()
            unknown |= _unconverted_ops(decomposed)
        found = _failing_ops(printed[0], unknown)
        more = _pytorch_decompositions(decomposed, found, decompositions)
        if more:
            try:
                return _lower(program, how, {**decompositions, **more})
            except FrontendError:
                pass  # the ops the model calls say more than those they decompose into
        raise FrontendError(_lowering_failure(found, printed[0], failure))
    operation = module.operation
    number_results: tuple[str | None, ...] = ()
    if how.output_type == "stablehlo":
        number_results = number_results_as_tensors(operation, how.function)
        rewrite_scalars(operation)
        announce(f"shlo's {TORCH_SEMANTICS}")
        module = run_pipeline(IRModule(WORLD, operation.context, operation), TORCH_SEMANTICS)
        operation = module.operation
    return _Lowered(
        IRModule(WORLD, operation.context, operation).to_bytecode(),
        tuple(state),
        _mutated_inputs(decomposed.graph_signature),
        number_results,
        assertions,
        ragged,
    )


def _pytorch_decompositions(
    program: torch.export.ExportedProgram,
    failing: set[tuple[str, str]],
    have: dict[Any, Callable[..., Any]],
) -> dict[Any, Callable[..., Any]]:
    """PyTorch's own decompositions (its composite kernels, its core ATen and other tables)
    of the ops of `program` that torch-mlir could not lower (`failing`: op and site); an op
    it named that `program` does not call came from torch-mlir's own decomposition of one
    that does, so the ops at that site are the ones decomposed.  Where `have` has one of its
    own that kept the op as it is (NotImplemented), PyTorch's is tried after it."""
    calls = [
        (node.target, _qualified_name(node.target).replace("::", "."), call_site(node))
        for node in program.graph.nodes
        if isinstance(node.target, torch._ops.OpOverload)
    ]
    called = {name for _, name, _ in calls}
    wanted = {name.removeprefix("torch.") for name, _ in failing}
    sites = {site for name, site in failing if name.removeprefix("torch.") not in called}
    ops = {op for op, name, site in calls if name in wanted or site in sites}
    composite = {
        op
        for op in ops
        if torch._C._dispatch_has_kernel_for_dispatch_key(
            _qualified_name(op), "CompositeImplicitAutograd"
        )
    }
    found = {op: decomposition_table[op] for op in ops - composite if op in decomposition_table}
    if composite:  # export's table of composite kernels takes a while to build
        table = torch.export.default_decompositions()
        found |= {op: table[op] for op in composite if op in table}
    return {
        op: functools.partial(_first_of, have[op], theirs) if op in have else theirs
        for op, theirs in found.items()
        if have.get(op) is not theirs and not _chained(have.get(op))
    }


def _first_of(
    ours: Callable[..., Any], theirs: Callable[..., Any], *args: Any, **kwargs: Any
) -> Any:
    """`ours`, and `theirs` where `ours` keeps the op as it is."""
    result = ours(*args, **kwargs)
    return theirs(*args, **kwargs) if result is NotImplemented else result


def _chained(decomposition: Any) -> bool:
    return isinstance(decomposition, functools.partial) and decomposition.func is _first_of


def _qualified_name(op: Any) -> str:
    """`aten::name.overload` (`aten::name` for the default overload), as the dispatcher
    spells an op."""
    return str(op.name())


def _crash_report(crash: Crashed, program: torch.export.ExportedProgram) -> str:
    """The native crash of a child that imported `program`: where, how, and the model's ops
    (the crash kills the process that could tell which of them it was on)."""
    ops = sorted(
        {
            f"  {node.target} (at {call_site(node)})"
            for node in program.graph.nodes
            if isinstance(node.target, torch._ops.OpOverload)
        }
    )
    shown = ops[:_OPS_SHOWN] + (
        [f"  ... ({len(ops) - _OPS_SHOWN} more)"] if len(ops) > _OPS_SHOWN else []
    )
    return (
        f"native code crashed ({crash.how}) in {crash.stage or 'the import'}, "
        "in a child process; the model's ops:\n" + "\n".join(shown)
    )


_OPS_SHOWN = 12


def _state_as_inputs(program: torch.export.ExportedProgram, all_state: bool) -> list[str]:
    """Turn the buffers `program` updates (with `all_state`, every parameter and buffer) into
    inputs of the program, which torch-mlir's importer then keeps as arguments instead of
    freezing them as constants; returns their names, in argument order."""
    signature = program.graph_signature
    kinds = (InputKind.PARAMETER, InputKind.BUFFER) if all_state else ()
    lifted = {
        spec.target for spec in signature.output_specs if spec.kind == OutputKind.BUFFER_MUTATION
    } | {spec.target for spec in signature.input_specs if spec.kind in kinds}
    if not lifted:
        return []
    argument = {spec.target: spec.arg for spec in signature.input_specs if spec.target in lifted}
    inputs = [
        InputSpec(InputKind.USER_INPUT, spec.arg, None) if spec.target in lifted else spec
        for spec in signature.input_specs
    ]
    outputs = [
        OutputSpec(OutputKind.USER_INPUT_MUTATION, spec.arg, argument[spec.target].name)
        if spec.kind == OutputKind.BUFFER_MUTATION
        else spec
        for spec in signature.output_specs
    ]
    # torch.export has no public way to change which inputs are state.
    program._graph_signature = ExportGraphSignature(inputs, outputs)
    return [spec.target for spec in signature.input_specs if spec.target in lifted]


def _state_tensor(model: torch.nn.Module, target: str) -> torch.Tensor:
    """The model's own parameter or buffer (not a copy), so updates written to it are seen."""
    try:
        return model.get_parameter(target)
    except AttributeError:
        return model.get_buffer(target)


def _mutated_inputs(signature: Any) -> tuple[int, ...]:
    """The user input (by leaf index) each leading in-place-update output is for."""
    user_inputs = [
        spec.arg.name for spec in signature.input_specs if spec.kind == InputKind.USER_INPUT
    ]
    return tuple(
        user_inputs.index(spec.target)
        for spec in signature.output_specs
        if spec.kind == OutputKind.USER_INPUT_MUTATION
    )


class WeightsWithoutCopies(FxImporterHooks):
    """torch-mlir copies every weight through a Python list (`tensor.tolist()`, several times
    the weight bytes and most of the import time); here the tensor's own storage is handed to
    MLIR as the resource blob, without a copy (MLIR keeps a reference to it).

    f64, uint8 and bool weights are copied into dense elements instead: IREE retypes a
    resource blob's constant without converting the blob where it demotes f64 to f32 (unless
    the program's interface is f64) and where it makes unsigned integers signless (torch-mlir
    holds a bool tensor as uint8 bytes), and fails (`'arith.constant' op failed to verify that
    all of {value, result} have same type`): a model holding such a tensor of two or more
    elements, a boolean mask buffer among them, failed to compile."""

    def __init__(self) -> None:
        self._attributes: dict[int, tuple[torch.Tensor, Any]] = {}

    def resolve_literal(self, gni: Any, literal: Any, info: Any) -> Any:
        if (
            not isinstance(literal, torch.Tensor)
            or literal.numel() <= 1  # torch-mlir makes these splats, which optimize better
            or literal.dtype not in _LITERAL_DTYPES
            or isinstance(literal, torch._subclasses.FakeTensor)
        ):
            return None
        key = id(literal)
        if key not in self._attributes:
            array = literal.detach().contiguous().numpy()
            shape = "_".join(map(str, literal.shape))
            kind = create_mlir_tensor_type(literal)
            if literal.dtype in _COPIED_DTYPES:
                attribute = ir.DenseElementsAttr.get(array, type=kind)
            else:
                attribute = ir.DenseResourceElementsAttr.get_from_buffer(
                    array, f"torch_tensor_{shape}_{literal.dtype}", kind
                )
            self._attributes[key] = (literal, attribute)  # the tensor lives as long as we do
        vtensor_type = gni._cc.tensor_to_vtensor_type(literal)
        return ir.Operation.create(
            "torch.vtensor.literal",
            results=[vtensor_type],
            attributes={"value": self._attributes[key][1]},
        ).result


_COPIED_DTYPES = {torch.float64, torch.uint8, torch.bool}
_LITERAL_DTYPES = {
    torch.float32, torch.float16, torch.int64, torch.int32, torch.int16, torch.int8,
    *_COPIED_DTYPES,
}  # fmt: skip


def _unknown_ops(program: torch.export.ExportedProgram) -> set[tuple[str, str]]:
    """(ATen op, site) for every op torch-mlir does not know: its lowering stops at the first,
    but the unlowered import holds them all, as `torch.operator`s."""
    try:
        raw = export_and_import(program)
    except Exception:  # noqa: BLE001 (this only adds detail to an error being reported)
        return set()
    return {
        (ir.StringAttr(op.attributes["name"]).value, _site(str(op.location)))
        for op in ops_in(raw, "torch.operator")
    }


def _unconverted_ops(program: torch.export.ExportedProgram) -> set[tuple[str, str]]:
    """(op, site) for every torch op that torch-mlir's conversion to StableHLO leaves behind.

    The lowering reports only the first illegal op in program order, which is often a
    `torch.constant.int` feeding the op that really failed; converting the backend IR on its
    own shows every op that stayed."""
    try:
        module = export_and_import(program, output_type="torch")
        WORLD.passmanager.PassManager.parse(
            "builtin.module(func.func(convert-torch-to-stablehlo))", module.context
        ).run(module.operation)
    except Exception:  # noqa: BLE001 (this only adds detail to an error being reported)
        return set()
    return {
        (op.name, _site(str(op.location)))
        for op in ops_in(module)
        if op.name.startswith(_UNCONVERTED_PREFIXES)
    }


def _refuse_data_dependent_shapes(program: torch.export.ExportedProgram) -> None:
    """Raise `RefusedOp` naming the ops whose result's shape comes from input values (an
    unbacked size, as bincount, nonzero, unique or `x[:int(n)]` make), none of its inputs
    having one: StableHLO's shapes cannot express them, and the IR that would carry them
    crashes the passes after it."""
    lines = []
    for node in program.graph.nodes:
        if node.op != "call_function" or not _unbacked(node):
            continue
        if not any(_unbacked(arg) for arg in node.all_input_nodes):
            # one result of several: the op that makes them
            op = node.args[0].target if node.target is operator.getitem else node.target
            lines.append(f"  {op} (at {call_site(node)})")
    if lines:
        raise RefusedOp(
            "the shape of a result depends on the input values, which StableHLO's shapes "
            "cannot express; ops that decide it:\n" + "\n".join(lines)
        )


def _unbacked(node: torch.fx.Node) -> bool:
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and bool(free_unbacked_symbols(value))


def _site(text: str) -> str:
    """`file:line` of the first file location in `text`."""
    where = _FILE_LINE.search(text)
    return f"{where.group(1)}:{where.group(2)}" if where else "unknown location"


def _failing_ops(printed: str, unknown: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """(op, site) for every op torch-mlir could not lower: those it does not know (`unknown`)
    and those its lowering names in what it `printed`."""
    # torch.operator wraps an ATen op torch-mlir does not know; name the ATen op instead
    found = set(unknown)
    for line in printed.splitlines():
        if (op := _ILLEGAL_OP.search(line)) is None:
            continue
        name = op.group(2) or op.group(1)
        if not (unknown and name.startswith("torch.constant.")):  # a user of it is named
            found.add((name, _site(line[: op.start()])))
    return found


def _lowering_failure(found: set[tuple[str, str]], printed: str, error: Exception) -> str:
    """Every op torch-mlir could not lower (`found`), with where the model uses it, else the
    error and the diagnostics it `printed`."""
    if not found:
        # the pipeline's own error says only that it failed; its diagnostics say where and why
        diagnostics = [line for line in printed.splitlines() if ": error: " in line]
        return _first_lines("\n".join([f"torch-mlir import failed: {error}", *diagnostics]))
    lines = [f"  {op} (at {where})" for op, where in sorted(found)]
    return "torch-mlir cannot lower these ops to StableHLO:\n" + "\n".join(lines)


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    more = f"\n... ({len(lines) - count} more lines)" if len(lines) > count else ""
    return "\n".join(lines[:count]) + more
