"""Saved StableHLO bundles in torch_xla's `save_as_stablehlo` layout, written and read safely.

    DIR/functions/NAME.meta      JSON: signatures, where each input comes from, pytree specs
    DIR/functions/NAME.bytecode  the module as a portable artifact (VHLO, this StableHLO version)
    DIR/functions/NAME.mlir      the same module as text
    DIR/data/KEY                 each parameter and buffer, `np.save`d, named by its state_dict key
    DIR/constants/INDEX          extra constants, `np.save`d

The function takes the parameters as arguments (torch_xla's calling convention), so weights stay
out of the IR.  Loading binds them back as constants before compiling, so a loaded bundle runs
as fast as a model compiled directly.  Loading trusts nothing: JSON only, `allow_pickle=False`,
names that would leave the directory are rejected, only regular files inside the bundle are
read (a symlink out of it, or a FIFO, is refused), `.npy` headers are checked against the file
before anything is allocated, shapes and dtypes are checked, and bytecode is first parsed in a
child process (`bytecode_guard`), where a crash of MLIR's reader cannot end the caller's.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils import _pytree as pytree

from shlo.backend.compile import compile_module
from shlo.backend.targets import Target
from shlo.errors import BundleError, PortableError
from shlo.frontend.torch_import import import_model
from shlo.ir.bytecode_guard import check_bytecode
from shlo.ir.edit import erase_arguments, functions
from shlo.ir.element_types import DTYPES, as_saved
from shlo.ir.module import IRModule, from_bytecode, parse_source
from shlo.ir.output import AtomicOutput, write_file
from shlo.ir.portable import deserialize, serialize
from shlo.ir.source import Source
from shlo.ir.stablehlo import WORLD, stablehlo_version
from shlo.ir.worlds import ContextPolicy
from shlo.pipeline.run import flatten, run_pipeline
from shlo.runtime.loaded import LoadedModule
from shlo.runtime.tensors import to_numpy, to_torch
from shlo.runtime.untrusted import (
    UntrustedFileError,
    load_json,
    open_regular,
    read_bytes,
    read_npy,
)
from shlo.torch.compiled_model import check_call

INPUT_ARG, PARAMETER, CONSTANT = "input_arg", "parameter", "constant"
_TYPE = re.compile(r"tensor<((?:[0-9?]+x)*)([a-z]\w*)>")
# MLIR element type -> the dtype name the metadata uses (numpy's, and torch_xla's bfloat16)
_ELEMENT = {name: np.dtype(dtype).name for name, dtype in DTYPES.items()} | {"bf16": "bfloat16"}


_UNTUPLE = "builtin.module(iree-stablehlo-preprocessing-flatten-cfg-tuples)"


@dataclass
class VariableSignature:
    shape: list[int]
    dtype: str
    dynamic_dims: list[int] = field(default_factory=list)


@dataclass
class InputLocation:
    type_: str
    position: int = -1
    name: str = ""


@dataclass
class FunctionMeta:
    name: str
    stablehlo_version: str
    input_signature: list[VariableSignature]
    output_signature: list[VariableSignature]
    input_locations: list[InputLocation]
    unused_inputs: list[Any] = field(default_factory=list)
    input_pytree_spec: str | None = None
    output_pytree_spec: str | None = None


def _signatures(types: list[str]) -> list[VariableSignature]:
    found = []
    for text in types:
        match = _TYPE.fullmatch(text)
        if not match:
            raise BundleError(f"cannot describe the type {text} in a bundle")
        dims = match.group(1).split("x")[:-1]
        found.append(
            VariableSignature(
                [-1 if d == "?" else int(d) for d in dims],
                _ELEMENT.get(match.group(2), match.group(2)),
                [i for i, d in enumerate(dims) if d == "?"],
            )
        )
    return found


def _function(module: IRModule, name: str) -> Any:
    found = functions(module.operation).get(name)
    if found is None:
        raise BundleError(f"the module has no function @{name}")
    return found


def _function_types(module: IRModule, name: str) -> tuple[list[str], list[str]]:
    signature = module.world.ir.TypeAttr(_function(module, name).attributes["function_type"]).value
    return [str(t) for t in signature.inputs], [str(t) for t in signature.results]


def save_bundle(
    model: torch.nn.Module,
    args: tuple[Any, ...],
    directory: str | Path,
    kwargs: dict[str, Any] | None = None,
    *,
    dynamic_shapes: Any = None,
    name: str = "forward",
) -> FunctionMeta:
    """Export `model` on example inputs and write it as a bundle in `directory`."""
    imported = import_model(model, args, kwargs, dynamic_shapes=dynamic_shapes, weights="external")
    if imported.ragged:
        raise BundleError(
            "a result's length depends on the input values (unique, nonzero, ...), which a "
            "bundle's signature cannot carry"
        )
    if imported.assertions:
        raise BundleError(
            "the model checks values at run time (torch._check or the like), which a bundle's "
            f"signature cannot carry: {imported.assertions[0]}"
        )
    state = imported.weights or {}
    in_spec, out_spec = imported.in_spec, imported.out_spec
    module = flatten(imported.module)
    inputs, outputs = _function_types(module, imported.function)
    locations = [InputLocation(PARAMETER, name=key) for key in state]
    user_inputs = len(inputs) - len(state)
    locations += [InputLocation(INPUT_ARG, position=i) for i in range(user_inputs)]
    meta = FunctionMeta(
        name=name,
        stablehlo_version=stablehlo_version(),
        input_signature=_signatures(inputs),
        output_signature=_signatures(outputs),
        input_locations=locations,
        input_pytree_spec=pytree.treespec_dumps(in_spec),
        output_pytree_spec=pytree.treespec_dumps(out_spec),
    )
    root = Path(directory)
    for folder in ("functions", "data", "constants"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for key, tensor in state.items():
        _check_name(key, "data")
        with AtomicOutput(str(root / "data" / key)) as out:
            np.save(out.stream, to_numpy(tensor), allow_pickle=False)
            out.commit()
    write_file(root / "functions" / f"{name}.bytecode", serialize(module, "current", True))
    write_file(root / "functions" / f"{name}.mlir", module.text().encode())
    meta_text = json.dumps(dataclasses.asdict(meta))
    write_file(root / "functions" / f"{name}.meta", meta_text.encode())
    return meta


def _check_name(name: str, folder: str) -> None:
    """A file name inside `folder`, never a path out of it."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise BundleError(f"{folder}/{name!r}: not a plain file name (rejected)")


