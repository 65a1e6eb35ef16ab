"""shlo's own lit tests must fail when their expectations are made wrong.

A lit file whose CHECK lines, `check.*` ops or `expected-*` comments can be broken without the
file failing tests nothing (a prefix no RUN line uses, a RUN line whose output never reaches
FileCheck, a check op that never runs). The conformance runner mutates upstream's files the
same way ("vacuous"); this runs the idea on tests/lit: one mutant per FileCheck prefix (all its
positive directives broken), one with every `_const` / `expect_close` check op broken, one with
every expected diagnostic broken; lit runs each in a copy of the tree, and each must fail.
A sample runs by default (about a minute); `-m slow` runs every mutant of every file.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).resolve().parents[1] / "lit"
MARK = "<<shlo-lit-mutant>>"
SAMPLE = 10  # mutants per default run (under a minute); SHLO_LIT_MUTANT_SEED picks another sample

_PREFIX_FLAG = re.compile(r"-?-check-prefix(?:es)?[= ]([\w,-]+)")
_FILECHECK = re.compile(r"\bfilecheck\b")
_POSITIVE = r"(?:-NEXT|-SAME|-DAG|-LABEL|-COUNT-\d+)?:"
_CHECK_OP = re.compile(r"^\s*check\.(expect_\w+)\b")
_EXPECTED = re.compile(r"expected-(?:error|warning|note|remark)(?:-re)?\s*(?:@\S+)?\s*\{\{")
_SCALAR = re.compile(r"true|false|[-+]?0x[0-9A-Fa-f]+|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")


def _run_lines(text: str) -> list[str]:
    """The RUN lines, continuations (`\\` at the end) joined."""
    runs, current = [], ""
    for line in text.splitlines():
        found = re.search(r"//\s*RUN:(.*)", line)
        if not found:
            continue
        current += found.group(1).rstrip()
        if current.endswith("\\"):
            current = current[:-1]
        else:
            runs.append(current)
            current = ""
    return runs


def check_prefixes(text: str) -> list[str]:
    """Every FileCheck prefix a RUN line uses (CHECK when one names none), in order."""
    prefixes: list[str] = []
    for run in _run_lines(text):
        for segment in run.split("|"):
            if not _FILECHECK.search(segment):
                continue
            named = _PREFIX_FLAG.findall(segment)
            names = [p for group in named for p in group.split(",")] or ["CHECK"]
            prefixes += [p for p in names if p not in prefixes]
    return prefixes


def _mutate_directives(text: str, prefix: str) -> str | None:
    """`text` with every positive directive of `prefix` made to look for text that is not there."""
    directive = re.compile(rf"^(\s*//\s*{re.escape(prefix)}{_POSITIVE})(.*)$")
    lines = text.split("\n")
    changed = 0
    for i, line in enumerate(lines):
        found = directive.match(line)
        if found:
            lines[i] = f"{found.group(1)}{found.group(2)} {MARK}"
            changed += 1
    return "\n".join(lines) if changed else None


def _mutate_scalar(token: str, integer: bool) -> str:
    if token in ("true", "false"):
        return "false" if token == "true" else "true"
    if integer:
        return "1" if token.lstrip("+-") in ("0", "0x0") else "0"
    return "4.000000e+00" if token == "2.0" or token == "2.000000e+00" else "2.000000e+00"


def _mutate_check_op(line: str, op: str) -> str | None:
    """One check op with its expected value made wrong: the first element of a `_const`
    op's constant, or an `expect_close` window no difference fits."""
    if op == "expect_close":
        window = "max_ulp_difference = 0, min_ulp_difference = 1"
        new, count = re.subn(
            r"max_ulp_difference\s*=\s*\d+(\s*,\s*min_ulp_difference\s*=\s*\d+)?",
            window,
            line,
            count=1,
        )
        return new if count else None
    if not op.endswith("_const"):
        return None
    start = line.find("dense<")
    if start < 0:
        return None
    element = re.search(r">\s*:\s*tensor<(?:[^>]*x)?(\w+)>", line[start:])
    integer = bool(element and re.fullmatch(r"u?i\d+", element.group(1)))
    i = start + len("dense<")
    while i < len(line) and line[i] in " [(":
        i += 1
    found = _SCALAR.match(line, i)
    if not found:
        return None
    return line[: found.start()] + _mutate_scalar(found.group(0), integer) + line[found.end() :]


def _mutate_check_ops(text: str) -> str | None:
    lines = text.split("\n")
    changed = 0
    for i, line in enumerate(lines):
        found = _CHECK_OP.match(line)
        new = _mutate_check_op(line, found.group(1)) if found else None
        if new is not None and new != line:
            lines[i] = new
            changed += 1
    return "\n".join(lines) if changed else None


