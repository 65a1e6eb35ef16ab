"""The iree-compile flag rule and the device table, on plain values: no bindings, no compiler."""

from __future__ import annotations

from pathlib import Path

import pytest

from shlo.backend.flags import (
    DEMOTE_I64,
    KEEP_F64,
    MATMUL_TILE_BYTES,
    NO_CONSTANT_INLINING,
    ModuleFacts,
    iree_compile_flags,
)
from shlo.backend.prepare import module_facts
from shlo.backend.targets import DEVICES, HOST_DEVICES, Target, target_for_device
from shlo.errors import CompileError
from shlo.ir.load import load
from shlo.support.host import l2_bytes_per_thread

VULKAN_FEATURES = "--iree-vulkan-target-features="


def test_llvm_cpu_is_host_tuned_and_takes_stablehlo() -> None:
    flags = iree_compile_flags(Target.LLVM_CPU)
    assert flags[0] == "--iree-input-type=stablehlo"
    assert "--iree-llvmcpu-target-cpu=host" in flags and "--iree-opt-data-tiling" in flags
    assert KEEP_F64 not in flags and DEMOTE_I64 not in flags


def _tile_bytes(flags: list[str]) -> list[str]:
    return [flag for flag in flags if flag.startswith(MATMUL_TILE_BYTES)]


def test_matmul_tiles_follow_the_host_l2_within_bounds() -> None:
    def tiles(l2: int | None, *user: str, target: Target = Target.LLVM_CPU) -> list[str]:
        return _tile_bytes(iree_compile_flags(target, user_flags=user, host_l2_bytes=l2))

    assert tiles(2 * 2**20) == [f"{MATMUL_TILE_BYTES}=2097152"]
    assert tiles(64 * 2**20) == [f"{MATMUL_TILE_BYTES}=4194304"]  # capped
    assert tiles(3 * 2**20) == [f"{MATMUL_TILE_BYTES}=3145728"]
    assert tiles(1280 * 2**10) == tiles(256 * 2**10) == tiles(None) == []  # IREE's own size
    assert tiles(2 * 2**20, target=Target.VULKAN) == []
    # compiling for another CPU, or sizing the tiles by hand, leaves them to the user
    assert tiles(2 * 2**20, "--iree-llvmcpu-target-cpu=znver4") == []
    assert tiles(2 * 2**20, "--iree-llvmcpu-target-cpu=host") == [f"{MATMUL_TILE_BYTES}=2097152"]
    assert tiles(2 * 2**20, f"{MATMUL_TILE_BYTES}=65536") == [f"{MATMUL_TILE_BYTES}=65536"]


def _cache(folder: Path, name: str, level: str, kind: str, size: str, shared: str) -> None:
    index = folder / name
    index.mkdir()
    for field, value in (("level", level), ("type", kind), ("size", size)):
        (index / field).write_text(f"{value}\n")
    (index / "shared_cpu_list").write_text(f"{shared}\n")


def test_l2_share_is_read_from_sysfs(tmp_path: Path) -> None:
    _cache(tmp_path, "index0", "1", "Data", "48K", "0-1")
    _cache(tmp_path, "index1", "1", "Instruction", "32K", "0-1")
    _cache(tmp_path, "index2", "2", "Unified", "2048K", "0,8")  # two SMT threads share it
    _cache(tmp_path, "index3", "3", "Unified", "105M", "0-15")
    assert l2_bytes_per_thread(tmp_path) == 2**20
    assert l2_bytes_per_thread(tmp_path / "missing") is None
    garbled = tmp_path / "garbled"
    garbled.mkdir()
    _cache(garbled, "index2", "2", "Unified", "lots", "0")
    assert l2_bytes_per_thread(garbled) is None


def test_f64_interface_keeps_f64_on_every_target() -> None:
    for target in Target:
        flags = iree_compile_flags(target, ModuleFacts(interface_f64=True), cuda="sm_80")
        assert flags[1] == KEEP_F64


def test_long_f64_sums_keep_f64_on_every_target() -> None:
    facts = ModuleFacts(long_f64_sums=True)
    for target in Target:
        assert KEEP_F64 in iree_compile_flags(target, facts, cuda="sm_80")
    assert "cap:Float64" in iree_compile_flags(Target.VULKAN, facts)[-1]


def test_vulkan_demotes_i64_unless_the_interface_has_it() -> None:
    assert DEMOTE_I64 in iree_compile_flags(Target.VULKAN)
    assert DEMOTE_I64 not in iree_compile_flags(Target.VULKAN, ModuleFacts(interface_i64=True))
    assert DEMOTE_I64 not in iree_compile_flags(Target.LLVM_CPU)


