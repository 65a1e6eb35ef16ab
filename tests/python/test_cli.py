"""The `shlo` command line: import -> compile -> run, and its error messages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shlo.ir.load import load
from shlo.tools.cli import COMMANDS, main


def test_import_compile_run_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mlir, vmfb, out = tmp_path / "m.mlir", tmp_path / "m.vmfb", tmp_path / "out.npy"
    assert (
        main(["import", "shlo.tools.demo_models:MLP", "--input", "2x64xf32", "-o", str(mlir)]) == 0
    )
    assert "func.func @main(%arg0: tensor<2x64xf32>) -> tensor<2x10xf32>" in mlir.read_text()
    assert main(["compile", str(mlir), "--target", "llvm-cpu", "-o", str(vmfb)]) == 0
    assert "compiled with: iree-compile" in capsys.readouterr().err
    assert main(["run", str(vmfb), "--input=2x64xf32=0.5", f"--output=@{out}"]) == 0
    assert capsys.readouterr().out.startswith("result[0]: hal.buffer_view\n2x10xf32=[")
    np.save(tmp_path / "ref.npy", np.load(out))
    assert (
        main(
            ["run", str(vmfb), "--input=2x64xf32=0.5", f"--expected-output=@{tmp_path / 'ref.npy'}"]
        )
        == 0
    )
    assert (
        main(
            [
                "run",
                str(vmfb),
                "--input=2x64xf32=0.25",
                f"--expected-output=@{tmp_path / 'ref.npy'}",
            ]
        )
        == 1
    )
    assert "result[0] differs from the expected output" in capsys.readouterr().err
    assert main(["bench", str(vmfb), "--input=2x64xf32=1", "--runs", "3"]) == 0
    assert "median" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["import", "no.such.module:f", "--input", "2xf32", "-o", "-"], "cannot load"),
        (["run", "missing.vmfb"], "missing.vmfb"),
        (["compile", "x.mlir", "--target", "tpu", "-o", "x.vmfb"], "could not open input"),
        (["run", __file__, "--input=2xq7"], "not a valid IREE module"),
    ],
)
def test_errors_are_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("shlo: ") and message in err and "Traceback" not in err


@pytest.mark.parametrize("suffix", ["mlir", "mlirbc"])
def test_running_mlir_says_to_compile_it_first(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "// a module\nfunc.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    text += "  return %x : tensor<4xf32>\n}\n"
    path = tmp_path / f"m.{suffix}"
    path.write_bytes(text.encode() if suffix == "mlir" else load(text).to_bytecode())
    assert main(["run", str(path), "--input=4xf32=1"]) == 1
    kind = "text" if suffix == "mlir" else "bytecode"
    assert capsys.readouterr().err == (
        f"shlo: {path} is MLIR {kind}, not a compiled IREE module (.vmfb): compile it first "
        "(`shlo compile FILE -o FILE.vmfb`)\n"
    )


@pytest.mark.parametrize("option", ["-o", "--parameters"])
def test_compile_never_writes_over_its_input(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "m.mlir"
    text = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"
    source.write_text(text)
    (tmp_path / "link.mlir").symlink_to(source)
    argv = [
        "compile",
        str(source),
        "-o",
        str(tmp_path / "m.vmfb"),
        option,
        str(tmp_path / "link.mlir"),
    ]
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        f"shlo: {option.replace('-o', '--output')} {tmp_path / 'link.mlir'} is the input itself; "
        "compiling over it would lose it\n"
    )
    assert source.read_text() == text


def test_keep_temps_keeps_what_iree_compile_got_and_the_command_reruns_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mlir, vmfb, kept = tmp_path / "m.mlir", tmp_path / "m.vmfb", tmp_path / "kept"
    mlir.write_text(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.multiply %x, %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
    )
    assert main(["compile", str(mlir), "-o", str(vmfb), "--keep-temps", str(kept)]) == 0
    command = capsys.readouterr().err.split("compiled with: ", 1)[1].strip()
    assert command.startswith(f"cd {kept} && iree-compile module.mlirbc ")
    assert (kept / "module.mlirbc").is_file()
    (kept / "module.vmfb").unlink()
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    subprocess.run(["bash", "-c", command], check=True, env={**os.environ, "PATH": path})
    assert (kept / "module.vmfb").read_bytes() == vmfb.read_bytes()


_LOADED = """
import sys
from shlo.tools.cli import COMMANDS, main
try:
    main({argv!r})
except SystemExit as done:
    names = sorted(m for m in sys.modules if m.startswith("shlo.tools.commands."))
    print(done.code, "torch" in sys.modules, *names)
"""


@pytest.mark.parametrize(
    ("argv", "loaded"),
    [
        (["--help"], []),
        (["run", "--help"], ["device", "results", "run"]),
        (["bench", "--help"], ["bench", "device"]),
    ],
)
def test_a_command_loads_its_own_module_only(argv: list[str], loaded: list[str]) -> None:
    """Start-up: `shlo --help` imports no command; `shlo run` of a .vmfb needs no PyTorch."""
    script = _LOADED.format(argv=argv)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    names = [f"shlo.tools.commands.{name}" for name in loaded]
    assert done.stdout.splitlines()[-1].split() == ["0", "False", *names], done.stderr


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_its_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: shlo {command} [-h]") and "options:" in out
