"""Weights in an IREE parameter archive (.irpa) instead of the .vmfb."""

from __future__ import annotations

import gc
import importlib
from pathlib import Path

import iree.runtime as iree_runtime
import pytest
import torch

from shlo.api import compile_module, compile_torch, flatten
from shlo.errors import CompileError, RunError
from shlo.frontend.torch_import import import_model
from shlo.ir.module import IRModule
from shlo.ir.stablehlo import WORLD
from shlo.ir.worlds import ContextPolicy
from shlo.runtime.loaded import LoadedModule
from shlo.runtime.numerics import assert_close
from shlo.tools.demo_models import MLP


@pytest.mark.parametrize(("target", "device"), [("llvm-cpu", "local-task"), ("vulkan", "vulkan")])
def test_weights_that_never_enter_the_ir_give_the_same_numbers(tmp_path: Path, target, device):
    model, x = MLP().eval(), torch.randn(8, 64)
    archive = tmp_path / "weights.irpa"
    compiled = compile_torch(model, (x,), target=target, device=device, parameters=archive)
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    assert archive.stat().st_size >= weight_bytes
    assert len(compiled.compiled.vmfb) < weight_bytes / 4
    # The weights' data is nowhere in the IR; the compiled @main takes the input only.
    assert "dense_resource" not in compiled.imported.module.text()
    assert compiled.loaded.signature("main").count("tensor<") == 2  # one input, one result
    index = iree_runtime.ParameterIndex()
    index.load(str(archive))
    assert sorted(key for key, _ in index.items()) == sorted(model.state_dict())
    with torch.no_grad():
        assert_close(compiled(x), model(x))


@pytest.mark.slow  # model-sized: a module past the archive threshold
def test_large_models_get_an_archive_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    model, x = MLP().eval(), torch.randn(8, 64)
    weight_bytes = sum(t.nbytes for t in model.state_dict().values())
    monkeypatch.setattr(importlib.import_module("shlo.torch.compile_torch"),
                        "AUTO_ARCHIVE_BYTES", weight_bytes)  # fmt: skip
    compiled = compile_torch(model, (x,), device="local-sync")
    archive = compiled.parameters
    assert archive is not None and archive.stat().st_size >= weight_bytes
    assert len(compiled.compiled.vmfb) < weight_bytes / 4
    assert f"weights in {archive}" in repr(compiled)
    elsewhere = compiled.on_device("local-task")  # the same archive, kept while either lives
    with torch.no_grad():
        assert_close(compiled(x), model(x))
        del compiled
        gc.collect()
        assert_close(elsewhere(x), model(x))
    del elsewhere
    gc.collect()
    assert not archive.parent.exists()
    # smaller models, the cache and other targets keep the weights in the .vmfb
    monkeypatch.setattr(importlib.import_module("shlo.torch.compile_torch"),
                        "AUTO_ARCHIVE_BYTES", weight_bytes + 1)  # fmt: skip
    assert compile_torch(model, (x,), device="local-sync").parameters is None
    monkeypatch.setattr(importlib.import_module("shlo.torch.compile_torch"),
                        "AUTO_ARCHIVE_BYTES", 0)  # fmt: skip
    assert compile_torch(model, (x,), device="local-sync", use_cache=True).parameters is None
    assert compile_torch(model, (x,), target="vmvx").parameters is None
    training = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.BatchNorm1d(64)).train()
    assert compile_torch(training, (x,), device="local-sync").parameters is None
    counting = _Counting().eval()  # updates a buffer in eval mode: its state stays inline
    compiled = compile_torch(counting, (x,), device="local-sync")
    assert compiled.parameters is None
    compiled(x)
    assert counting.calls.item() == 1


