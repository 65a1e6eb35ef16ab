"""Bundles in torch_xla's save_as_stablehlo layout: round trips, a hand-written torch_xla
bundle, and loading untrusted bundles safely."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from shlo.errors import BundleError
from shlo.runtime.numerics import assert_close
from shlo.tools.demo_models import SmallCNN
from shlo.torch.bundle import Bundle, load_module, save_bundle


class TwoHeads(torch.nn.Module):
    """Dict in, tuple out: the pytree specs must survive the bundle."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = torch.nn.Linear(6, 4), torch.nn.Linear(6, 2)

    def forward(self, inputs: dict) -> tuple:
        x = inputs["x"] * inputs["scale"]
        return self.a(x), torch.relu(self.b(x))


def test_round_trip_keeps_numbers_structure_and_the_version(tmp_path: Path) -> None:
    from shlo.ir.stablehlo import stablehlo_version

    model = TwoHeads().eval()
    inputs = {"x": torch.randn(3, 6), "scale": torch.full((3, 6), 2.0)}
    meta = save_bundle(model, (inputs,), tmp_path)
    assert meta.stablehlo_version == stablehlo_version() != "0.0.0"
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == sorted(model.state_dict())
    assert {p.name for p in (tmp_path / "functions").iterdir()} == {
        "forward.meta", "forward.bytecode", "forward.mlir"
    }  # fmt: skip
    written = json.loads((tmp_path / "functions" / "forward.meta").read_text())
    kinds = [loc["type_"] for loc in written["input_locations"]]
    assert kinds == ["parameter"] * 4 + ["input_arg"] * 2
    loaded = Bundle(tmp_path)
    with torch.no_grad():
        got, want = loaded(inputs), model(inputs)
    assert isinstance(got, tuple) and len(got) == 2
    assert_close(got, want)
    # The module takes the user's inputs only; the weights became constants when loaded.
    module, _ = load_module(tmp_path)
    arguments = re.search(r"func.func @main\(([^)]*)\)", module.text()).group(1)
    assert arguments.count("tensor<") == 2


def test_cnn_bundle_runs_on_vulkan_and_through_the_cli(tmp_path: Path) -> None:
    from shlo.tools.cli import main

    model, x = SmallCNN().eval(), torch.randn(2, 3, 32, 32)
    save_bundle(model, (x,), tmp_path / "cnn")
    with torch.no_grad():
        assert_close(Bundle(tmp_path / "cnn", target="vulkan")(x), model(x))
        np.save(tmp_path / "x.npy", x.numpy())
        np.save(tmp_path / "want.npy", model(x).numpy())
    argv = ["run", str(tmp_path / "cnn"), "--input", f"@{tmp_path / 'x.npy'}"]
    assert main([*argv, "--expected-output", f"@{tmp_path / 'want.npy'}"]) == 0
    assert main(["compile", str(tmp_path / "cnn"), "-o", str(tmp_path / "cnn.vmfb")]) == 0
    assert (tmp_path / "cnn.vmfb").stat().st_size > 0
    argv = [
        "import",
        "shlo.tools.demo_models:MLP",
        "--input",
        "8x64xf32",
        "--bundle",
        str(tmp_path / "mlp"),
    ]
    assert main(argv) == 0
    assert (tmp_path / "mlp" / "functions" / "forward.meta").is_file()
    assert sorted(p.name for p in (tmp_path / "mlp" / "data").iterdir())[0] == "net.0.bias"


# A bundle as torch_xla writes it, made by hand: state_dict keys as file names, a constant
# torch_xla hard-coded, input locations in the function's own order (constant, parameter,
# input, parameter), plain MLIR returning a tuple, pytree specs from treespec_dumps.
FIXTURE = Path(__file__).parent / "fixtures" / "torch_xla_bundle"


def _torch_xla_bundle(root: Path, change: Callable[[dict], Any] | None = None) -> None:
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    if change is not None:
        path = root / "functions" / "forward.meta"
        meta = json.loads(path.read_text())
        change(meta)
        path.write_text(json.dumps(meta))


def test_a_hand_written_torch_xla_bundle_loads_and_runs() -> None:
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    (result,) = Bundle(FIXTURE)(x)
    weight, bias = (np.load(FIXTURE / "data" / name) for name in ("fc.weight", "fc.bias"))
    want = x @ weight.T + bias + np.load(FIXTURE / "constants" / "0")
    np.testing.assert_allclose(result, want, rtol=1e-6)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["input_locations"][1].update(name="../../etc/passwd"), "not a plain file"),
        (lambda m: m["input_locations"][1].update(type_="pickle"), "unknown input location"),
        (lambda m: m["input_signature"][1].update(shape=[4, 3]), "float32\\[3, 4\\] where"),
        (lambda m: m["input_locations"].pop(), "3 input locations for 4 inputs"),
    ],
)
def test_an_untrusted_bundle_is_rejected_with_the_reason(tmp_path, change, message) -> None:
    _torch_xla_bundle(tmp_path, change)
    with pytest.raises(BundleError, match=message):
        load_module(tmp_path)


def test_pickled_arrays_are_never_loaded(tmp_path: Path) -> None:
    _torch_xla_bundle(tmp_path)
    with open(tmp_path / "data" / "fc.bias", "wb") as stream:
        np.save(stream, np.array([{"payload": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(BundleError, match="fc.bias: cannot read as .npy"):
        load_module(tmp_path)


def test_bfloat16_weights_load_back_as_bfloat16(tmp_path: Path) -> None:
    """np.save writes bfloat16 as 2-byte voids; loading reads them back as bfloat16."""
    model = torch.nn.Linear(8, 3).to(torch.bfloat16).eval()
    x = torch.randn(2, 8, dtype=torch.bfloat16)
    save_bundle(model, (x,), tmp_path)
    assert np.load(tmp_path / "data" / "weight").dtype == np.dtype("V2")
    result = Bundle(tmp_path)(x)
    with torch.no_grad():
        assert result.dtype == torch.bfloat16 and torch.equal(result, model(x))


class _Checked(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        torch._check(x.max().item() < 10)
        return x * 2


def test_a_model_that_checks_values_at_run_time_is_refused_not_unchecked(tmp_path) -> None:
    with pytest.raises(BundleError, match="checks values at run time"):
        save_bundle(_Checked(), (torch.tensor([1, 2]),), tmp_path)