def read_meta(directory: str | Path, name: str = "forward") -> FunctionMeta:
    """The function's metadata, checked field by field (the file is untrusted input)."""
    _check_name(f"{name}.meta", "functions")
    path = Path(directory) / "functions" / f"{name}.meta"
    try:
        raw = load_json(_read(path, directory), str(path))
        meta = FunctionMeta(
            name=str(raw["name"]),
            stablehlo_version=str(raw["stablehlo_version"]),
            input_signature=[_signature(s) for s in raw["input_signature"]],
            output_signature=[_signature(s) for s in raw["output_signature"]],
            input_locations=[_location(loc) for loc in raw["input_locations"]],
            unused_inputs=list(raw.get("unused_inputs") or []),
            input_pytree_spec=raw.get("input_pytree_spec"),
            output_pytree_spec=raw.get("output_pytree_spec"),
        )
    except OSError as error:
        raise BundleError(f"{path}: {error.strerror}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise BundleError(f"{path}: not a bundle's function metadata ({error!r})") from None
    if len(meta.input_locations) != len(meta.input_signature):
        raise BundleError(f"{path}: {len(meta.input_locations)} input locations for "
                          f"{len(meta.input_signature)} inputs")  # fmt: skip
    return meta


def _signature(raw: dict[str, Any]) -> VariableSignature:
    shape = [int(d) for d in raw["shape"]]
    return VariableSignature(
        shape, str(raw["dtype"]), [int(d) for d in raw.get("dynamic_dims", [])]
    )


def _location(raw: dict[str, Any]) -> InputLocation:
    kind = raw["type_"]
    if kind not in (INPUT_ARG, PARAMETER, CONSTANT):
        raise ValueError(f"unknown input location type {kind!r}")
    location = InputLocation(kind, int(raw.get("position", -1)), str(raw.get("name", "")))
    if kind == PARAMETER:
        _check_name(location.name, "data")
    return location


def _read(path: Path, root: str | Path) -> bytes:
    """A bundle file's bytes: a regular file inside the bundle, or a BundleError."""
    try:
        return read_bytes(path, inside=root)
    except UntrustedFileError as error:
        raise BundleError(str(error)) from None
    except OSError as error:
        raise BundleError(f"{path}: {error.strerror}") from None


def load_array(
    path: Path,
    signature: VariableSignature,
    mmap_mode: str | None = None,
    inside: str | Path | None = None,
) -> np.ndarray:
    """The `.npy` at `path` (a regular file, in the folder `inside` when given), checked
    against the signature the function gives it (`mmap_mode` "r" checks it without reading
    the data)."""
    try:
        with open_regular(path, inside) as stream:
            array = read_npy(stream, str(path), mmap=mmap_mode is not None)
    except UntrustedFileError as error:
        raise BundleError(str(error)) from None
    except EOFError:
        raise BundleError(f"{path}: empty, not an .npy array") from None
    except OSError as error:
        raise BundleError(f"{path}: cannot read as .npy ({error.strerror})") from None
    array = as_saved(array, signature.dtype)
    if differs := mismatch(array, signature):
        raise BundleError(f"{path}: {differs}")
    return array


def mismatch(array: np.ndarray, signature: VariableSignature) -> str | None:
    """How `array` differs from what the function takes (`float32[2, 2] where the function
    takes float32[2, 4]`), or None when it fits."""
    dtype = "bool" if array.dtype == np.bool_ else str(array.dtype)
    if list(array.shape) == signature.shape and dtype == signature.dtype:
        return None
    return f"{dtype}{list(array.shape)} where the function takes {signature.dtype}{signature.shape}"


def read_module(root: Path, name: str) -> IRModule:
    """The function's module as saved (weights still arguments): the portable artifact, else
    plain bytecode, else the text."""
    bytecode, text = root / "functions" / f"{name}.bytecode", root / "functions" / f"{name}.mlir"
    context = WORLD.make_context(ContextPolicy())
    try:
        if bytecode.is_file():
            data = _read(bytecode, root)
            check_bytecode(data, str(bytecode))
            try:
                return deserialize(data)
            except (PortableError, ValueError, WORLD.ir.MLIRError):
                return from_bytecode(WORLD, context, data)
        return parse_source(WORLD, context, Source(str(text), _read(text, root), is_file=True))
    except OSError as error:
        raise BundleError(f"{text}: {error.strerror}") from None
    except WORLD.ir.MLIRError as error:
        raise BundleError(f"{bytecode if bytecode.is_file() else text}: {error}") from None


def _bind(module: IRModule, function: str, values: dict[int, np.ndarray]) -> None:
    """Replace the arguments at `values`' positions by constants holding those arrays."""
    ir = module.world.ir
    func_op = _function(module, function)
    entry = func_op.regions[0].blocks[0]
    with module.context, ir.Location.unknown():
        for index, array in values.items():
            argument = entry.arguments[index]
            attribute = ir.DenseResourceElementsAttr.get_from_buffer(
                np.ascontiguousarray(array), f"bundle_input_{index}", argument.type
            )
            with ir.InsertionPoint.at_block_begin(entry):
                constant = ir.Operation.create(
                    "stablehlo.constant", results=[argument.type], attributes={"value": attribute}
                )
            argument.replace_all_uses_with(constant.results[0])
        erase_arguments(func_op, values)


def load_module(directory: str | Path, name: str = "forward") -> tuple[IRModule, FunctionMeta]:
    """The bundle's module with its parameters and constants bound as constants: it takes
    only the user's inputs, in the order of their positions."""
    root = Path(directory)
    meta = read_meta(root, name)
    module = read_module(root, name)
    inputs, _ = _function_types(module, "main")
    if len(inputs) != len(meta.input_locations):
        raise BundleError(f"@main takes {len(inputs)} arguments; the metadata describes "
                          f"{len(meta.input_locations)}")  # fmt: skip
    values: dict[int, np.ndarray] = {}
    for index, (location, signature) in enumerate(
        zip(meta.input_locations, meta.input_signature, strict=True)
    ):
        if location.type_ != INPUT_ARG:
            values[index] = load_array(value_file(root, location), signature, inside=root)
    _bind(module, "main", values)
    return untupled(module), meta


def value_file(root: Path, location: InputLocation) -> Path:
    """Where a parameter's or a constant's value is saved: a regular file inside the bundle
    (checked here for callers that hand the path on)."""
    if location.type_ == PARAMETER:
        path = root / "data" / location.name
    else:
        path = root / "constants" / str(location.position)
    try:
        open_regular(path, inside=root).close()
    except UntrustedFileError as error:
        raise BundleError(str(error)) from None
    return path


def untupled(module: IRModule) -> IRModule:
    """`module` with @main's tuple results (torch_xla writes them) as separate results, which
    IREE and XlaCallModule take at a function boundary."""
    if any(result.startswith("tuple<") for result in _function_types(module, "main")[1]):
        return run_pipeline(module, _UNTUPLE)
    return module


class Bundle:
    """A loaded bundle compiled for a device: called like the model it was saved from."""

    def __init__(
        self, directory: str | Path, *, target: str = "llvm-cpu", device: str | None = None,
        name: str = "forward",
    ) -> None:  # fmt: skip
        self.module, self.meta = load_module(directory, name)
        arguments = [loc for loc in self.meta.input_locations if loc.type_ == INPUT_ARG]
        self.positions = [loc.position for loc in arguments]
        self.in_spec = _spec(self.meta.input_pytree_spec)
        self.out_spec = _spec(self.meta.output_pytree_spec)
        self.compiled = compile_module(self.module, target)
        self.loaded = LoadedModule(self.compiled.vmfb, device or Target.get(target).default_device)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, spec = pytree.tree_flatten((tuple(args), kwargs))
        if self.in_spec is not None and spec != self.in_spec:
            leaves, spec = pytree.tree_flatten(tuple(args))  # torch_xla may record args alone
            if spec != self.in_spec:
                check_call(self.in_spec, args, kwargs)  # a count, not two tree specs, if it is one
                raise BundleError(f"inputs do not match the bundle's structure {self.in_spec}")
        if max(self.positions, default=-1) >= len(leaves):
            raise BundleError(
                f"the bundle takes {max(self.positions) + 1} inputs, got {len(leaves)}"
            )
        arrays = self.loaded("main", *[to_numpy(leaves[p]) for p in self.positions])
        tensors = any(isinstance(leaf, torch.Tensor) for leaf in leaves)
        outputs: list[Any] = [to_torch(o) for o in arrays] if tensors else arrays
        if self.out_spec is None:
            return outputs
        return pytree.tree_unflatten(outputs, self.out_spec)


def _spec(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return pytree.treespec_loads(text)
    except (ValueError, KeyError, TypeError, NotImplementedError, RecursionError) as error:
        raise BundleError(f"unreadable pytree spec in the metadata: {error}") from None
