"""TensorFlow SavedModels from bundles or models, for TensorFlow Serving.

    save_saved_model("bundle/", "saved/")                     # a bundle, as torch_xla's
                                                              # stablehlo-to-saved-model does
    save_torch_module_as_tf_saved_model(model, (x,), "saved/")   # a model, checked against eager

The SavedModel's `serving_default` signature calls the StableHLO function through TensorFlow's
XlaCallModule, with the parameters and constants as non-trainable variables (the way torch_xla
and jax2tf lay it out), inputs named `args_0`, `args_1`, ... and results `output_0`, ...
TensorFlow runs in a child process (`shlo.serving.tf_writer`): its MLIR and torch-mlir's cannot
share one.  The child names the StableHLO version it reads; the artifact is written for that
version here.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils import _pytree as pytree

from shlo.errors import SavedModelError
from shlo.ir.element_types import as_saved
from shlo.ir.module import IRModule
from shlo.ir.output import atomic_folder
from shlo.ir.portable import readable_by, serialize
from shlo.runtime.numerics import assert_close
from shlo.runtime.tensors import to_numpy, to_torch
from shlo.torch.bundle import (
    INPUT_ARG,
    FunctionMeta,
    VariableSignature,
    load_array,
    mismatch,
    read_meta,
    read_module,
    save_bundle,
    untupled,
    value_file,
)

PLATFORMS = ("CPU", "CUDA", "ROCM", "TPU")
_INSTALL = "install the extra: pip install 'shlo[tf]' (tensorflow-cpu)"


@dataclass(frozen=True)
class SavedModel:
    """What was written: the folder, the StableHLO version inside, the signature's shapes."""

    path: Path
    stablehlo_version: str
    inputs: list[VariableSignature]
    outputs: list[VariableSignature]


def save_saved_model(
    bundle: str | Path,
    directory: str | Path,
    *,
    name: str = "forward",
    platform: str = "CPU",
    inputs: list[np.ndarray] | None = None,
) -> tuple[SavedModel, list[np.ndarray] | None]:
    """Write the bundle's function `name` as a SavedModel in `directory` (replaced whole, never
    left half-written).  Given `inputs`, the saved folder is loaded again as a server would load
    it and run on them; their results come back beside the description."""
    if platform not in PLATFORMS:
        raise SavedModelError(f"platform '{platform}' is not one of {', '.join(PLATFORMS)}")
    root = Path(bundle)
    meta = read_meta(root, name)
    module = untupled(read_module(root, name))
    arguments = _arguments(root, meta)
    user_inputs = _user_inputs(root, meta, arguments)
    if inputs is not None:
        _check_inputs(inputs, user_inputs)
    target = Path(directory)
    with atomic_folder(target, "SavedModel", "saved_model.pb") as built:
        work = built.parent
        request = {
            "artifact": str(work / "module.vhlo"),
            "out": str(built),
            "arguments": arguments,
            "inputs": [_signature(s) for s in user_inputs],
            "outputs": [_signature(s) for s in meta.output_signature],
            "platform": platform,
        }
        if inputs is not None:
            np.savez(work / "inputs.npz", *inputs)
            request["check"] = [str(work / "inputs.npz"), str(work / "results.npz")]
        version = _in_child(request, lambda version: _write_artifact(module, version, work))
        results = None
        if inputs is not None:
            with np.load(work / "results.npz", allow_pickle=False) as stored:
                results = [
                    as_saved(stored[f"arr_{i}"], signature.dtype)
                    for i, signature in enumerate(meta.output_signature)
                ]
    return SavedModel(target, version, user_inputs, meta.output_signature), results


def save_torch_module_as_tf_saved_model(
    model: torch.nn.Module,
    args: tuple[Any, ...],
    directory: str | Path,
    kwargs: dict[str, Any] | None = None,
    *,
    platform: str = "CPU",
) -> SavedModel:
    """Export `model` on example inputs as a SavedModel, then load that SavedModel in
    TensorFlow, run it on the same inputs and check its results against PyTorch eager; it
    replaces `directory` only when they match."""
    target = Path(directory)
    with atomic_folder(target, "SavedModel", "saved_model.pb") as built:
        bundle = built.parent / "bundle"
        meta = save_bundle(model, args, bundle, kwargs)
        leaves = pytree.tree_leaves((tuple(args), kwargs or {}))
        positions = [loc.position for loc in meta.input_locations if loc.type_ == INPUT_ARG]
        inputs = [np.asarray(to_numpy(torch.as_tensor(leaves[p]))) for p in positions]
        saved, results = save_saved_model(bundle, built, platform=platform, inputs=inputs)
        with torch.no_grad():
            expected = model(*args, **(kwargs or {}))
        assert_close([to_torch(result) for result in results or []], expected)  # leaf by leaf
    return dataclasses.replace(saved, path=target)


