"""shlo-opt in-process: exit codes, messages, reproducers, Python pass failures."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from shlo.pipeline.python_pass import PassFailure, register_pass
from shlo.tools.opt_main import main


@register_pass("test-raise-bug")
def _raise_bug(module, options) -> None:
    """A pass with a bug in it."""
    raise KeyError("missing")


@register_pass("test-fail-on-multiply")
def _fail_on_multiply(module, options) -> None:
    """Fails with a diagnostic at the first multiply it finds."""
    for function in module.regions[0].blocks[0].operations:
        for op in function.regions[0].blocks[0].operations:
            if op.name == "stablehlo.multiply":
                raise PassFailure("multiplies are not allowed here", op)


def test_success_prints_module(nested_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(nested_file), "--inline", "--symbol-dce"]) == 0
    out = capsys.readouterr().out
    assert out.count("func.func") == 1 and "call" not in out


def test_a_pipeline_on_a_small_file_never_loads_numpy(nested_file: Path) -> None:
    """Start-up: numpy costs a third of shlo-opt's start, and a plain pipeline needs none of it
    (every Python pass registers without it)."""
    script = f"""
import sys
from shlo.tools.opt_main import main
code = main([{str(nested_file)!r}, "--inline", "--canonicalize", "-o", {os.devnull!r}])
print(code, "numpy" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.split() == ["0", "False"], done.stderr


def test_pass_failure_points_at_the_op(
    nested_file: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main([str(nested_file), "--test-fail-on-multiply"]) == 1
    err = capfd.readouterr().err
    expected = "error: test-fail-on-multiply: multiplies are not allowed here"
    assert f"{nested_file}:7:8: {expected}" in err


def test_python_bug_is_a_diagnostic_not_a_traceback(
    nested_file: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main([str(nested_file), "--test-raise-bug"]) == 1
    err = capfd.readouterr().err
    assert "error: test-raise-bug: KeyError: 'missing' (at " in err
    assert "Traceback" not in err


def test_reproducer_reruns_the_failing_segment(
    nested_file: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # The failing segment is the second one: the reproducer holds the IR after inlining.
    assert (
        main(
            [
                str(nested_file),
                "--inline",
                "--iree-util-drop-compiler-hints",
                "--test-fail-on-multiply",
            ]
        )
        == 1
    )
    err = capfd.readouterr().err
    path = re.search(r"reproducer: (\S+)", err).group(1)
    command = re.search(r"rerun with: (.+)", err).group(1)
    repro = Path(path).read_text()
    assert "call @helper" not in repro  # inlined before the failing segment
    assert "builtin.module(test-fail-on-multiply)" in command
    assert main(shlex.split(command)[1:]) == 1
    rerun = capfd.readouterr().err
    assert f"{nested_file}:7:8: error: test-fail-on-multiply" in rerun
    Path(path).unlink()
    Path(re.search(r"reproducer: (\S+)", rerun).group(1)).unlink()


def test_reproducer_elides_large_constants(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    values = ", ".join(f"{i}.0" for i in range(64))
    source = tmp_path / "big.mlir"
    source.write_text(
        "func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {\n"
        f"  %c = stablehlo.constant dense<[{values}]> : tensor<64xf32>\n"
        "  %0 = stablehlo.multiply %x, %c : tensor<64xf32>\n"
        "  return %0 : tensor<64xf32>\n}\n"
    )
    assert main([str(source), "--test-fail-on-multiply"]) == 1
    path = Path(re.search(r"reproducer: (\S+)", capfd.readouterr().err).group(1))
    assert "dense_resource<__elided__>" in path.read_text()
    assert main([str(path)]) == 0  # it still parses
    path.unlink()


def test_verify_diagnostics_mode_writes_no_reproducer(
    nested_file: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main([str(nested_file), "--test-fail-on-multiply", "--verify-diagnostics"]) == 1
    err = capfd.readouterr().err
    assert "unexpected error: test-fail-on-multiply" in err and "reproducer" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--canonicalise"], "unknown pass or option '--canonicalise'; did you mean"),
        (["--pass-pipeline=builtin.module(cse)", "--cse"], "cannot be used with individual"),
        (["a.mlir", "b.mlir"], "unexpected argument 'b.mlir'"),
        (["/no/such/file.mlir"], "could not open input file /no/such/file.mlir"),
    ],
)
def test_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("shlo-opt: ") and message in err


def test_help_lists_mlir_opt_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for flag in (
        "--split-input-file",
        "--verify-diagnostics",
        "--mlir-print-ir-after-all",
        "--emit-bytecode",
        "--list-passes",
    ):
        assert flag in out


def test_output_to_a_device_is_written_not_replaced(nested_file: Path) -> None:
    import os
    import stat

    assert main([str(nested_file), "--inline", "-o", os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)  # still the device, not a file


# MlirOptMain's option spellings: the wheel's torch-mlir-opt is built on the same MlirOptMain, so
# it is the oracle for which spellings LLVM's parser accepts.
_SPELLINGS = [
    ["--verify-diagnostics"],
    ["-verify-diagnostics="],
    ["--verify-diagnostics=all"],
    ["--verify-diagnostics=only-expected"],
    ["--verify-diagnostics=true"],
    ["--split-input-file"],
    ["--split-input-file="],
    ["-split-input-file=true"],
    ["--verify-each=0"],
    ["--verify-each=False"],
    ["--verify-each=off"],
    ["--mlir-disable-threading=TRUE"],
    ["--mlir-disable-threading=yes"],
    ["--mlir-elide-elementsattrs-if-larger=-1"],
    ["--canonicalize=max-iterations=2 top-down=false"],
]


@pytest.mark.parametrize("flags", _SPELLINGS, ids=" ".join)
def test_option_spellings_are_accepted_as_mlir_opt_accepts_them(
    flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "m.mlir"
    source.write_text("func.func @f() {\n  return\n}\n")
    native = Path(sys.executable).with_name("torch-mlir-opt")
    oracle = subprocess.run([str(native), str(source), *flags], capture_output=True, text=True)
    accepted = oracle.returncode == 0 and "option" not in oracle.stderr
    assert (main([str(source), *flags]) == 0) == accepted, oracle.stderr
