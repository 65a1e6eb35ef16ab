"""TensorFlow SavedModels from bundles and models: loaded and run by TensorFlow in a process of
its own, checked against PyTorch eager; bad requests refused before TensorFlow starts."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.export import Dim

from conftest import needs_tensorflow
from shlo.errors import SavedModelError, ShloError
from shlo.runtime.numerics import assert_close
from shlo.runtime.tensors import to_numpy
from shlo.serving.saved_model import save_saved_model, save_torch_module_as_tf_saved_model
from shlo.tools.cli import main
from shlo.torch.bundle import save_bundle

TORCH_XLA_BUNDLE = Path(__file__).parent / "fixtures" / "torch_xla_bundle"

# A server's view: TensorFlow alone (never beside torch-mlir), the serving signature by name.
SERVE = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    loaded = tf.saved_model.load(sys.argv[1])
    serve = loaded.signatures["serving_default"]
    with np.load(sys.argv[2]) as stored:
        inputs = {f"args_{i}": tf.constant(stored[f"arr_{i}"]) for i in range(len(stored.files))}
    results = serve(**inputs)
    np.savez(sys.argv[3], *[results[f"output_{i}"].numpy() for i in range(len(results))])
    print(len(loaded.weights))
""")


class Heads(torch.nn.Module):
    """A convolution, batch norm (eval) and two results: weights as variables, tuple out."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3)
        self.norm = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8 * 14 * 14, 256)

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = torch.relu(self.norm(self.conv(x))).flatten(1)
        return self.head(features) * scale, features.amax(dim=1)


def _serve(saved: Path, inputs: list[np.ndarray], work: Path) -> tuple[list[np.ndarray], str]:
    np.savez(work / "in.npz", *inputs)
    done = subprocess.run(
        [sys.executable, "-c", SERVE, str(saved), str(work / "in.npz"), str(work / "out.npz")],
        capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(work / "out.npz") as stored:
        return [stored[f"arr_{i}"] for i in range(len(stored.files))], done.stdout


@needs_tensorflow
def test_a_model_served_by_tensorflow_matches_eager(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = Heads().eval()
    model.norm.running_mean.uniform_(-0.5, 0.5)
    x, scale = torch.randn(2, 3, 16, 16), torch.full((2, 256), 0.5)
    saved = save_torch_module_as_tf_saved_model(model, (x, scale), tmp_path / "saved")
    assert saved.stablehlo_version == "1.13.7"  # tensorflow-cpu 2.21 reads up to this version
    results, said = _serve(tmp_path / "saved", [x.numpy(), scale.numpy()], tmp_path)
    with torch.no_grad():
        assert_close(tuple(torch.from_numpy(r) for r in results), model(x, scale))
    # Every parameter and buffer is a variable, not a constant in the graph.
    assert said.split()[0] == str(len(model.state_dict()))
    weight_bytes = sum(t.numel() * t.element_size() for t in model.state_dict().values())
    assert (tmp_path / "saved" / "saved_model.pb").stat().st_size < weight_bytes / 10


@needs_tensorflow
def test_a_torch_xla_bundle_with_tuple_results_and_constants(tmp_path: Path) -> None:
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    weight, bias = (np.load(TORCH_XLA_BUNDLE / "data" / n) for n in ("fc.weight", "fc.bias"))
    want = x @ weight.T + bias + np.load(TORCH_XLA_BUNDLE / "constants" / "0")
    saved, results = save_saved_model(TORCH_XLA_BUNDLE, tmp_path / "saved", inputs=[x])
    np.testing.assert_allclose(results[0], want, rtol=1e-6)
    np.testing.assert_allclose(_serve(saved.path, [x], tmp_path)[0][0], want, rtol=1e-6)


@needs_tensorflow
def test_bfloat16_weights_and_an_older_saved_model_replaced(tmp_path: Path) -> None:
    model = torch.nn.Linear(16, 4).to(torch.bfloat16).eval()
    x = torch.randn(3, 16, dtype=torch.bfloat16)
    save_bundle(model, (x,), tmp_path / "bundle")
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "saved_model.pb").write_bytes(b"an older export")
    inputs = [x.view(torch.int16).numpy().view(np.dtype("V2"))]  # as np.save writes bfloat16
    with pytest.raises(SavedModelError, match="input 0 \\(args_0\\) is \\|V2"):
        save_saved_model(tmp_path / "bundle", tmp_path / "saved", inputs=inputs)
    saved, results = save_saved_model(tmp_path / "bundle", tmp_path / "saved", inputs=[to_numpy(x)])
    assert saved.inputs[0].dtype == saved.outputs[0].dtype == "bfloat16"
    with torch.no_grad():
        assert_close(torch.from_numpy(results[0].astype(np.float32)), model(x).float())
    assert (tmp_path / "saved" / "saved_model.pb").stat().st_size > 100


@needs_tensorflow
def test_the_cli_checks_a_bundle_against_expected_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle, saved = str(tmp_path / "bundle"), str(tmp_path / "saved")
    assert (
        main(["import", "shlo.tools.demo_models:MLP", "--input", "2x64xf32", "--bundle", bundle])
        == 0
    )
    assert main(["run", bundle, "--input=2x64xf32=0.25", f"--output=@{tmp_path / 'y.npy'}"]) == 0
    args = ["saved-model", bundle, "-o", saved, "--input=2x64xf32=0.25"]
    assert main([*args, f"--expected-output=@{tmp_path / 'y.npy'}"]) == 0
    printed = capsys.readouterr().out
    assert "result[0]: hal.buffer_view\n2x10xf32=[" in printed
    assert "StableHLO 1.13.7 in XlaCallModule" in printed
    assert main([*args, "--expected-output=2x10xf32=7"]) == 1
    assert "result[0] differs from the expected output" in capsys.readouterr().err


def _bundle(tmp_path: Path, **options: object) -> Path:
    save_bundle(torch.nn.Linear(4, 3).eval(), (torch.randn(2, 4),), tmp_path / "b", **options)
    return tmp_path / "b"


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"platform": "GPU"}, "platform 'GPU' is not one of CPU, CUDA, ROCM, TPU"),
        ({"inputs": [np.zeros((2, 2), np.float32)]}, r"input 0 \(args_0\) is float32\[2, 2\] "
                                                     r"where the function takes float32\[2, 4\]"),
        ({"inputs": []}, "the bundle takes 1 inputs, got 0"),
    ],
)  # fmt: skip
def test_bad_requests_are_refused_before_tensorflow_starts(
    tmp_path: Path, request_: dict, message: str
) -> None:
    with pytest.raises(SavedModelError, match=message):
        save_saved_model(_bundle(tmp_path), tmp_path / "saved", **request_)
    assert not (tmp_path / "saved").exists()


def test_dynamic_dimensions_are_refused_by_name(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, dynamic_shapes=({0: Dim("batch")},))
    with pytest.raises(SavedModelError, match=r"input 0 \(args_0\) has dynamic dimensions"):
        save_saved_model(bundle, tmp_path / "saved")


def test_a_folder_that_is_not_a_saved_model_is_never_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _bundle(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    assert main(["saved-model", str(bundle), "-o", str(tmp_path / "mine")]) == 1
    assert (
        capsys.readouterr().err
        == f"shlo: {tmp_path / 'mine'} exists and is not a SavedModel: not replacing it\n"
    )
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    assert main(["saved-model", str(bundle), "-o", "/proc/shlo-saved"]) == 1  # no scratch there
    said = "shlo: cannot write /proc/shlo-saved: No such file or directory\n"
    assert capsys.readouterr().err == said


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is not None, reason="TensorFlow is here")
def test_without_tensorflow_the_error_says_how_to_install_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["saved-model", str(_bundle(tmp_path)), "-o", str(tmp_path / "saved")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("shlo: SavedModel export failed: TensorFlow is not importable here")
    assert err.rstrip().endswith("pip install 'shlo[tf]' (tensorflow-cpu)")
    assert len(err.splitlines()) == 1 and not (tmp_path / "saved").exists()


class Scaled(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(6, 6)

    def forward(self, x: torch.Tensor, *, scale: torch.Tensor) -> torch.Tensor:
        return self.linear(x) * scale


@needs_tensorflow
def test_keyword_inputs_and_a_failed_check_keeps_the_older_saved_model(tmp_path: Path) -> None:
    x, scale, target = torch.randn(2, 6), torch.full((2, 6), 3.0), tmp_path / "saved"
    target.mkdir()  # an empty folder is written into
    saved = save_torch_module_as_tf_saved_model(Scaled().eval(), (x,), target, {"scale": scale})
    assert saved.path == target and len(saved.inputs) == 2
    before = (target / "saved_model.pb").read_bytes()
    dropout = torch.nn.Dropout(0.5).train()  # random in eager, random again in TensorFlow
    with pytest.raises(ShloError):
        save_torch_module_as_tf_saved_model(dropout, (torch.ones(256),), target)
    assert (target / "saved_model.pb").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["saved"]  # no scratch left behind