def _mutate_expected(text: str) -> str | None:
    lines = text.split("\n")
    changed = 0
    for i, line in enumerate(lines):
        end = line.rfind("}}")
        if _EXPECTED.search(line) and end > 0:
            lines[i] = f"{line[:end]} {MARK}{line[end:]}"
            changed += 1
    return "\n".join(lines) if changed else None


def mutants(text: str) -> list[tuple[str, str]]:
    """(what was broken, the mutated text) for each way of breaking the file's expectations."""
    found = [(p, _mutate_directives(text, p)) for p in check_prefixes(text)]
    found += [("check ops", _mutate_check_ops(text)), ("expected-*", _mutate_expected(text))]
    return [(label, new) for label, new in found if new is not None]


def _all_mutants() -> list[tuple[str, str, str]]:
    """(file relative to tests/lit, label, mutated text) for every lit file."""
    return [
        (str(path.relative_to(LIT_DIR)), label, new)
        for path in sorted(LIT_DIR.rglob("*.mlir"))
        if "Inputs" not in path.parts
        for label, new in mutants(path.read_text())
    ]


def _survivors(chosen: list[tuple[str, str, str]], root: Path) -> list[str]:
    """Run lit on `chosen` mutants, each file in its own copy of the tree (so two mutants of
    one file never meet); the mutants that pass."""
    rounds: list[dict[str, tuple[str, str]]] = []
    for relative, label, text in chosen:
        free = next((r for r in rounds if relative not in r), None)
        if free is None:
            free = {}
            rounds.append(free)
        free[relative] = (label, text)
    lit = Path(sys.executable).with_name("lit")
    survived = []
    for number, mutated in enumerate(rounds):
        tree = root / f"round{number}" / "tests" / "lit"
        shutil.copytree(LIT_DIR, tree)
        for relative, (_, text) in mutated.items():
            (tree / relative).write_text(text)
        paths = [str(tree / relative) for relative in mutated]
        result = subprocess.run(
            [str(lit), "-j2", "-v", *paths],
            capture_output=True,
            text=True,
            env={**os.environ, "SHLO_CACHE_DIR": str(root / "cache")},
        )
        passed = set(re.findall(r"^PASS: shlo :: (\S+)", result.stdout, re.MULTILINE))
        survived += [f"{r} ({label})" for r, (label, _) in mutated.items() if r in passed]
    return survived


def test_mutants_break_each_kind_of_expectation() -> None:
    text = "\n".join(
        [
            "// RUN: shlo-opt %s | filecheck %s",
            "// RUN: shlo-opt %s 2>&1 | filecheck %s --check-prefixes=A,B",
            "// RUN: shlo-translate --interpret %s",
            "// CHECK: one",
            "// CHECK-NOT: two",
            "// A-NEXT: three",
            "// B-LABEL: four",
            "check.expect_eq_const %0, dense<[2, 3]> : tensor<2xi32>",
            "check.expect_almost_eq_const %1, dense<2.0> : tensor<f32>",
            "check.expect_close %2, %3, max_ulp_difference = 3 : tensor<f32>, tensor<f32>",
            "// expected-error @+1 {{five}}",
        ]
    )
    found = dict(mutants(text))
    assert list(found) == ["CHECK", "A", "B", "check ops", "expected-*"]
    assert f"// CHECK: one {MARK}" in found["CHECK"]
    assert "// CHECK-NOT: two\n" in found["CHECK"]  # a negative check broken proves nothing
    assert f"// A-NEXT: three {MARK}" in found["A"] and "// B-LABEL: four\n" in found["A"]
    ops = found["check ops"]
    assert "dense<[0, 3]> : tensor<2xi32>" in ops
    assert "dense<4.000000e+00> : tensor<f32>" in ops
    assert "max_ulp_difference = 0, min_ulp_difference = 1" in ops
    assert f"{{{{five {MARK}}}}}" in found["expected-*"]


def test_every_lit_file_has_an_expectation_to_break() -> None:
    """A file with no CHECK, check op or expected diagnostic tests only that it runs."""
    files = {
        str(p.relative_to(LIT_DIR)) for p in LIT_DIR.rglob("*.mlir") if "Inputs" not in p.parts
    }
    assert files == {relative for relative, _, _ in _all_mutants()}


def test_a_sample_of_mutants_fails(tmp_path: Path) -> None:
    everything = _all_mutants()
    seed = int(os.environ.get("SHLO_LIT_MUTANT_SEED", "0"))
    chosen = random.Random(seed).sample(everything, min(SAMPLE, len(everything)))
    assert _survivors(chosen, tmp_path) == []


@pytest.mark.slow
def test_every_mutant_fails(tmp_path: Path) -> None:
    assert _survivors(_all_mutants(), tmp_path) == []
