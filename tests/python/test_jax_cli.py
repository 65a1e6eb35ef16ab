"""`shlo import --frontend jax`, `shlo compare --reference xla-cpu`, and docs/jax.md's programs
as examples/jax holds them."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from shlo.compare import Reference, compare_devices
from shlo.ir.module import parse_source
from shlo.ir.source import Source
from shlo.ir.worlds import ContextPolicy, get_world
from shlo.jax.xla_cpu import run_on_xla_cpu
from shlo.tools.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "jax"
XLA_CPU = Reference("xla-cpu", run_on_xla_cpu)
# A dense_resource constant (as torch-mlir imports weights), which XLA takes only written out.
PROGRAM = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
  %c = stablehlo.constant dense_resource<weights> : tensor<4xf32>
  %0 = stablehlo.multiply %x, %c : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  %2 = stablehlo.add %1, %x : tensor<4xf32>
  return %2 : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F0000004000004040CDCC8C40"
    }
  }
#-}
"""
X = np.array([0.1, 0.2, 0.3, 0.4], np.float32)


def _module(text: str, name: str):
    world = get_world("stablehlo")
    return parse_source(world, world.make_context(ContextPolicy()), Source(name, text.encode()))


def test_xla_cpu_reference_agrees_and_names_the_first_divergence() -> None:
    """XLA:CPU computes the module (resource blob included) as numpy does; a candidate with a
    changed op diverges there, and the report names it."""
    weights = np.array([1.0, 2.0, 3.0, 4.4], np.float32)
    (values,) = run_on_xla_cpu(_module(PROGRAM, "ref.mlir"), [X])
    np.testing.assert_allclose(values, np.exp(X * weights) + X, rtol=1e-6)
    wrong = PROGRAM.replace("stablehlo.exponential", "stablehlo.exponential_minus_one")
    reports = compare_devices(
        _module(PROGRAM, "ref.mlir"), [X], candidate=_module(wrong, "bad.mlir"),
        devices=["local-task"], reference=XLA_CPU,
    )  # fmt: skip
    (report,) = reports
    assert not report.ok and report.divergence is not None
    assert report.divergence.op == "stablehlo.exponential_minus_one"
    assert report.divergence.location.endswith(":4:8")


@pytest.mark.slow
def test_import_run_and_compare_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`shlo import --frontend jax` -> `shlo compile` -> `shlo run` matches JAX's own output;
    `shlo compare --reference xla-cpu` agrees; without the flag, the factory's failure says
    to add it."""
    shutil.copy(EXAMPLES / "rnn.py", tmp_path)
    x = np.random.default_rng(3).standard_normal((5, 2, 4), dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    spec = importlib.util.spec_from_file_location("rnn_example", tmp_path / "rnn.py")
    assert spec is not None and spec.loader is not None
    rnn = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rnn)
    np.save(tmp_path / "expected.npy", np.asarray(rnn.rnn(x)))
    source, mlir, vmfb = (
        f"{tmp_path}/rnn.py:rnn",
        str(tmp_path / "rnn.mlir"),
        str(tmp_path / "rnn.vmfb"),
    )
    assert (
        main(["import", source, "--frontend", "jax", f"--input=@{tmp_path}/x.npy", "-o", mlir]) == 0
    )
    assert "stablehlo.while" in Path(mlir).read_text()
    assert main(["compile", mlir, "-o", vmfb]) == 0
    expected = f"--expected-output=@{tmp_path}/expected.npy"
    assert main(["run", vmfb, f"--input=@{tmp_path}/x.npy", expected]) == 0
    args = ["compare", mlir, f"--input=@{tmp_path}/x.npy", "--reference", "xla-cpu"]
    capsys.readouterr()
    assert main([*args, "--device", "local-task"]) == 0
    assert re.search(r"^xla-cpu +all +reference$", capsys.readouterr().out, re.MULTILINE)
    assert main(["import", source, f"--input=@{tmp_path}/x.npy", "-o", mlir]) == 1
    assert "for a JAX function add --frontend jax" in capsys.readouterr().err


def test_an_exported_file_needs_no_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that is not Python is read as a serialized jax.export.Exported; one that is not
    one is refused in one line."""
    bogus = tmp_path / "model.exported"
    bogus.write_bytes(b"not a flatbuffer")
    assert main(["import", str(bogus), "-o", str(tmp_path / "out.mlir")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("shlo: JAX export of ") and err.count("\n") == 1


def test_docs_show_the_example_programs_as_they_are() -> None:
    """docs/jax.md prints each program of examples/jax whole (its snippets run them)."""
    page = (ROOT / "docs" / "jax.md").read_text()
    shown = dict(re.findall(r"<!-- file: (\w+\.py) -->\n```python\n(.*?)```", page, re.DOTALL))
    files = {path.name: path.read_text() for path in EXAMPLES.glob("*.py")}
    assert shown == files
