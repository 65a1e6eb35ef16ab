"""A crash in MLIR's native code, and Ctrl-C, as the installed commands report them.

The crash: StableHLO 1.19's all_to_all verifier divides by the number of replica groups, so an
empty `replica_groups` kills the process with SIGFPE while it parses.  Run in-process, shlo-opt
ended with exit 136 and not a word; each input buffer now runs in a forked child.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import as_foreground_job

BIN = Path(sys.executable).parent

CRASHES = """func.func @crash(%data: tensor<4x16xf32>) -> tensor<16x4xf32> {
  %0 = "stablehlo.all_to_all"(%data) {
    split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 4 : i64,
    replica_groups = dense<0> : tensor<0x2xi64>
  } : (tensor<4x16xf32>) -> tensor<16x4xf32>
  func.return %0 : tensor<16x4xf32>
}
"""
FINE = """func.func @fine_{n}(%x: tensor<2xf32>) -> tensor<2xf32> {{
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}}
"""
ENDLESS = """func.func @main() -> tensor<i64> {
  %0 = stablehlo.constant dense<0> : tensor<i64>
  %1 = stablehlo.while(%i = %0) : tensor<i64>
    cond {
    %2 = stablehlo.compare GE, %i, %i, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %2 : tensor<i1>
  } do {
    stablehlo.return %i : tensor<i64>
  }
  return %1 : tensor<i64>
}
"""


def _run(tool: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / tool), *argv], capture_output=True, text=True, timeout=120)


@pytest.fixture
def crashing(tmp_path: Path) -> Path:
    path = tmp_path / "crash.mlir"
    path.write_text(CRASHES)
    return path


@pytest.mark.parametrize("tool", ["shlo-opt", "shlo-translate"])
def test_a_native_crash_is_one_line_with_a_rerun_command(tool: str, crashing: Path) -> None:
    done = _run(tool, str(crashing))
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"{crashing}: error: {tool} crashed in MLIR's native code (SIGFPE")
    kept = lines[0].split("reproduce with: ")[1].split()[1]
    assert Path(kept).read_text() == CRASHES
    again = _run(tool, kept)
    assert again.returncode == 1 and "crashed in MLIR's native code (SIGFPE" in again.stderr


def test_the_other_split_chunks_still_run_and_the_crash_names_its_line(tmp_path: Path) -> None:
    source = tmp_path / "three.mlir"
    source.write_text("// -----\n".join([FINE.format(n=1), CRASHES, FINE.format(n=3)]))
    done = _run("shlo-opt", str(source), "--split-input-file", "--canonicalize")
    assert done.returncode == 1
    assert "@fine_1" in done.stdout and "@fine_3" in done.stdout
    parts = done.stdout.split("// -----\n")
    assert len(parts) == 3 and parts[1] == ""  # the crashed chunk keeps its place, empty
    line = 1 + FINE.count("\n")  # the crashing chunk starts at the end of the first marker
    assert done.stderr.startswith(f"{source}:{line}:1: error: shlo-opt crashed")
    assert "the other inputs ran" in done.stderr
    rerun = done.stderr.split("reproduce with: ")[1].split()
    assert rerun[2:] == ["--canonicalize"]  # no input, no splitting


def test_a_crash_leaves_the_output_file_as_it_was(tmp_path: Path, crashing: Path) -> None:
    output = tmp_path / "out.mlir"
    output.write_text("old\n")
    done = _run("shlo-opt", str(crashing), "-o", str(output))
    assert done.returncode == 1
    assert output.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crash.mlir", "out.mlir"]


def test_ctrl_c_exits_130_with_one_line_and_no_scratch_file(tmp_path: Path) -> None:
    source = tmp_path / "endless.mlir"
    source.write_text(ENDLESS)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    running = subprocess.Popen(
        [str(BIN / "shlo-translate"), "--interpret", str(source), "-o", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
        start_new_session=True,  # its own process group, as a shell's foreground job has
        preexec_fn=as_foreground_job,
    )
    time.sleep(3)  # well inside the endless loop
    os.killpg(running.pid, signal.SIGINT)
    try:
        _, stderr = running.communicate(timeout=60)
    finally:  # a failure leaves nothing of the command running
        with contextlib.suppress(ProcessLookupError):
            os.killpg(running.pid, signal.SIGKILL)
    assert running.returncode == 130
    assert stderr == "shlo-translate: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["endless.mlir", "tmp"]
    assert list(scratch.iterdir()) == []  # the interpreter's scratch folder is gone too


def _descendants(pid: int) -> set[int]:
    """Every live process below `pid`, from /proc's parent links."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_children_end_when_the_command_is_killed(tmp_path: Path) -> None:
    """An endless program went on interpreting for an hour after its shlo-translate was
    killed; the forked child and the interpreter's child now end with it."""
    source = tmp_path / "endless.mlir"
    source.write_text(ENDLESS)
    running = subprocess.Popen([str(BIN / "shlo-translate"), "--interpret", str(source)])
    deadline = time.monotonic() + 60
    while len(_descendants(running.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)  # the forked child, then the interpreter's child
    children = _descendants(running.pid)
    assert len(children) >= 2
    running.kill()
    running.wait()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}/stat").exists() for pid in children)


_RAISING_CHILD = """
import sys
from shlo.ir.source import Source
from shlo.runtime.isolated import run_isolated
from shlo.tools.native_guard import run_guarded
from shlo.tools.reporting import run_reporting

def fail(*_):
    raise ValueError("the step's own error")

if sys.argv[1] == "isolated":
    status = run_isolated(lambda: run_reporting("prog", fail), "prog", "x")
else:
    chunk = Source("x.mlir", b"module {}")
    status = run_guarded("prog", [chunk], fail, ["x.mlir"], "x.mlir", split=False)
print("the parent carries on once:", status)
"""


@pytest.mark.parametrize("where", ["isolated", "guarded"])
def test_shlo_traceback_shows_a_forked_childs_error_once(where: str) -> None:
    """SHLO_TRACEBACK=1 lets an internal error through `run_reporting`: a forked child prints
    its traceback and ends; it never runs on into the parent's code."""
    env = {**os.environ, "SHLO_TRACEBACK": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _RAISING_CHILD, where], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" in done.stderr and "ValueError: the step's own error" in done.stderr
    assert done.stdout.splitlines() == ["the parent carries on once: 1"], done.stdout
