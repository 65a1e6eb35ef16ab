"""The child process of `shlo.serving.saved_model`: TensorFlow's side of a SavedModel export.

TensorFlow and torch-mlir each carry their own MLIR, and a process that imports TensorFlow
before torch-mlir aborts, so TensorFlow is imported only here, in a process of its own that
imports no MLIR bindings (of shlo, only the bindings-free `shlo.ir.element_types`).  The
exchange, one JSON line each way:

    child:  {"stablehlo": "1.13.7"}         the newest StableHLO this TensorFlow reads
    parent: {"artifact": PATH, ...}          the request, or nothing to stop (see `_request`)
    child:  exit 0, or exit 1 after one line `error: ...` on stderr
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import numpy as np

from shlo.ir.element_types import as_saved

# XlaCallModule's calling convention: version 9 names the platforms the module was lowered for.
CALL_MODULE_VERSION = 9
SERVING_KEY = "serving_default"


def _variables(tf: Any, arguments: list[dict[str, Any]]) -> list[Any]:
    """A non-trainable variable per parameter or constant, named by its state_dict key."""
    found = []
    for argument in arguments:
        if "file" in argument:
            array = as_saved(np.load(argument["file"], allow_pickle=False), argument["dtype"])
            found.append(tf.Variable(array, trainable=False, name=argument["name"]))
    return found


def _spec(tf: Any, signature: dict[str, Any], name: str | None = None) -> Any:
    return tf.TensorSpec(signature["shape"], tf.as_dtype(signature["dtype"]), name=name)


def build(tf: Any, request: dict[str, Any]) -> Any:
    """A tf.Module whose `serve` calls the StableHLO artifact with the variables in place."""
    from tensorflow.compiler.tf2xla.python import xla as tfxla

    with open(request["artifact"], "rb") as stream:
        artifact = stream.read()
    module = tf.Module()
    module.weights = _variables(tf, request["arguments"])
    inputs = [_spec(tf, s, f"args_{i}") for i, s in enumerate(request["inputs"])]
    outputs = [_spec(tf, s) for s in request["outputs"]]

    def serve(*values: Any) -> list[Any]:
        weights = iter(module.weights)
        arguments = [
            values[a["input"]] if "input" in a else next(weights) for a in request["arguments"]
        ]
        results: list[Any] = tfxla.call_module(
            arguments,
            version=CALL_MODULE_VERSION,
            module=artifact,
            Tout=[o.dtype for o in outputs],
            Sout=[o.shape for o in outputs],
            platforms=[request["platform"]],
        )
        return results

    module.serve = tf.function(serve, input_signature=inputs, jit_compile=True)
    return module


def run_saved(tf: Any, request: dict[str, Any]) -> None:
    """Load the SavedModel as a server would and run its serving signature on the inputs."""
    loaded = tf.saved_model.load(request["out"])
    inputs_file, results_file = request["check"]
    with np.load(inputs_file, allow_pickle=False) as stored:
        values = {
            f"args_{i}": tf.constant(as_saved(stored[f"arr_{i}"], signature["dtype"]))
            for i, signature in enumerate(request["inputs"])
        }
    results = loaded.signatures[SERVING_KEY](**values)
    ordered = [results[f"output_{i}"].numpy() for i in range(len(results))]
    np.savez(results_file, *ordered)


def _request() -> dict[str, Any] | None:
    line = sys.stdin.readline()
    return json.loads(line) if line.strip() else None


def main() -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
        from tensorflow.compiler.mlir.stablehlo import stablehlo
    except ImportError as error:
        print(f"error: TensorFlow is not importable here ({error})", file=sys.stderr)
        return 1
    print(json.dumps({"stablehlo": stablehlo.get_current_version()}), flush=True)
    request = _request()
    if request is None:
        return 0
    try:
        module = build(tf, request)
        signature = module.serve.get_concrete_function()
        tf.saved_model.save(module, request["out"], signatures={SERVING_KEY: signature})
        if request.get("check"):
            run_saved(tf, request)
    except Exception as error:  # TensorFlow's own errors, reported to the parent in one line
        message = " ".join(str(error).split()) or type(error).__name__
        print(f"error: {type(error).__name__}: {message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
