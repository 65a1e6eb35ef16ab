"""Pre-encode a parameter archive with IREE's encoder module: `iree-encode-parameters` in Python.

With data tiling, IREE packs each weight into its target's tile layout.  When the weights live
in a parameter archive, that packing otherwise runs when the module loads, which keeps the
mapped archive and a packed copy in memory at once.  iree-compile can split
the packing out (`--iree-parameter-encoder-output-file`) into an encoder module; running it
once writes an archive of packed weights that the compiled module then maps as they are.

IREE ships the runner for that module as the `iree-encode-parameters` tool, which the
iree-base-runtime wheel does not include; this module follows its protocol (the encoder's
`indices`, `steps` and `encode` functions, found by their `iree.encode.*` reflection) with the
runtime's Python API.  The output archive is written beside its destination and renamed into
place when encoding succeeded; it records the archives it was made from (`archives.MADE_FROM`),
so that it is never used beside other weights.

    python -m shlo.runtime.encode_parameters --module=encoder.vmfb \\
        --parameters=raw=weights.irpa --output=model=packed.irpa
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from shlo.errors import RunError, ShloError
from shlo.ir.output import atomic_path
from shlo.runtime.archives import MADE_FROM, archive_provider, made_from
from shlo.runtime.bindings import ireert
from shlo.runtime.devices import device_config


def _string(buffer: Any) -> str:
    return bytes(memoryview(buffer)).decode()


class _Encoder:
    """An encoder module loaded on a device, with its functions by role."""

    def __init__(self, module_path: str | Path, device: str) -> None:
        self.config = device_config(device, self)
        self.instance = self.config.vm_instance
        try:
            self.module = ireert.VmModule.mmap(self.instance, str(module_path))
        except (OSError, RuntimeError, ValueError) as error:
            raise RunError(f"cannot load the encoder module {module_path}: {error}") from None
        self.functions: dict[str, Any] = {}
        for name in self.module.function_names:
            function = self.module.lookup_function(name)
            role = function.reflection.get("iree.encode.function")
            if role in ("indices", "steps", "encode"):
                self.functions[role] = function
        if "indices" not in self.functions or "encode" not in self.functions:
            raise RunError(
                f"{module_path} is not an encoder module (no iree.encode functions); it is "
                "written by iree-compile --iree-parameter-encoder-output-file"
            )

    def context(self, providers: list[Any]) -> Any:
        modules = [
            ireert.create_io_parameters_module(self.instance, *providers),
            ireert.create_hal_module(self.instance, self.config.device),
            self.module,
        ]
        return ireert.VmContext(self.instance, modules=modules)

    def call(self, context: Any, role: str, arguments: Any = None) -> Any:
        results = ireert.VmVariantList(1)
        context.invoke(self.functions[role], arguments or ireert.VmVariantList(0), results)
        return results


def _output_provider(descriptor: int, scope: str) -> Any:
    """A provider writing into the archive open at `descriptor` (pwrite: no mapping, no RSS)."""
    index = ireert.ParameterIndex()
    handle = ireert.FileHandle.wrap_fd(descriptor, readable=True, writable=True)
    index.load_from_file_handle(handle, "irpa")
    return index.create_provider(scope=scope)


def _output_entries(indices: Any) -> dict[str, ireert.ParameterIndex]:
    """The encoder's `indices` result, [[scope, [[kind, key, metadata, length, ...]]]], as one
    parameter index per scope with each entry's size (zeros: the encoder fills them)."""
    scopes = {}
    listing = indices.get_as_list(0)
    for i in range(listing.size):
        scope = listing.get_as_list(i)
        index = ireert.ParameterIndex()
        entries = scope.get_as_list(1)
        for j in range(entries.size):
            entry = entries.get_as_list(j)
            key, length = _string(entry.get_as_object(1, ireert.VmBuffer)), entry.get_variant(3)
            if entry.get_variant(0) == 0:  # a splat: [kind, key, metadata, length, pattern, size]
                pattern = entry.get_variant(4).to_bytes(8, "little")[: entry.get_variant(5)]
                index.add_splat(key, pattern, length)
            else:  # untouched calloc'd zeros cost no memory while they are copied to the file
                index.add_buffer(key, np.zeros(length, np.uint8))
        scopes[_string(scope.get_as_object(0, ireert.VmBuffer))] = index
    return scopes


def encode(
    module_path: str | Path,
    inputs: dict[str, str | Path],
    outputs: dict[str, str | Path],
    device: str = "local-task",
) -> None:
    """Run the encoder module on the `inputs` archives (scope -> path) and write the encoded
    archives (scope -> path)."""
    encoder = _Encoder(module_path, device)
    sources = [archive_provider(path, scope, "irpa") for scope, path in inputs.items()]
    wanted = _output_entries(encoder.call(encoder.context(sources), "indices"))
    missing = set(wanted) - set(outputs)
    if missing:
        raise RunError(f"the encoder writes scope(s) {', '.join(sorted(missing))}: add --output")
    record = made_from(inputs)
    descriptors: list[int] = []
    try:
        with ExitStack() as scratch:
            targets = []
            for scope, path in outputs.items():
                partial = scratch.enter_context(atomic_path(path))
                index = wanted.get(scope, ireert.ParameterIndex())
                index.add_buffer(MADE_FROM, np.frombuffer(record.encode(), np.uint8),
                                 metadata=record)  # fmt: skip
                index.create_archive_file(str(partial))
                descriptors.append(os.open(partial, os.O_RDWR))
                targets.append(_output_provider(descriptors[-1], scope))
            _run(encoder, encoder.context(sources + targets))
    finally:
        for descriptor in descriptors:
            os.close(descriptor)


def _run(encoder: _Encoder, context: Any) -> None:
    """Call `encode` with the encoder's steps and wait until the device has finished it."""
    arguments = ireert.VmVariantList(3)
    steps = "steps" in encoder.functions  # optional; without it, an empty list
    arguments.push_list(
        encoder.call(context, "steps").get_as_list(0) if steps else ireert.VmVariantList(0)
    )
    done = ireert.HalFence.create_at(encoder.config.device.create_semaphore(0), 1)
    arguments.push_ref(ireert.HalFence(0))  # nothing to wait for
    arguments.push_ref(done)
    context.invoke(encoder.functions["encode"], arguments, ireert.VmVariantList(0))
    done.wait()


def _scoped(text: str) -> tuple[str, str]:
    scope, separator, path = text.partition("=")
    if not separator or not scope or not path:
        raise argparse.ArgumentTypeError(f"expected SCOPE=PATH, got '{text}'")
    return scope, path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m shlo.runtime.encode_parameters",
        description="Encode parameter archives with an encoder module (iree-encode-parameters).",
    )
    parser.add_argument("--module", required=True, help="the encoder module (.vmfb)")
    parser.add_argument(
        "--parameters", type=_scoped, action="append", default=[], help="SCOPE=input.irpa"
    )
    parser.add_argument(
        "--output", type=_scoped, action="append", required=True, help="SCOPE=output.irpa"
    )
    parser.add_argument("--device", default="local-task")
    args = parser.parse_args(argv)
    try:
        encode(args.module, dict(args.parameters), dict(args.output), args.device)
    except ShloError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except RuntimeError as error:  # the runtime's own status, e.g. a parameter not found
        print(f"error: encoding failed: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
