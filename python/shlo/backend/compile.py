"""StableHLO -> `.vmfb` with IREE's compiler, with the flags that avoid IREE's known traps.

Every compile runs the wheel's `iree-compile` binary with an explicit flag list and records it,
so a user can rerun exactly the same command by hand.
"""

from __future__ import annotations

import functools
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from shlo.backend import cache
from shlo.backend.flags import ModuleFacts, iree_compile_flags
from shlo.backend.parameters import externalize
from shlo.backend.prepare import prepare
from shlo.backend.targets import Target
from shlo.errors import CompileError
from shlo.ir.diagnostics import format_all, parse_printed
from shlo.ir.edit import ops_in
from shlo.ir.module import IRModule, PrintOptions
from shlo.ir.output import AtomicOutput, atomic_path
from shlo.pipeline.native_tools import run_binary
from shlo.pipeline.run import run_pipeline
from shlo.runtime.archives import ENCODED_SCOPE, PARAMETER_SCOPE, encoded_archive, write_archive
from shlo.runtime.isolated import signal_text
from shlo.runtime.loaded import TrustedVmfb
from shlo.support.host import l2_bytes_per_thread

if TYPE_CHECKING:  # only for annotations: `shlo compile` never imports torch
    import torch


@dataclass(frozen=True)
class Compiled:
    """A compiled module and the exact commands that produced it (or identical earlier ones,
    when `cached`): one iree-compile, more when the weights go to a parameter archive (export,
    and on llvm-cpu the compile split where IREE writes its encoder module, which is compiled
    and run)."""

    vmfb: bytes
    target: Target
    commands: tuple[tuple[str, ...], ...]
    main: int  # the index in `commands` of the iree-compile that wrote the `.vmfb`
    cached: bool = False

    @property
    def command(self) -> tuple[str, ...]:
        """The iree-compile command that wrote the `.vmfb` (the encoder's come after it)."""
        return self.commands[self.main]

    def command_line(self) -> str:
        return " && ".join(shlex.join(command) for command in self.commands)

    def __repr__(self) -> str:  # the .vmfb itself is megabytes of bytes literal
        cached = ", cached" if self.cached else ""
        return f"<Compiled for {self.target.value}: {len(self.vmfb):,}-byte .vmfb{cached}>"


def compile_module(
    module: IRModule,
    target: Target | str = "llvm-cpu",
    *,
    cuda: str | None = None,
    extra_flags: tuple[str, ...] = (),
    use_cache: bool = False,
    parameters: str | Path | None = None,
    weights: dict[str, torch.Tensor] | None = None,
    keep_temps: str | Path | None = None,
) -> Compiled:
    """Compile to a `.vmfb`; `module` itself is left as it was.  `use_cache` reuses an
    identical earlier compile (shlo.backend.cache: in memory, then on disk).  `keep_temps`:
    compile in that folder and leave its files there (`compile_bytecode`).

    `parameters` keeps the weights in that .irpa archive, not the .vmfb: with `weights` (from
    `import_model(..., weights="external")`, @main's leading arguments) the archive is written
    from those tensors and they never enter the IR; without, the module's own constants are
    exported during compilation.

    f64 is kept when the public functions take or return it (IREE would demote it to f32; on
    Vulkan, math functions SPIR-V lacks in f64 run in f32, with a warning); f64 that only the
    importer introduced inside the program (torch-mlir's layer norm epsilon) is demoted.
    """
    if weights is not None and parameters is None:
        raise ValueError("weights kept out of the IR need an archive: give parameters=PATH")
    target = Target.get(target)
    prepared, facts = prepare(module, target)
    flags = _host_flags(target, facts, extra_flags, cuda)
    if weights is not None:
        externalize(prepared, list(weights))
        # IREE's parameter attributes are unregistered here: iree-compile reads them as text.
        source = prepared.text(PrintOptions(debug_info=True)).encode()
        return compile_bytecode(
            source,
            target,
            flags,
            parameters=parameters,
            write_weights=functools.partial(write_archive, weights),
            keep_temps=keep_temps,
            stateless=_stateless(prepared),
        )
    identity = run_pipeline(prepared, "builtin.module(strip-debuginfo)") if use_cache else None
    return compile_bytecode(
        prepared,
        target,
        flags,
        cache_as=identity.to_bytecode() if identity else None,
        parameters=parameters,
        keep_temps=keep_temps,
        stateless=_stateless(prepared),
    )


