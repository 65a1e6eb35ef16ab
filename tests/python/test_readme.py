"""The README's Python snippets run exactly as printed, and the public load API behaves as
they say (text, bytecode, either world, mlir-opt's error format, short reprs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import shlo
from conftest import TENSORFLOW_MARKS, needs_tensorflow
from shlo.api import ParseError

README = Path(__file__).resolve().parents[2] / "README.md"
SNIPPETS = re.findall(r"^```python\n(.*?)^```", README.read_text(), re.MULTILINE | re.DOTALL)
BLOCKS = re.findall(r"^```sh\n(.*?)^```", README.read_text(), re.M | re.S)
MAIN = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}"


@pytest.mark.parametrize(
    "index",
    [
        pytest.param(i, marks=TENSORFLOW_MARKS if "shlo.serving" in snippet else [])
        for i, snippet in enumerate(SNIPPETS)
    ],
)
def test_readme_snippet_runs(
    index: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # snippets that write files write them here
    exec(compile(SNIPPETS[index], f"README.md snippet {index}", "exec"), {})  # noqa: S102
    printed = capsys.readouterr().out
    for comment in re.findall(r"print\(.*\)\s+# (<[^\n]*|stablehlo\.\S+)", SNIPPETS[index]):
        assert comment.split(" ...")[0].rstrip(">") in printed


def test_load_text_bytes_and_files_in_either_world(tmp_path: Path) -> None:
    module = shlo.load(MAIN)
    assert repr(module) == "<IRModule (stablehlo world): @main>"
    assert "return %arg0 : tensor<2xf32>" in str(module)
    (tmp_path / "m.mlirbc").write_bytes(module.to_bytecode())
    (tmp_path / "m.mlir").write_text(MAIN)
    for source in (tmp_path / "m.mlirbc", str(tmp_path / "m.mlir"), module.to_bytecode()):
        loaded = shlo.load(source, world="iree")
        assert loaded.world.name == "iree" and str(loaded) == str(module)


def test_load_reports_malformed_ir_as_mlir_opt_does(tmp_path: Path) -> None:
    (tmp_path / "bad.mlir").write_text("func.func @main() {\n  %0 = stablehlo.bogus\n}\n")
    with pytest.raises(ParseError) as raised:
        shlo.load(tmp_path / "bad.mlir")
    assert str(raised.value).startswith(f"{tmp_path / 'bad.mlir'}:2:")
    assert "error:" in str(raised.value)


def test_python_dash_m_shlo_is_the_shlo_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "shlo", "--help"], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("usage: shlo ")


def _run_lines(lines: list[str], folder: Path) -> None:
    """Each command line in order, in `folder`, with the venv's scripts on the PATH."""
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    for line in lines:
        done = subprocess.run(
            ["bash", "-c", line], cwd=folder, env={**os.environ, "PATH": path},
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, f"{line}\n{done.stderr[-2000:]}"


def test_readme_shlo_commands_run_as_printed(tmp_path: Path) -> None:
    """Each line of the README's `shlo` command block, in order, in a fresh folder (`shlo demo`
    aside: the demo's path is tested in test_demo.py, and `tools/demo` runs it whole)."""
    block = next(b for b in BLOCKS if b.startswith("shlo import") and "saved-model" not in b)
    _run_lines([line for line in block.splitlines() if line.strip() != "shlo demo"], tmp_path)
    assert (tmp_path / "build" / "module.mlirbc").is_file()
    assert json.loads((tmp_path / "bench.json").read_text())["runs"] == 50


@needs_tensorflow
def test_readme_saved_model_commands_run_as_printed(tmp_path: Path) -> None:
    block = next(b for b in BLOCKS if "shlo saved-model" in b)
    _run_lines(block.splitlines(), tmp_path)
    assert (tmp_path / "mlp_saved" / "saved_model.pb").is_file()


# The inputs that the README's shlo-opt, shlo-translate and compare blocks name.
README_INPUTS = {
    "model.mlir": """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @square(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @square(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
""",
    "tests.mlir": """func.func @ok(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
// -----
func.func @bad(%x: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{type of return operand 0 ('tensor<2xf32>') doesn't match}}
  return %x : tensor<2xf32>
}
""",
    "ref.mlir": """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
""",
    "suspect.mlir": """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.power %x, %x : tensor<4xf32>
  %1 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}
""",
}


@pytest.mark.parametrize("tool", ["shlo-opt", "shlo-translate", "shlo compare"])
def test_readme_tool_commands_run_as_printed(tool: str, tmp_path: Path) -> None:
    """The `shlo-opt`, `shlo-translate` and comparison blocks, line by line, on small inputs
    saved under the names they use."""
    for name, text in README_INPUTS.items():
        (tmp_path / name).write_text(text)
    (block,) = [b for b in BLOCKS if b.startswith(f"{tool} ")]
    _run_lines(block.splitlines(), tmp_path)
    if tool == "shlo-opt":
        flat = (tmp_path / "flat.mlir").read_text()
        assert "call" not in flat and "@square" not in flat and "stablehlo.multiply" in flat
    if tool == "shlo-translate":
        assert (tmp_path / "model.vhlo").read_bytes().startswith(b"ML\xefR")
