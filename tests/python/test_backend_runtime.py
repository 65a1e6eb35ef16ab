"""Targets, CUDA names, bad modules and bad inputs: the errors users see."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shlo.api import compile_module, flatten
from shlo.backend import cache
from shlo.backend.targets import Target, cuda_arch
from shlo.errors import CompileError, FrontendError, RunError
from shlo.frontend.torch_import import import_model
from shlo.ir.load import load
from shlo.runtime.devices import lost_device
from shlo.runtime.loaded import LoadedModule, available_devices, iree_message
from shlo.tools.demo_models import MLP
from zoo import EXAMPLES_FOR_CUDA


@pytest.fixture(scope="module")
def mlp_module():
    import torch

    imported = import_model(MLP().eval(), (torch.randn(8, 64),))
    return flatten(imported.module)


@pytest.fixture(scope="module")
def mlp_vmfb(mlp_module) -> bytes:
    return compile_module(mlp_module, "llvm-cpu").vmfb


@pytest.mark.parametrize(
    ("typed", "arch"), [(None, "sm_80"), ("a100", "sm_80"), ("sm_89", "sm_89"), ("L4", "sm_89")]
)
def test_cuda_names(typed: str | None, arch: str) -> None:
    assert cuda_arch(typed) == arch


@pytest.mark.parametrize("typed", ["h100", "sm_90", "hopper"])
def test_cuda_names_that_crash_iree_get_an_alternative(typed: str) -> None:
    with pytest.raises(CompileError, match="use --cuda-arch sm_89 or sm_80"):
        cuda_arch(typed)


def test_unknown_target() -> None:
    with pytest.raises(CompileError, match="unknown target 'tpu'; expected one of llvm-cpu"):
        Target.get("tpu")


@pytest.mark.parametrize("name", EXAMPLES_FOR_CUDA)
def test_cuda_compiles(name: str) -> None:
    import torch

    from zoo import ZOO

    example = next(e for e in ZOO if e.name == name)
    model, inputs = example.instantiate()
    module = flatten(import_model(model, inputs).module)
    compiled = compile_module(module, "cuda")
    assert compiled.vmfb.startswith(b"PK") and "--iree-cuda-target=sm_80" in compiled.command
    del torch


def test_iree_compile_errors_name_the_op(mlp_module) -> None:
    with pytest.raises(CompileError, match="iree-compile failed"):
        compile_module(mlp_module, "llvm-cpu", extra_flags=("--iree-hal-target-device=nope",))


def test_wrong_inputs_name_the_argument(mlp_vmfb: bytes) -> None:
    loaded = LoadedModule(mlp_vmfb)
    with pytest.raises(RunError, match=r"main input 0: expected shape 8x64, got \(8, 63\)"):
        loaded("main", np.zeros((8, 63), np.float32))
    with pytest.raises(RunError, match="main input 0: expected dtype float32 .f32., got int32"):
        loaded("main", np.zeros((8, 64), np.int32))
    with pytest.raises(RunError, match="main: expected 1 inputs, got 2"):
        loaded("main", np.zeros((8, 64), np.float32), np.zeros(1))
    with pytest.raises(RunError, match="no function 'forward'; functions: main"):
        loaded("forward")


@pytest.mark.parametrize("cut", [0.5, 0.1])
def test_truncated_vmfb_is_rejected(mlp_vmfb: bytes, cut: float) -> None:
    with pytest.raises(RunError, match="not a valid IREE module"):
        LoadedModule(mlp_vmfb[: int(len(mlp_vmfb) * cut)])


def test_missing_device_lists_the_available_ones(mlp_vmfb: bytes) -> None:
    missing = "cuda" if "cuda" not in available_devices() else "hip"
    with pytest.raises(RunError, match=f"device '{missing}' is not available here; available:"):
        LoadedModule(mlp_vmfb, missing)


def test_untraceable_model_gets_a_short_message() -> None:
    import torch

    class DataDependent(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # control flow on data: torch.export cannot trace it
                return x
            return -x

    with pytest.raises(FrontendError, match="torch.export failed") as info:
        import_model(DataDependent(), (torch.randn(3),))
    assert len(str(info.value).splitlines()) <= 7 and "Traceback" not in str(info.value)


def test_unlowerable_op_is_named_with_its_source_line() -> None:
    import torch

    class Spectrum(torch.nn.Module):
        def forward(self, x):
            return torch.fft.fft(x)  # of a complex tensor: no StableHLO lowering here

    with pytest.raises(FrontendError, match="torch-mlir cannot lower these ops") as info:
        import_model(Spectrum(), (torch.randn(8, dtype=torch.complex64),))
    assert "torch.aten.fft_fft (at " in str(info.value)
    assert "test_backend_runtime.py:" in str(info.value)


def test_a_result_shape_that_depends_on_values_names_the_op() -> None:
    import torch

    class Histogram(torch.nn.Module):
        def forward(self, x):
            return torch.bincount(x) + 1

    with pytest.raises(FrontendError, match="depends on the input values") as info:
        import_model(Histogram(), (torch.randint(0, 9, (20,)),))
    assert "aten.bincount.default (at " in str(info.value)
    assert "test_backend_runtime.py:" in str(info.value)
    assert "torch.constant" not in str(info.value)


def test_op_iree_cannot_compile_is_named() -> None:
    from shlo.ir.module import IRModule
    from shlo.ir.stablehlo import WORLD
    from shlo.ir.worlds import ContextPolicy

    text = """func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
      %0 = stablehlo.cholesky %x, lower = true : tensor<4x4xf32>
      return %0 : tensor<4x4xf32>
    }"""
    context = WORLD.make_context(ContextPolicy())
    module = IRModule(WORLD, context, WORLD.ir.Module.parse(text, context).operation)
    with pytest.raises(CompileError, match="failed to legalize operation 'stablehlo.cholesky'"):
        compile_module(module, "llvm-cpu")


def test_every_unknown_op_is_named_with_its_source_line() -> None:
    import torch

    class Bessel(torch.nn.Module):
        def forward(self, x):
            return torch.special.bessel_j0(x) + torch.special.bessel_j1(x)

    with pytest.raises(FrontendError) as info:
        import_model(Bessel(), (torch.randn(8),))
    lines = str(info.value).splitlines()
    assert lines[0] == "torch-mlir cannot lower these ops to StableHLO:"
    assert [line.split(" (at ")[0].strip() for line in lines[1:]] == [
        "torch.aten.special_bessel_j0",
        "torch.aten.special_bessel_j1",
    ]
    assert all("test_backend_runtime.py:" in line for line in lines[1:])


def test_disk_cache_keeps_the_most_recently_used_within_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHLO_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SHLO_CACHE_MAX_MB", str(3.5 / 1024))  # room for three 1 KiB entries
    for index, name in enumerate(["a", "b", "c"]):
        cache.store(name, bytes(1024))
        os.utime(tmp_path / f"{name}.vmfb", (index, index))  # stored in this order
    assert cache.lookup("a") == bytes(1024)  # a hit makes "a" the most recently used
    cache.store("d", bytes(1024))
    assert sorted(p.stem for p in tmp_path.glob("*.vmfb")) == ["a", "c", "d"]


def test_rng_bit_generator_gives_the_same_state_and_bits_on_vulkan() -> None:
    """Every algorithm's new state and bits on Vulkan as on llvm-cpu (the state is advanced in
    i64, which Vulkan's i64 demotion got wrong)."""
    key = np.array([1, 2, 3, 4], np.uint32)
    for algorithm in ("DEFAULT", "THREE_FRY", "PHILOX"):
        module = load(
            f"""func.func public @main(%key: tensor<4xui32>)
    -> (tensor<4xui32>, tensor<5x7xui32>) {{
  %0:2 = stablehlo.rng_bit_generator %key, algorithm = {algorithm}
    : (tensor<4xui32>) -> (tensor<4xui32>, tensor<5x7xui32>)
  return %0#0, %0#1 : tensor<4xui32>, tensor<5x7xui32>
}}"""
        )
        outputs = [
            LoadedModule(compile_module(module, target).vmfb, device)("main", key)
            for target, device in (("llvm-cpu", "local-task"), ("vulkan", "vulkan"))
        ]
        for cpu, vulkan in zip(*outputs, strict=True):
            np.testing.assert_array_equal(vulkan, cpu, err_msg=algorithm)


