"""Ratchet on upstream StableHLO's lit suite: fail when shlo passes fewer files than it did.

Runs `../shared/conformance/stablehlo/run_lit.py` (beside the repository, or under
$SHLO_CONFORMANCE_DIR; never copied into it) with shlo-opt, shlo-translate and filecheck from
`.venv`, prints the runner's summary, and
exits 1 when the pass rate falls below the floor in `tools/conformance_floor.json` or when any
file is vacuous (passes even with its expectations broken).  Without the suite it says so and
exits 0.  Raise the floor when the rate goes up.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = ROOT / "tools" / "conformance_floor.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("SHLO_CONFORMANCE_DIR") or ROOT.parent / "shared" / "conformance"
    parser.add_argument("--suite", type=Path, default=default)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    runner = args.suite / "stablehlo" / "run_lit.py"
    if not runner.exists():
        print(f"conformance: {runner} not found; skipped")
        return 0
    floor = json.loads(FLOOR.read_text())["stablehlo_pass_rate"]
    tools = ROOT / ".venv" / "bin"
    with tempfile.TemporaryDirectory(prefix="shlo-conformance-") as scratch:
        report = Path(scratch) / "lit.json"
        done = subprocess.run(
            [
                sys.executable,
                str(runner),
                "--tests-dir",
                str(args.suite / "stablehlo"),
                "--opt",
                str(tools / "shlo-opt"),
                "--translate",
                str(tools / "shlo-translate"),
                "--filecheck",
                str(tools / "filecheck"),
                "--jobs",
                str(args.jobs),
                "--json",
                str(report),
            ],
            capture_output=True,
            text=True,
        )
        if not report.exists():
            print(done.stdout[-2000:] + done.stderr[-2000:])
            print("conformance: the runner wrote no report")
            return 1
        tests = json.loads(report.read_text())["tests"]
    counts: dict[str, int] = {}
    for test in tests:
        counts[test["status"]] = counts.get(test["status"], 0) + 1
    supported = len(tests) - counts.get("unsupported", 0)
    rate = counts.get("pass", 0) / supported if supported else 0.0
    summary = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    print(f"conformance: {len(tests)} files: {summary} => {rate:.1%} (floor {floor:.1%})")
    failing = [t["rel"] for t in tests if t["status"] not in ("pass", "unsupported")]
    problems = []
    if counts.get("vacuous", 0):
        vacuous = [t["rel"] for t in tests if t["status"] == "vacuous"]
        problems.append(f"vacuous files (a check that cannot fail): {', '.join(vacuous)}")
    if rate < floor:
        problems.append(f"pass rate {rate:.1%} is below the floor {floor:.1%}")
    if problems:
        print("conformance: not passing: " + ", ".join(failing))
        for problem in problems:
            print(f"conformance: FAILED: {problem}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
