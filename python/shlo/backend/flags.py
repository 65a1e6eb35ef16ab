"""The iree-compile flag rule: (target, what the module uses, the user's flags) -> flags.

A pure function over plain values, so every workaround for IREE 3.13 is decided in one place
and tested without bindings; `shlo.backend.prepare` finds the facts in a module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shlo.backend.targets import Target, cuda_arch
from shlo.errors import CompileError

# Host-tuned llvm-cpu: without target-cpu=host IREE runs several times slower than eager;
# aggressive fusion at O2/O3 overflowed IREE's 32 KiB stack on LayerNorm dispatches.  Data
# tiling's dispatch-creation path (`--iree-opt-data-tiling`) packs a batched matmul's operand
# wrongly inside a reduction's dispatch (`shlo-barrier-reduced-batched-operands` keeps them
# apart); the global-optimization path gets that right and a vector taken as a column of a
# matrix wrong, which no pass can keep apart from every matmul.
_LLVM_CPU = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    "--iree-opt-level=O3",
    "--iree-opt-data-tiling",
    "--iree-dispatch-creation-enable-aggressive-fusion=false",
)
# IREE sizes a data-tiled matmul's workgroup tile to 256 KiB of operands.  When compiling for
# this host and one thread's share of its L2 cache is at least 2 MiB, a tile of that share (up
# to 4 MiB) lets each workgroup reuse more of the weights it has read.  With 1-1.25 MiB of L2
# a thread, 1 MiB tiles sped some models up and slowed others, so smaller L2s keep IREE's
# size.  benchmarks/README.md has the measurements.
MATMUL_TILE_BYTES = "--iree-llvmcpu-matmul-tile-bytes"
_MIN_HOST_L2 = 2 * 2**20
_MAX_MATMUL_TILE_BYTES = 4 * 2**20
_VMVX = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx")
_COMMON = ("--iree-input-type=stablehlo",)
# IREE demotes f64 to f32 unless told otherwise.
KEEP_F64 = "--iree-input-demote-f64-to-f32=false"
# IREE 3.13's bf16 emulation converts a dispatch's types but not the bf16 dense_resource
# constants inlined into it ("'arith.constant' op failed to verify"); not inlining avoids it.
NO_CONSTANT_INLINING = "--iree-flow-inline-constants-max-byte-length=0"
# IREE's default Vulkan target has no Int64 (a causal mask's index arithmetic fails to
# legalize); computing inside in i32 works when no i64 crosses the interface and no
# `rng_bit_generator` advances its state (demoted, the new state came back wrong).
DEMOTE_I64 = "--iree-input-demote-i64-to-i32"
# IREE's default Vulkan target (VP_ANDROID_baseline_2022) has no 16-bit or 64-bit floats.  Its
# f16 emulation computes wrong numbers (an f16 add is off, tanh gives 0), and f64 is demoted:
# f16 programs ask for 16-bit storage and arithmetic, programs whose interface is f64 for f64
# arithmetic, which desktop drivers and lavapipe have.  Without 8-bit storage, IREE reads and
# writes bool and 8-bit tensors as 32-bit words, and the last word of a buffer whose size is
# not a multiple of 4 bytes falls outside it: a 14-element bool result lost its last element
# (wrong numbers, no error), so programs with such tensors ask for 8-bit storage.  The same
# holds for 16-bit integers and bf16 (which IREE computes as 16-bit integers): uint8 and
# int16 inputs read as zeros or garbage until such programs asked for 16-bit storage too.
_VULKAN_BASE = ("spirv:v1.3", "cap:Shader")
_VULKAN_8BIT = ("cap:Int8", "cap:StorageBuffer8BitAccess", "ext:SPV_KHR_8bit_storage")
_VULKAN_F16 = ("cap:Float16", "cap:StorageBuffer16BitAccess", "ext:SPV_KHR_16bit_storage")
_VULKAN_16BIT = ("cap:Int16", "cap:StorageBuffer16BitAccess", "ext:SPV_KHR_16bit_storage")
_VULKAN_F64 = ("cap:Float64",)


@dataclass(frozen=True)
class ModuleFacts:
    """What the flag rule needs to know of a module.

    `interface_f64`/`interface_i64`: a public function takes or returns that element type (f64
    then stays f64); `computes_f16`: an op produces, or a public function takes or returns,
    f16; `computes_8bit`: the same for bool or 8-bit integers; `computes_16bit`: the same for
    16-bit integers or bf16; `bf16_constants`: a bf16 dense_resource constant;
    `long_f64_sums`: an f64 reduction over many elements (f64 then stays f64); `rng_state`: an
    `rng_bit_generator`, whose state IREE advances in i64 (i64 then stays i64)."""

    interface_f64: bool = False
    interface_i64: bool = False
    computes_f16: bool = False
    computes_8bit: bool = False
    computes_16bit: bool = False
    bf16_constants: bool = False
    long_f64_sums: bool = False
    rng_state: bool = False


def iree_compile_flags(
    target: Target,
    facts: ModuleFacts = ModuleFacts(),
    user_flags: Sequence[str] = (),
    cuda: str | None = None,
    host_l2_bytes: int | None = None,
) -> list[str]:
    """Every iree-compile flag but input and output: the target's, the workarounds the
    module needs, then the user's (last, so they win).  `host_l2_bytes`: one thread's share
    of this host's L2 cache (`shlo.support.host`), which sizes llvm-cpu's matmul tiles."""
    if isinstance(user_flags, str):  # would be read one character at a time
        raise CompileError(
            f"the extra flags must be a sequence of flags, got the string {user_flags!r}: "
            f"give ({user_flags!r},)"
        )
    return [
        *_COMMON,
        *([KEEP_F64] if keeps_f64(target, facts) else []),
        *_device_flags(target, cuda),
        *_host_tuning(target, user_flags, host_l2_bytes),
        *_workarounds(target, facts, user_flags),
        *user_flags,
    ]


def _host_tuning(target: Target, user_flags: Sequence[str], host_l2_bytes: int | None) -> list[str]:
    """The matmul tile size for this host's cache, unless the user compiles for another CPU
    or sizes the tiles themselves."""
    other_cpu = any(
        flag.startswith("--iree-llvmcpu-target-cpu=") and flag != "--iree-llvmcpu-target-cpu=host"
        for flag in user_flags
    )
    sized = any(flag.startswith(MATMUL_TILE_BYTES) for flag in user_flags)
    if target is not Target.LLVM_CPU or other_cpu or sized:
        return []
    if host_l2_bytes is None or host_l2_bytes < _MIN_HOST_L2:
        return []
    return [f"{MATMUL_TILE_BYTES}={min(host_l2_bytes, _MAX_MATMUL_TILE_BYTES)}"]


def keeps_f64(target: Target, facts: ModuleFacts) -> bool:
    """Whether f64 stays f64 inside the program: when its interface is f64, and when it sums
    many elements in f64 (torch-mlir's var and std), which f32 would get wrong."""
    return facts.interface_f64 or facts.long_f64_sums


def _device_flags(target: Target, cuda: str | None) -> list[str]:
    if target is Target.LLVM_CPU:
        return list(_LLVM_CPU)
    if target is Target.VMVX:
        return list(_VMVX)
    if target is Target.VULKAN:
        return ["--iree-hal-target-device=vulkan"]
    return ["--iree-hal-target-device=cuda", f"--iree-cuda-target={cuda_arch(cuda)}"]


def _workarounds(target: Target, facts: ModuleFacts, user_flags: Sequence[str]) -> list[str]:
    """Flags that steer this module around known IREE 3.13 failures."""
    flags = []
    if target is Target.VULKAN and not (facts.interface_i64 or facts.rng_state):
        flags.append(DEMOTE_I64)
    features = list(
        dict.fromkeys((
            *(_VULKAN_8BIT if facts.computes_8bit else ()),
            *(_VULKAN_F16 if facts.computes_f16 else ()),
            *(_VULKAN_16BIT if facts.computes_16bit else ()),
            *(_VULKAN_F64 if keeps_f64(target, facts) else ()),
        ))
    )  # fmt: skip
    vulkan_target_given = any(flag.startswith("--iree-vulkan-target") for flag in user_flags)
    if target is Target.VULKAN and features and not vulkan_target_given:
        features = sorted(features, key=lambda feature: feature.startswith("ext:"))
        flags.append(f"--iree-vulkan-target-features={','.join((*_VULKAN_BASE, *features))}")
    if facts.bf16_constants:
        flags.append(NO_CONSTANT_INLINING)
    return flags