def test_a_lost_device_is_replaced_for_the_next_load(mlp_vmfb: bytes) -> None:
    """A driver's report of a lost device drops that device: modules loaded later get a new one,
    while any other failure keeps it."""
    first = LoadedModule(mlp_vmfb)
    assert lost_device("local-task", first.device, "INVALID_ARGUMENT; a wrong input") is None
    assert LoadedModule(mlp_vmfb).device is first.device
    message = lost_device(
        "local-task",
        first.device,
        "queue.c:2867: DATA_LOSS; [vkSignalSemaphore] VK_ERROR_DEVICE_LOST; while invoking",
    )
    assert message is not None
    assert message == (
        "the driver lost device 'local-task' (queue.c:2867: DATA_LOSS; [vkSignalSemaphore] "
        "VK_ERROR_DEVICE_LOST; while invoking)"
    )
    again = LoadedModule(mlp_vmfb)
    assert again.device is not first.device
    assert LoadedModule(mlp_vmfb).device is again.device
    x = np.ones((8, 64), np.float32)
    np.testing.assert_array_equal(again("main", x)[0], first("main", x)[0])


_LOSES_ITS_DEVICE = """
import time, warnings
import numpy as np
from shlo.api import compile_module
from shlo.errors import RunError
from shlo.ir.load import load
from shlo.runtime.loaded import LoadedModule

module = load(
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {"
    "  %0 = stablehlo.add %x, %x : tensor<4xf32>  return %0 : tensor<4xf32> }"
)
compiled = compile_module(module, "vulkan")
assert compiled.vmfb.stateless
loaded = LoadedModule(compiled.vmfb, "vulkan")
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    for _ in range(3):
        time.sleep(2.5)  # idle past MESA_VK_MAX_TIMEOUT: the driver declares the device lost
        try:
            print(loaded("main", np.ones(4, np.float32))[0].tolist())
        except RunError as error:  # the new device was lost too, before the call was done
            print(error)
print(*(f"warning: {warning.message}" for warning in said), sep="\\n")
"""


