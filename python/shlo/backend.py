"""StableHLO -> `.vmfb` with IREE's compiler, with the flags that avoid IREE's known traps.

Every compile runs the wheel's `iree-compile` binary with an explicit flag list and records it,
so a user can rerun exactly the same command by hand.  Targets are named as users name them;
GPU names IREE 3.13 cannot compile fail with a message and a working alternative.
"""

from __future__ import annotations

import enum
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from shlo import cache
from shlo.diagnostics import Diagnostic, format_all, parse_printed
from shlo.native_tools import tool_path
from shlo.output import atomic_path

# Host-tuned llvm-cpu: without target-cpu=host IREE runs 4-10x slower than eager here;
# aggressive fusion at O2/O3 overflowed IREE's 32 KiB stack on LayerNorm dispatches.
_LLVM_CPU = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    "--iree-opt-level=O3",
    "--iree-opt-data-tiling",
    "--iree-dispatch-creation-enable-aggressive-fusion=false",
)
_COMMON = ("--iree-input-type=stablehlo",)
# IREE demotes f64 to f32 unless told otherwise.
_KEEP_F64 = "--iree-input-demote-f64-to-f32=false"
DEFAULT_CUDA_ARCH = "sm_80"
_CUDA_NAMES = {
    "a100": "sm_80",
    "a10": "sm_86",
    "rtx3090": "sm_86",
    "l4": "sm_89",
    "rtx4090": "sm_89",
    "ada": "sm_89",
}
_CUDA_BROKEN = {"sm_90", "sm_90a", "h100", "h200", "hopper"}


class Target(enum.Enum):
    """Where a `.vmfb` runs; parses the names users type (`Target.get("llvm-cpu")`)."""

    LLVM_CPU = "llvm-cpu"
    VULKAN = "vulkan"
    CUDA = "cuda"
    VMVX = "vmvx"

    @classmethod
    def get(cls, name: str | Target) -> Target:
        if isinstance(name, Target):
            return name
        try:
            return cls(name.lower())
        except ValueError:
            known = ", ".join(t.value for t in cls)
            raise CompileError(f"unknown target '{name}'; expected one of {known}") from None

    @property
    def default_device(self) -> str:
        return {"llvm-cpu": "local-task", "vmvx": "local-task"}.get(self.value, self.value)