@pytest.mark.parametrize(
    ("facts", "features"),
    [
        (ModuleFacts(), None),
        (
            ModuleFacts(computes_f16=True),
            "spirv:v1.3,cap:Shader,cap:Float16,cap:StorageBuffer16BitAccess,"
            "ext:SPV_KHR_16bit_storage",
        ),
        (ModuleFacts(interface_f64=True), "spirv:v1.3,cap:Shader,cap:Float64"),
        (
            ModuleFacts(computes_8bit=True),
            "spirv:v1.3,cap:Shader,cap:Int8,cap:StorageBuffer8BitAccess,ext:SPV_KHR_8bit_storage",
        ),
        (
            ModuleFacts(computes_16bit=True),
            "spirv:v1.3,cap:Shader,cap:Int16,cap:StorageBuffer16BitAccess,"
            "ext:SPV_KHR_16bit_storage",
        ),
        (
            ModuleFacts(computes_f16=True, computes_16bit=True),
            "spirv:v1.3,cap:Shader,cap:Float16,cap:StorageBuffer16BitAccess,cap:Int16,"
            "ext:SPV_KHR_16bit_storage",
        ),
        (
            ModuleFacts(computes_f16=True, interface_f64=True),
            "spirv:v1.3,cap:Shader,cap:Float16,cap:StorageBuffer16BitAccess,cap:Float64,"
            "ext:SPV_KHR_16bit_storage",
        ),
    ],
)
def test_vulkan_asks_for_the_storage_widths_the_module_uses(
    facts: ModuleFacts, features: str | None
) -> None:
    asked = [f for f in iree_compile_flags(Target.VULKAN, facts) if f.startswith(VULKAN_FEATURES)]
    assert asked == ([VULKAN_FEATURES + features] if features else [])


@pytest.mark.parametrize("visibility", ["", "public "])
def test_a_public_functions_types_are_its_interface_however_spelled(visibility: str) -> None:
    """JAX writes `func.func public @main`: its f16, i64 and f64 arguments are the interface
    (without that, Vulkan read f16 inputs as garbage and demoted i64 ones to i32)."""
    text = f"""
    func.func {visibility}@main(%a: tensor<5xf16>, %b: tensor<2xi64>, %c: tensor<f64>)
        -> tensor<5xf32> {{
      %0 = stablehlo.convert %a : (tensor<5xf16>) -> tensor<5xf32>
      return %0 : tensor<5xf32>
    }}
    func.func private @unused(%a: tensor<ui8>) -> tensor<ui8> {{
      return %a : tensor<ui8>
    }}"""
    facts = module_facts(load(text))
    assert (facts.computes_f16, facts.interface_i64, facts.interface_f64) == (True, True, True)
    assert not facts.computes_8bit


def test_an_rng_state_keeps_i64_on_vulkan() -> None:
    text = """
    func.func @main(%key: tensor<4xui32>) -> (tensor<4xui32>, tensor<8xui32>) {
      %0:2 = stablehlo.rng_bit_generator %key, algorithm = PHILOX
        : (tensor<4xui32>) -> (tensor<4xui32>, tensor<8xui32>)
      return %0#0, %0#1 : tensor<4xui32>, tensor<8xui32>
    }"""
    facts = module_facts(load(text))
    assert facts.rng_state and not facts.interface_i64
    assert DEMOTE_I64 not in iree_compile_flags(Target.VULKAN, facts)
    assert DEMOTE_I64 in iree_compile_flags(Target.VULKAN, ModuleFacts())


def test_a_users_vulkan_target_wins_and_comes_last() -> None:
    mine = "--iree-vulkan-target=rdna3"
    flags = iree_compile_flags(Target.VULKAN, ModuleFacts(computes_f16=True), (mine,))
    assert not any(f.startswith(VULKAN_FEATURES) for f in flags) and flags[-1] == mine


def test_bf16_constants_are_not_inlined_on_any_target() -> None:
    for target in (Target.LLVM_CPU, Target.VULKAN):
        assert NO_CONSTANT_INLINING in iree_compile_flags(target, ModuleFacts(bf16_constants=True))
        assert NO_CONSTANT_INLINING not in iree_compile_flags(target)


def test_cuda_names_its_architecture() -> None:
    assert iree_compile_flags(Target.CUDA, cuda="l4")[-1] == "--iree-cuda-target=sm_89"
    with pytest.raises(CompileError, match="sm_89 or sm_80"):
        iree_compile_flags(Target.CUDA, cuda="h100")


def test_one_device_table() -> None:
    assert HOST_DEVICES == ("local-task", "local-sync")
    assert {device: t.value for device, t in DEVICES.items()} == {
        "local-task": "llvm-cpu",
        "local-sync": "llvm-cpu",
        "vulkan": "vulkan",
        "cuda": "cuda",
    }
    assert [t.default_device for t in Target] == ["local-task", "vulkan", "cuda", "local-task"]
    assert target_for_device("local-sync") is Target.LLVM_CPU
    with pytest.raises(CompileError, match="unknown device 'tpu'; expected one of local-task"):
        target_for_device("tpu")


def test_extra_flags_given_as_one_string_are_refused() -> None:
    """A string would be read one character at a time, each a positional argument."""
    with pytest.raises(CompileError, match=r"give \('--iree-opt-level=O2',\)"):
        iree_compile_flags(Target.LLVM_CPU, user_flags="--iree-opt-level=O2")