@pytest.mark.skipif("vulkan" not in available_devices(), reason="no Vulkan device")
def test_a_call_that_loses_its_device_runs_again_on_a_new_one() -> None:
    """A real loss: Mesa declares its device lost when a wait outlasts MESA_VK_MAX_TIMEOUT, and
    IREE's completion thread waits on an idle device for as long as it is idle (here 2 s).
    Each call after a longer pause finds its device lost and, the module being stateless, runs
    again on a new device, with a warning saying so; if that device too were lost before the
    call is done, the error would name the loss."""
    done = subprocess.run(
        [sys.executable, "-c", _LOSES_ITS_DEVICE],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MESA_VK_MAX_TIMEOUT": "2000"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    lost = r"main: the driver lost device 'vulkan' \(.*VK_ERROR_DEVICE_LOST.*\): "
    warned = [line for line in lines if line.startswith("warning: ")]
    assert warned and all(re.fullmatch(f"warning: {lost}ran it again on a new device", line)
                          for line in warned), done.stdout  # fmt: skip
    calls = lines[: -len(warned)]
    assert len(calls) == 3 and "[2.0, 2.0, 2.0, 2.0]" in calls, done.stdout
    for said in calls:
        assert said == "[2.0, 2.0, 2.0, 2.0]" or re.fullmatch(
            f"{lost}what was loaded on it cannot run again; load the module again, which gets a "
            "new device",
            said,
        ), done.stdout


_IDLE_AFTER_VULKAN = """
import gc, resource, time
import numpy as np
from shlo.api import compile_module
from shlo.ir.load import load
from shlo.runtime.loaded import LoadedModule

def cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime

module = load(
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {"
    "  %0 = stablehlo.add %x, %x : tensor<4xf32>  return %0 : tensor<4xf32> }"
)
loaded = LoadedModule(compile_module(module, "vulkan").vmfb, "vulkan")
print(loaded("main", np.ones(4, np.float32))[0].tolist())
start = cpu_seconds()
time.sleep(1)
print(f"held {cpu_seconds() - start:.2f}")
del loaded
gc.collect()
start = cpu_seconds()
time.sleep(1)
print(f"dropped {cpu_seconds() - start:.2f}")
"""


@pytest.mark.skipif("vulkan" not in available_devices(), reason="no Vulkan device")
def test_no_device_is_kept_once_no_module_uses_it() -> None:
    """An idle lavapipe device keeps a core busy (IREE's completion threads poll Mesa's
    emulated timelines): once the last module loaded on it is gone, so is the device, and an
    idle process uses no CPU."""
    done = subprocess.run([sys.executable, "-c", _IDLE_AFTER_VULKAN], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    numbers, held, dropped = done.stdout.strip().splitlines()
    assert numbers == "[2.0, 2.0, 2.0, 2.0]"
    assert held.startswith("held ") and float(dropped.removeprefix("dropped ")) < 0.1, done.stdout


def test_an_iree_failure_is_one_line_without_the_vm_backtrace() -> None:
    """A damaged module's failing import call (a shape assertion whose expected shape was
    damaged) came with the VM's backtrace on a second line, which the CLI printed too."""
    said = RuntimeError(
        "Error invoking function: c/runtime/src/iree/modules/hal/utils/buffer_diagnostics.c:225: "
        "INVALID_ARGUMENT; input0 shape dimension 0 mismatch; while invoking native function "
        "hal.buffer_view.assert; while calling import; \n[ 0] bytecode module@1:142 -\n"
    )
    assert iree_message(said) == (
        "Error invoking function: c/runtime/src/iree/modules/hal/utils/buffer_diagnostics.c:225: "
        "INVALID_ARGUMENT; input0 shape dimension 0 mismatch; while invoking native function "
        "hal.buffer_view.assert; while calling import;"
    )
    assert iree_message(IndexError()) == "IndexError"