def _stateless(module: IRModule) -> bool:
    """Whether the program keeps nothing between calls (no mutable global), so that a call
    may run again from its inputs alone (`LoadedModule` does, on a new device, after a lost
    one)."""
    with module.context:
        found = [*ops_in(module, "ml_program.global"), *ops_in(module, "util.global")]
        return not any("is_mutable" in op.attributes for op in found)


def _host_flags(
    target: Target,
    facts: ModuleFacts | None = None,
    extra_flags: tuple[str, ...] = (),
    cuda: str | None = None,
) -> list[str]:
    """The flag rule's answer for a compile on this machine (its L2 cache sizes the tiles)."""
    facts = facts or ModuleFacts()
    return iree_compile_flags(target, facts, extra_flags, cuda, l2_bytes_per_thread())


# Constants at least this big go to the parameter archive; smaller ones stay in the .vmfb.
PARAMETER_MINIMUM_BYTES = 4096
_ENCODER_VMFB = "encoder.vmfb"
# IREE writes its encoder module in this phase, so the compile stops there, and the rest of it
# runs beside the encoder module's own compile, in two processes instead of one after the other.
_ENCODER_PHASE = "stream"
_ENCODER = (
    "--iree-parameter-encoder-output-file=encoder.mlir",
    f"--iree-parameter-encoder-output-scope={ENCODED_SCOPE}",
    "--iree-parameter-encoder-mode=overlay",
)


def encodes_parameters(target: Target) -> bool:
    """Whether `target`'s weights also get an archive of the packed copies IREE's data tiling
    makes (llvm-cpu).  Packing them at load keeps the mapped archive and a packed copy in memory
    at once; IREE's encoder module packs them once, during compilation, and loading maps the
    packed archive as it is."""
    return target is Target.LLVM_CPU


def _execute(
    steps: list[list[str]], target: Target, folder: str, side_by_side: bool = False
) -> None:
    """Run `steps` one after the other (stopping at the first that fails), or all at once."""
    runs: Iterable[subprocess.CompletedProcess[str]]
    if side_by_side:
        with ThreadPoolExecutor(len(steps)) as pool:
            runs = list(pool.map(lambda step: run_binary(step[0], step[1:], cwd=folder), steps))
    else:
        runs = (run_binary(tool, arguments, cwd=folder) for tool, *arguments in steps)
    for (tool, *arguments), done in zip(steps, runs, strict=True):
        if done.returncode != 0:
            diagnostics = parse_printed(done.stderr)
            detail = format_all(diagnostics, {}) if diagnostics else done.stderr
            shown = arguments[1] if tool == "python" else tool
            how = f"crashed ({signal_text(-done.returncode)})" if done.returncode < 0 else "failed"
            raise CompileError(f"{shown} {how} for {target.value}:\n{detail.strip()}", diagnostics)


def _steps(
    name: str, flags: list[str], archive: str | None, export: bool, encoding: bool
) -> list[list[str]]:
    """The commands, run in a scratch folder on `name`.mlirbc.  `archive`: the .irpa to write;
    `export`: the weights are still constants of the module (else the module reads them from
    `archive`, written already); `encoding`: also write IREE's encoder module for them, which
    splits the compile at the phase that writes it (the last step finishes the module)."""
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
    if not encoding:
        return [*steps, ["iree-compile", source, *flags, *resume, "-o", f"{name}.vmfb"]]
    staged = f"{name}.{_ENCODER_PHASE}.mlirbc"
    return [
        *steps,
        ["iree-compile", source, *flags, *resume, *_ENCODER, f"--compile-to={_ENCODER_PHASE}",
         "-o", staged],
        ["iree-compile", staged, *flags, f"--compile-from={_ENCODER_PHASE}", "-o", f"{name}.vmfb"],
    ]  # fmt: skip


def _encode_steps(flags: list[str], archive: str, encoded: str) -> list[list[str]]:
    """Compile the encoder module and run it: `archive`'s weights, packed, into `encoded`."""
    return [
        ["iree-compile", "encoder.mlir", *flags, "-o", _ENCODER_VMFB],
        [
            "python",
            "-m",
            "shlo.runtime.encode_parameters",
            f"--module={_ENCODER_VMFB}",
            f"--parameters={PARAMETER_SCOPE}={archive}",
            f"--output={ENCODED_SCOPE}={encoded}",
        ],
    ]