class _Counting(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(64, 64)
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return self.linear(x)


def test_constants_of_a_module_move_to_an_archive_while_compiling(tmp_path: Path) -> None:
    model, x = MLP().eval(), torch.randn(8, 64)
    module = flatten(import_model(model, (x,)).module)  # weights inline, as in a .mlir file
    compiled = compile_module(module, parameters=tmp_path / "w.irpa")
    assert "iree-io-export-parameters" in compiled.command_line()
    assert len(compiled.vmfb) < (tmp_path / "w.irpa").stat().st_size / 4
    loaded = LoadedModule(compiled.vmfb, "local-task", tmp_path / "w.irpa")
    with torch.no_grad():
        assert_close(torch.from_numpy(loaded("main", x.numpy())[0]), model(x))


def test_a_module_loaded_without_its_archive_says_what_it_needs(tmp_path: Path) -> None:
    model, x = MLP().eval(), torch.randn(8, 64)
    compiled = compile_torch(model, (x,), parameters=tmp_path / "w.irpa")
    with pytest.raises(RunError, match="reads its weights from a parameter archive"):
        LoadedModule(compiled.compiled.vmfb, "local-task")
    with pytest.raises(RunError, match="cannot read the parameter archive"):
        LoadedModule(compiled.compiled.vmfb, "local-task", tmp_path / "missing.irpa")
    with pytest.raises(RunError, match="device 'vulkan' cannot run this module .*llvm-cpu"):
        LoadedModule(compiled.compiled.vmfb, "vulkan", tmp_path / "w.irpa")


_UNCOMPILABLE = """
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.cholesky %x, lower = true : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
"""


def test_a_failed_compile_leaves_no_archive_behind(tmp_path: Path) -> None:
    archive = tmp_path / "weights.irpa"
    archive.write_bytes(b"the previous archive")
    context = WORLD.make_context(ContextPolicy())
    module = IRModule(WORLD, context, WORLD.ir.Module.parse(_UNCOMPILABLE, context).operation)
    with pytest.raises(CompileError, match="stablehlo.cholesky"):
        compile_module(module, parameters=archive)
    assert archive.read_bytes() == b"the previous archive"
    assert [p.name for p in tmp_path.iterdir()] == ["weights.irpa"]


def test_cli_compiles_to_an_archive_and_runs_with_it(tmp_path: Path, capsys) -> None:
    import numpy as np

    from shlo.tools.cli import main

    model, x = MLP().eval(), torch.randn(8, 64)
    (tmp_path / "m.mlir").write_text(flatten(import_model(model, (x,)).module).text())
    np.save(tmp_path / "x.npy", x.numpy())
    with torch.no_grad():
        np.save(tmp_path / "want.npy", model(x).numpy())
    vmfb, archive = str(tmp_path / "m.vmfb"), str(tmp_path / "w.irpa")
    assert main(["compile", str(tmp_path / "m.mlir"), "-o", vmfb, "--parameters", archive]) == 0
    run = ["run", vmfb, "--input", f"@{tmp_path / 'x.npy'}"]
    assert (
        main([*run, "--parameters", archive, "--expected-output", f"@{tmp_path / 'want.npy'}"]) == 0
    )
    capsys.readouterr()
    assert main(run) == 1
    assert "reads its weights from a parameter archive" in capsys.readouterr().err
    missing = str(tmp_path / "no" / "w.irpa")
    assert main(["compile", str(tmp_path / "m.mlir"), "-o", vmfb, "--parameters", missing]) == 1
    message = f"cannot write {missing}: the folder {tmp_path / 'no'} does not exist"
    assert message in capsys.readouterr().err


def test_llvm_cpu_archives_come_with_their_weights_packed(tmp_path: Path) -> None:
    # Data tiling packs weights; IREE's encoder packs them while compiling, into an archive
    # beside the weights, so loading maps them as they are instead of packing a copy.
    model, x = MLP().eval(), torch.randn(8, 64)
    archive, packed = tmp_path / "w.irpa", tmp_path / "w.encoded.irpa"
    compiled = compile_torch(model, (x,), parameters=archive)
    command = compiled.compiled.command_line()
    assert "--iree-parameter-encoder-output-file=encoder.mlir" in command
    # `command` stays the compile that wrote the module, not the encoder run after it.
    assert compiled.compiled.command[0] == "iree-compile"
    assert compiled.compiled.command[-2:] == ("-o", "module.vmfb")
    # The compile stops where IREE writes the encoder module and finishes beside its compile.
    staged = [c for c in compiled.compiled.commands if "--compile-to=stream" in c]
    assert len(staged) == 1 and "--iree-parameter-encoder-output-file=encoder.mlir" in staged[0]
    assert compiled.compiled.command[1:2] == ("module.stream.mlirbc",)
    assert "--compile-from=stream" in compiled.compiled.command
    assert command.endswith(
        "python -m shlo.runtime.encode_parameters --module=encoder.vmfb "
        "--parameters=model=w.irpa --output=encoded=w.encoded.irpa"
    )
    index = iree_runtime.ParameterIndex()
    index.load(str(packed))
    # The weights, and the record of the archive they were packed from (issue 34).
    assert [key for key, _ in index.items()] == ["parameter0", "__shlo_made_from"]
    packed.rename(tmp_path / "elsewhere.irpa")
    with pytest.raises(RunError, match="w.encoded.irpa, which its compile wrote beside .*w.irpa"):
        LoadedModule(compiled.compiled.vmfb, "local-task", archive)


def test_a_module_without_large_weights_gets_an_empty_archive(tmp_path: Path) -> None:
    model, x = torch.nn.Linear(4, 4).eval(), torch.randn(2, 4)
    module = flatten(import_model(model, (x,)).module)
    compiled = compile_module(module, parameters=tmp_path / "w.irpa")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.irpa"]  # nothing to pack
    loaded = LoadedModule(compiled.vmfb, "local-task", tmp_path / "w.irpa")
    with torch.no_grad():
        assert_close(torch.from_numpy(loaded("main", x.numpy())[0]), model(x))


def test_encoder_runner_names_what_is_wrong(tmp_path: Path, capsys) -> None:
    from shlo.runtime.encode_parameters import main

    model, x = MLP().eval(), torch.randn(8, 64)
    vmfb = tmp_path / "m.vmfb"
    vmfb.write_bytes(compile_torch(model, (x,)).compiled.vmfb)
    assert main([f"--module={vmfb}", f"--output=encoded={tmp_path / 'out.irpa'}"]) == 1
    assert "is not an encoder module" in capsys.readouterr().err
    assert not (tmp_path / "out.irpa").exists()
