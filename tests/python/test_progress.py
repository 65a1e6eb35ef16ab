"""Long `shlo` commands show their steps on a terminal, and nothing on a pipe or with --quiet;
`--json` writes what the command printed, as JSON; timings interleave the systems compared."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from shlo.tools.cli import main

SOURCE = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"


def _stderr_on_a_terminal(argv: list[str]) -> str:
    """Run `python -m shlo ARGV` with stderr on a pseudo-terminal; what it showed there."""
    leader, follower = pty.openpty()
    done = subprocess.Popen([sys.executable, "-m", "shlo", *argv], stderr=follower)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.wait() == 0
    return shown.decode(errors="replace")


def test_compile_shows_its_steps_on_a_terminal_only(tmp_path: Path) -> None:
    source = tmp_path / "m.mlir"
    source.write_text(SOURCE)
    argv = ["compile", str(source), "-o", str(tmp_path / "m.vmfb")]
    assert "compiling for llvm-cpu (iree-compile) (1/2" in _stderr_on_a_terminal(argv)
    assert "compiling for" not in _stderr_on_a_terminal(["--quiet", *argv])
    piped = subprocess.run(
        [sys.executable, "-m", "shlo", *argv], capture_output=True, text=True, check=True
    )
    assert "compiling for" not in piped.stderr


def test_run_bench_and_compare_write_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, vmfb = tmp_path / "m.mlir", tmp_path / "m.vmfb"
    source.write_text(SOURCE)
    assert main(["compile", str(source), "-o", str(vmfb)]) == 0
    run_json, bench_json, compare_json = (tmp_path / f"{n}.json" for n in ("run", "bench", "cmp"))
    value = "--input=4xf32=1 2 3 0.5"
    assert main(["run", str(vmfb), value, "--json", str(run_json)]) == 0
    assert json.loads(run_json.read_text())["results"] == ["4xf32=1 2 3 0.5"]
    assert main(["bench", str(vmfb), value, "--runs", "3", "--json", str(bench_json)]) == 0
    bench = json.loads(bench_json.read_text())
    assert len(bench["times_ms"]) == 3 and bench["machine"]["cores"] == os.cpu_count()
    assert bench["median_ms"] == sorted(bench["times_ms"])[1]
    assert main(["compare", str(source), value, "--json", str(compare_json)]) == 0
    report = json.loads(compare_json.read_text())
    assert report["ok"] is True and report["devices"][0]["checks"][0]["max_abs"] == 0
    capsys.readouterr()


def test_interleaved_timing_visits_every_system_in_each_round() -> None:
    from shlo.runtime.timing import interleaved_ms

    visits: list[str] = []
    calls = {name: (lambda n=name: visits.append(n)) for name in ("a", "b", "c")}
    times = interleaved_ms(calls, runs=7, rounds=3, warmup=1)
    assert {name: len(t) for name, t in times.items()} == {"a": 7, "b": 7, "c": 7}
    timed = visits[3:]  # after one warm-up call of each
    rounds = [timed[:9], timed[9:15], timed[15:]]  # 3, 2 and 2 calls of each
    assert [r[0] for r in rounds] == ["a", "b", "c"]  # each round starts one further along
    assert all(set(r) == {"a", "b", "c"} for r in rounds)