class CompileError(RuntimeError):
    """iree-compile rejected the module, or the target request cannot be honoured."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


def cuda_arch(name: str | None) -> str:
    """An `sm_*` IREE 3.13 compiles for, from what a user typed (`a100`, `sm_89`, ...)."""
    arch = (name or DEFAULT_CUDA_ARCH).lower()
    if arch in _CUDA_BROKEN:
        raise CompileError(
            f"IREE 3.13 cannot compile CUDA for '{name}' (sm_90 fails, 'h100' crashes the "
            "compiler); use --cuda-arch sm_89 or sm_80: that PTX runs on Hopper GPUs through "
            "the driver's JIT"
        )
    arch = _CUDA_NAMES.get(arch, arch)
    if not arch.startswith("sm_") or not arch[3:].isdigit():
        raise CompileError(
            f"unknown CUDA architecture '{name}'; use sm_XY (e.g. sm_80) or "
            f"one of {', '.join(sorted(_CUDA_NAMES))}"
        )
    return arch


def target_flags(target: Target, cuda: str | None = None, keep_f64: bool = False) -> list[str]:
    """The iree-compile flags for a target (without input or output)."""
    if target is Target.LLVM_CPU:
        device = list(_LLVM_CPU)
    elif target is Target.VMVX:
        device = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"]
    elif target is Target.VULKAN:
        device = ["--iree-hal-target-device=vulkan"]
    else:
        device = ["--iree-hal-target-device=cuda", f"--iree-cuda-target={cuda_arch(cuda)}"]
    return [*_COMMON, *([_KEEP_F64] if keep_f64 else []), *device]


@dataclass(frozen=True)
class Compiled:
    """A compiled module and the exact commands that produced it (or identical earlier ones,
    when `cached`): one iree-compile, more when the weights go to a parameter archive (export,
    and on llvm-cpu IREE's encoder compiled and run)."""

    vmfb: bytes
    target: Target
    commands: tuple[tuple[str, ...], ...]
    cached: bool = False

    @property
    def command(self) -> tuple[str, ...]:
        """The iree-compile command that wrote the `.vmfb` (the encoder's come after it)."""
        return next(
            c for c in reversed(self.commands) if c[0] == "iree-compile" and c[-1] != _ENCODER_VMFB
        )

    def command_line(self) -> str:
        return " && ".join(shlex.join(command) for command in self.commands)


# Constants at least this big go to the parameter archive; smaller ones stay in the .vmfb.
PARAMETER_MINIMUM_BYTES = 4096
# The scope of the weights as exported, and of the packed copies IREE's encoder makes of them.
PARAMETER_SCOPE = "model"
ENCODED_SCOPE = "encoded"
_ENCODER_VMFB = "encoder.vmfb"
_ENCODER = (
    "--iree-parameter-encoder-output-file=encoder.mlir",
    f"--iree-parameter-encoder-output-scope={ENCODED_SCOPE}",
    "--iree-parameter-encoder-mode=overlay",
)


def encodes_parameters(target: Target) -> bool:
    """Whether `target`'s weights also get an archive of the packed copies IREE's data tiling
    makes (llvm-cpu).  Packing them at load kept the mapped archive and a packed copy in memory
    at once (2.1x the weights); IREE's encoder module packs them once, during compilation, and
    loading maps the packed archive as it is."""
    return target is Target.LLVM_CPU


def encoded_archive(archive: str | Path) -> Path:
    """Where the packed copies of `archive`'s weights go: `w.irpa` -> `w.encoded.irpa`."""
    path = Path(archive)
    return path.with_name(f"{path.stem}.{ENCODED_SCOPE}{path.suffix or '.irpa'}")


def _run(command: list[str], target: Target, folder: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder)
    if done.returncode != 0:
        diagnostics = parse_printed(done.stderr)
        detail = format_all(diagnostics, {}) if diagnostics else done.stderr
        tool = command[2] if command[0] == sys.executable else Path(command[0]).name
        raise CompileError(f"{tool} failed for {target.value}:\n{detail.strip()}", diagnostics)


def _execute(steps: list[list[str]], target: Target, folder: str) -> None:
    for tool, *arguments in steps:
        executable = sys.executable if tool == "python" else str(tool_path(tool))
        _run([executable, *arguments], target, folder)


def _steps(
    name: str, flags: list[str], archive: str | None, export: bool, encoding: bool
) -> list[list[str]]:
    """The commands, run in a scratch folder on `name`.mlirbc.  `archive`: the .irpa to write;
    `export`: the weights are still constants of the module (else the module reads them from
    `archive`, written already); `encoding`: also write IREE's encoder module for them."""
    source, resume, steps = f"{name}.mlirbc", [], []
    if export:
        pipeline = (
            "builtin.module(iree-flow-outline-constants, iree-io-export-parameters{"
            f"path={PARAMETER_SCOPE}={archive} minimum-size={PARAMETER_MINIMUM_BYTES}}})"
        )
        steps += [
            ["iree-compile", source, *flags, "--compile-to=input", "-o", "input.mlirbc"],
            ["iree-opt", "input.mlirbc", f"--pass-pipeline={pipeline}", "-o", "exported.mlirbc"],
        ]
        source, resume = "exported.mlirbc", ["--compile-from=input"]
    encoder = list(_ENCODER) if encoding else []
    return [*steps, ["iree-compile", source, *flags, *resume, *encoder, "-o", f"{name}.vmfb"]]


def _encode_steps(flags: list[str], archive: str, encoded: str) -> list[list[str]]:
    """Compile the encoder module and run it: `archive`'s weights, packed, into `encoded`."""
    return [
        ["iree-compile", "encoder.mlir", *flags, "-o", _ENCODER_VMFB],
        [
            "python",
            "-m",
            "shlo.encode_parameters",
            f"--module={_ENCODER_VMFB}",
            f"--parameters={PARAMETER_SCOPE}={archive}",
            f"--output={ENCODED_SCOPE}={encoded}",
        ],
    ]


def compile_bytecode(
    module_bytecode: bytes,
    target: Target | str,
    *,
    cuda: str | None = None,
    extra_flags: tuple[str, ...] = (),
    source_name: str = "module",
    keep_f64: bool = False,
    cache_as: bytes | None = None,
    parameters: str | Path | None = None,
    write_weights: Callable[[Path], None] | None = None,
) -> Compiled:
    """Compile StableHLO (bytecode or text) for `target` with iree-compile.

    `cache_as` is the module's identity for shlo.cache (its bytecode without locations, which
    name dynamo's generated code differently each time); an earlier compile of the same
    identity and flags is reused.  None: always compile.

    `parameters`: write the weights to this IREE parameter archive (.irpa) instead of the
    .vmfb.  They are exported after IREE's input conversion, as globals, so the weight-only
    work IREE hoists (transposes, packing) is not redone on every call; on llvm-cpu IREE's
    encoder packs them into a second archive beside it (`encodes_parameters`).
    `write_weights`: the module already reads its weights from parameters and this writes
    their archive to the path it is given.  Archives are written beside their destination and
    renamed into place when all went well.
    """
    target = Target.get(target)
    flags = [*target_flags(target, cuda, keep_f64), *extra_flags]
    destination = Path(parameters).resolve() if parameters is not None else None
    export = destination is not None and write_weights is None
    packed = encoded_archive(destination) if destination and encodes_parameters(target) else None
    shown = _steps(source_name, flags, destination and destination.name, export, packed is not None)
    if packed:
        shown += _encode_steps(flags, destination.name, packed.name)
    entry = cache.key(cache_as, flags) if cache_as is not None and destination is None else ""
    if entry and (vmfb := cache.lookup(entry)) is not None:
        return Compiled(vmfb, target, tuple(map(tuple, shown)), cached=True)
    folder = tempfile.TemporaryDirectory(prefix="shlo-compile-")
    with folder as scratch, ExitStack() as outputs:
        archive = outputs.enter_context(atomic_path(destination)) if destination else None
        (Path(scratch) / f"{source_name}.mlirbc").write_bytes(module_bytecode)
        if write_weights is not None:
            write_weights(archive)
        _execute(
            _steps(source_name, flags, archive and str(archive), export, bool(packed)),
            target,
            scratch,
        )
        if packed and (Path(scratch) / "encoder.mlir").is_file():
            encoded = outputs.enter_context(atomic_path(packed))
            _execute(_encode_steps(flags, str(archive), str(encoded)), target, scratch)
        elif packed:  # no weights went to the archive: nothing to pack
            packed.unlink(missing_ok=True)  # an earlier compile's, of other weights
        if archive and archive.stat().st_size == 0:  # IREE writes none without weights
            from shlo.parameters import write_archive

            write_archive({}, archive)
        vmfb = (Path(scratch) / f"{source_name}.vmfb").read_bytes()
    if entry:
        cache.store(entry, vmfb)
    return Compiled(vmfb, target, tuple(map(tuple, shown)))