def _arguments(root: Path, meta: FunctionMeta) -> list[dict[str, Any]]:
    """@main's arguments in order: the user's input at a position, or a variable's file (each
    checked against its signature without reading it)."""
    found: list[dict[str, Any]] = []
    for location, signature in zip(meta.input_locations, meta.input_signature, strict=True):
        if location.type_ == INPUT_ARG:
            found.append({"input": location.position})
            continue
        path = value_file(root, location)
        load_array(path, signature, mmap_mode="r")
        name = location.name or f"constant_{location.position}"
        found.append({"file": str(path.resolve()), "name": name, "dtype": signature.dtype})
    positions = sorted(a["input"] for a in found if "input" in a)
    if positions != list(range(len(positions))):
        raise SavedModelError(f"input positions {positions} are not 0 to {len(positions) - 1}")
    return found


def _user_inputs(
    root: Path, meta: FunctionMeta, arguments: list[dict[str, Any]]
) -> list[VariableSignature]:
    """The signatures of the user's inputs, by position: static shapes only."""
    found = sorted(
        ((a["input"], meta.input_signature[i]) for i, a in enumerate(arguments) if "input" in a),
        key=lambda pair: pair[0],
    )
    for position, signature in found:
        if signature.dynamic_dims or -1 in signature.shape:
            raise SavedModelError(
                f"{root}: input {position} (args_{position}) has dynamic dimensions, which shlo "
                "cannot put in a SavedModel yet (XlaCallModule needs them refined): save the "
                "bundle with static shapes"
            )
    return [signature for _, signature in found]


def _check_inputs(inputs: list[np.ndarray], signatures: list[VariableSignature]) -> None:
    if len(inputs) != len(signatures):
        raise SavedModelError(f"the bundle takes {len(signatures)} inputs, got {len(inputs)}")
    for index, (value, signature) in enumerate(zip(inputs, signatures, strict=True)):
        if differs := mismatch(value, signature):
            raise SavedModelError(f"input {index} (args_{index}) is {differs}")


def _signature(signature: VariableSignature) -> dict[str, Any]:
    return {"shape": signature.shape, "dtype": signature.dtype}


def _write_artifact(module: IRModule, reader: str, work: Path) -> str:
    """The portable artifact at the newest version TensorFlow reads; that version."""
    version = readable_by(reader)
    (work / "module.vhlo").write_bytes(serialize(module, version))
    return version


def _in_child(request: dict[str, Any], prepare: Callable[[str], str]) -> str:
    """Run the TensorFlow child: read the version it names, `prepare(version)`, send the
    request.  The version prepared for."""
    child = subprocess.Popen(
        [sys.executable, "-m", "shlo.serving.tf_writer"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        said = child.stdout.readline() if child.stdout else ""
        if not said:
            _, stderr = child.communicate()
            raise SavedModelError(_child_failure(stderr, child.returncode))
        try:
            version = prepare(json.loads(said)["stablehlo"])
        except BaseException:
            child.communicate("")
            raise
        _, stderr = child.communicate(json.dumps(request) + "\n")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    if child.returncode != 0:
        raise SavedModelError(_child_failure(stderr, child.returncode))
    return version


def _child_failure(stderr: str, returncode: int) -> str:
    errors = [line[len("error: ") :] for line in stderr.splitlines() if line.startswith("error: ")]
    if errors:
        reason = errors[-1]
        if "TensorFlow is not importable" in reason:
            reason = f"{reason}: {_INSTALL}"
        return f"SavedModel export failed: {reason}"
    if returncode < 0:
        return f"TensorFlow died on {signal.Signals(-returncode).name} while writing the SavedModel"
    tail = stderr.strip().splitlines()[-1:] or [f"exit status {returncode}"]
    return f"SavedModel export failed: {tail[0]}"
