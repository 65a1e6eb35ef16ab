"""The model zoo end to end: import, flatten, compile, run on local-task and Vulkan, vs eager."""

from __future__ import annotations

import functools
import re

import pytest
import torch

from shlo.api import CompiledModel, ShloError, compile_module, compile_torch, flatten
from shlo.backend.compile import Compiled
from shlo.backend.prepare import prepare
from shlo.backend.targets import Target, target_for_device
from shlo.frontend.torch_import import Imported, import_model
from shlo.runtime.loaded import LoadedModule
from shlo.runtime.numerics import assert_close
from zoo import ZOO

DEVICES = ("local-task", "vulkan")  # the CPU's two targets; CUDA runs in tests/gpu
EXAMPLES = {example.name: example for example in ZOO}


@functools.cache
def imported(name: str) -> tuple[Imported, tuple, object]:
    model, inputs = EXAMPLES[name].instantiate()
    with torch.no_grad():
        expected = model(*inputs)
    result = import_model(model, inputs)
    result.module = flatten(result.module)
    return result, inputs, expected


@functools.cache
def artifact(name: str, target: str) -> Compiled:
    return compile_module(imported(name)[0].module, target)


def compiled(name: str, device: str) -> CompiledModel:
    """Loaded anew for each test: a loaded module keeps its device, and an idle Vulkan device
    on lavapipe keeps a CPU core busy."""
    built = artifact(name, target_for_device(device))
    return CompiledModel(imported(name)[0], built, LoadedModule(built.vmfb, device))


def test_zoo_has_the_coverage_the_issue_asks_for() -> None:
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", EXAMPLES)
def test_model_matches_eager(name: str, device: str) -> None:
    _, inputs, expected = imported(name)
    actual = compiled(name, device)(*inputs)
    assert_close(actual, expected)


def test_a_resnet_block_runs_channels_last_without_barriers() -> None:
    """Its convolutions become matmuls over channels-last rows with nothing in between to fence
    off: the only transpose to channels-first left is the result's."""
    module, _, _ = imported("bottleneck_wide")
    prepared = str(prepare(module.module, Target.LLVM_CPU)[0])
    assert "stablehlo.convolution" not in prepared
    assert "optimization_barrier" not in prepared
    assert len(re.findall(r"stablehlo\.transpose .*dims = \[0, 3, 1, 2\]", prepared)) == 1


def test_attention_over_odd_keys_runs_on_padded_keys() -> None:
    """37 keys become 48 in both attentions' scores (one product: sdpa, as eager's flash
    kernel computes it, scales `q @ k.T` after the product as the written-out attention does,
    and the two share it); the results (checked against eager by the zoo's own test) and the
    probabilities returned keep 37."""
    module, _, _ = imported("odd_attention")
    prepared = str(prepare(module.module, Target.LLVM_CPU)[0])
    matmuls = re.findall(r"stablehlo\.dot_general .*: \((.*)\) -> (.*)", prepared)
    scores = ("tensor<2x37x16xf32>, tensor<2x16x48xf32>", "tensor<2x37x48xf32>")
    values = ("tensor<2x37x48xf32>, tensor<2x48x16xf32>", "tensor<2x37x16xf32>")
    assert sorted(matmuls) == [scores, values, values]
    assert prepared.rstrip().endswith("tensor<1x2x37x37xf32>\n  }\n}")


def test_outputs_keep_the_models_structure() -> None:
    _, inputs, expected = imported("dict_out")
    actual = compiled("dict_out", "local-task")(*inputs)
    assert set(actual) == {"logits", "probs", "nested"}
    assert isinstance(actual["nested"], tuple) and actual["logits"].dtype == torch.float32


def test_float64_is_kept_on_cpu() -> None:
    _, inputs, _ = imported("float64")
    (output,) = [compiled("float64", "local-task")(*inputs)]
    assert output.dtype == torch.float64
    assert (
        "--iree-input-demote-f64-to-f32=false" in compiled("float64", "local-task").compiled.command
    )


def test_float64_on_vulkan_stays_f64_and_says_which_math_runs_in_f32() -> None:
    module, inputs, expected = imported("float64")
    with pytest.warns(UserWarning, match="vulkan target has no f64 exponential: computed in f32"):
        artifact = compile_module(module.module, "vulkan")
    assert any("cap:Float64" in flag for flag in artifact.command)
    actual = CompiledModel(module, artifact, LoadedModule(artifact.vmfb, "vulkan"))(*inputs)
    assert actual.dtype == torch.float64
    assert_close(actual, expected)


def test_bf16_weights_compile_without_constant_inlining() -> None:
    assert (
        "--iree-flow-inline-constants-max-byte-length=0"
        in compiled("bfloat16", "local-task").compiled.command
    )
    assert (
        "--iree-flow-inline-constants-max-byte-length=0"
        not in compiled("mlp", "local-task").compiled.command
    )


def test_f16_on_vulkan_asks_for_16_bit_types() -> None:
    # The default target's f16 emulation computes wrong numbers (the zoo's f16 cases show it).
    assert any(
        flag.startswith("--iree-vulkan-target-features=") and "cap:Float16" in flag
        for flag in compiled("float16", "vulkan").compiled.command
    )
    assert not any(
        flag.startswith("--iree-vulkan-target-features")
        for flag in compiled("mlp", "vulkan").compiled.command
    )


def test_compile_records_a_rerunnable_command() -> None:
    command = compiled("mlp", "local-task").compiled.command_line()
    assert command.startswith("iree-compile module.mlirbc --iree-input-type=stablehlo")
    assert "--iree-llvmcpu-target-cpu=host" in command and command.endswith("-o module.vmfb")


def test_dynamic_batch_dimension_runs_at_several_sizes() -> None:
    # torch-mlir's dynamic broadcasts do not say which dims keep their size, which IREE 3.13
    # needs; shlo-annotate-broadcasts proves and marks them (compile_module does it).
    model, (x,) = EXAMPLES["mlp"].instantiate()
    batch = torch.export.Dim("batch", min=1, max=64)
    module = import_model(model, (x,), dynamic_shapes=({0: batch},))
    module.module = flatten(module.module)
    artifact = compile_module(module.module, "llvm-cpu")
    loaded = LoadedModule(artifact.vmfb, "local-task")
    assert "tensor<?x64xf32>" in loaded.signature("main")
    run = CompiledModel(module, artifact, loaded)
    for size in (1, 3, 17):
        inputs = torch.randn(size, 64)
        with torch.no_grad():
            assert_close(run(inputs), model(inputs))


def test_structured_inputs_still_go_through_pytree() -> None:
    _, inputs, expected = imported("multi_io")
    runner = compiled("multi_io", "local-task")
    assert_close(runner(*inputs), expected)
    with pytest.raises(ShloError, match="expected 2 arguments, got 1"):
        runner(inputs[0], b=inputs[1])


class _F64Trigonometry(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.atan2(torch.sin(x), torch.cos(x)) + torch.tanh(x) * torch.exp(x)


def test_float64_trigonometry_on_llvm_cpu_runs_in_f32_and_says_so() -> None:
    x = torch.linspace(-1.0, 1.0, 16, dtype=torch.float64)
    with pytest.warns(UserWarning, match="llvm-cpu target has no f64 atan2, cosine, sine, tanh"):
        compiled = compile_torch(_F64Trigonometry(), (x,))
    actual = compiled(x)
    assert actual.dtype == torch.float64
    torch.testing.assert_close(actual, _F64Trigonometry()(x), rtol=1e-6, atol=1e-6)