def _scratch(kept: Path | None) -> AbstractContextManager[str]:
    """The folder a compile runs in: `kept`, which stays, or a temporary one."""
    if kept is None:
        return tempfile.TemporaryDirectory(prefix="shlo-compile-")
    try:
        kept.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CompileError(f"cannot keep temporary files in {kept}: {error.strerror}") from None
    return nullcontext(str(kept))


def compile_bytecode(
    module: bytes | IRModule,
    target: Target | str,
    flags: Sequence[str] | None = None,
    *,
    source_name: str = "module",
    cache_as: bytes | None = None,
    parameters: str | Path | None = None,
    write_weights: Callable[[Path], None] | None = None,
    keep_temps: str | Path | None = None,
    stateless: bool = False,
) -> Compiled:
    """Compile StableHLO (bytecode or text, or a module, written out as bytecode straight to
    iree-compile's input file) for `target` with iree-compile and `flags` (by default the
    target's own, from `shlo.backend.flags`).

    `cache_as` is the module's identity for shlo.backend.cache (its bytecode without locations,
    which name dynamo's generated code differently each time); an earlier compile of the same
    identity and flags is reused.  None: always compile.

    `parameters`: write the weights to this IREE parameter archive (.irpa) instead of the
    .vmfb.  They are exported after IREE's input conversion, as globals, so the weight-only
    work IREE hoists (transposes, packing) is not redone on every call; on llvm-cpu IREE's
    encoder packs them into a second archive beside it (`encodes_parameters`).
    `write_weights`: the module already reads its weights from parameters and this writes
    their archive to the path it is given.  Archives are written beside their destination and
    renamed into place when all went well.

    `keep_temps`: compile in that folder (made if missing; never from the cache) and leave the
    exact input iree-compile got there, with what it wrote; the recorded commands start with
    `cd` to it, so `command_line()` reruns them as they ran.

    `stateless`: the module keeps nothing between calls (`TrustedVmfb.stateless`).
    """
    target = Target.get(target)
    flags = list(_host_flags(target) if flags is None else flags)
    destination = Path(parameters).resolve() if parameters is not None else None
    export = destination is not None and write_weights is None
    packed = encoded_archive(destination) if destination and encodes_parameters(target) else None
    kept = Path(keep_temps).resolve() if keep_temps is not None else None
    named = (str(destination) if kept else destination.name) if destination else None
    shown = _steps(source_name, flags, named, export, packed is not None)
    main = len(shown) - 1  # the last step writes the .vmfb
    if packed and named:
        shown += _encode_steps(flags, named, str(packed) if kept else packed.name)
    if kept:
        shown.insert(0, ["cd", str(kept)])
        main += 1
    entry = cache.key(cache_as, flags) if cache_as is not None and destination is None else ""
    if entry and not kept and (vmfb := cache.lookup(entry)) is not None:
        trusted = TrustedVmfb(vmfb, stateless=stateless)
        return Compiled(trusted, target, tuple(map(tuple, shown)), main, cached=True)
    with _scratch(kept) as scratch, ExitStack() as outputs:
        archive = outputs.enter_context(atomic_path(destination)) if destination else None
        # an output like any other: with keep_temps, the folder is the user's
        with AtomicOutput(str(Path(scratch) / f"{source_name}.mlirbc")) as source:
            if isinstance(module, IRModule):
                module.write(source.stream, PrintOptions(bytecode=True))
            else:
                source.stream.write(module)
            source.commit()
        if write_weights is not None and archive is not None:
            write_weights(archive)
        written = str(archive) if archive else None
        steps = _steps(source_name, flags, written, export, bool(packed))
        if not packed:
            _execute(steps, target, scratch)
        else:
            *first, finish = steps
            _execute(first, target, scratch)
            if (Path(scratch) / "encoder.mlir").is_file():
                encoded = outputs.enter_context(atomic_path(packed))
                compile_encoder, run_encoder = _encode_steps(flags, str(archive), str(encoded))
                _execute([finish, compile_encoder], target, scratch, side_by_side=True)
                _execute([run_encoder], target, scratch)
            else:  # no weights went to the archive: nothing to pack
                _execute([finish], target, scratch)
                packed.unlink(missing_ok=True)  # an earlier compile's, of other weights
        if archive and archive.stat().st_size == 0:  # IREE writes none without weights
            write_archive({}, archive)
        vmfb = (Path(scratch) / f"{source_name}.vmfb").read_bytes()
    if entry:
        cache.store(entry, vmfb)
    return Compiled(TrustedVmfb(vmfb, stateless=stateless), target, tuple(map(tuple, shown)), main)
