"""docs/parity.md is the list of upstream's options, passes and rules: every row names a test
that exists, and every option it calls not supported is refused in one line, exit 1."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PARITY = ROOT / "docs" / "parity.md"
# Which tool a section's options belong to.
TOOLS = {"MlirOptMain.cpp": "shlo-opt", "MlirTranslateMain.cpp": "shlo-translate"}


def rows() -> list[tuple[str, list[str]]]:
    """(section heading, cells) for every table row below the header lines."""
    found, section = [], ""
    for line in PARITY.read_text().splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            if cells[-1] != "test":  # a table's header
                found.append((section, cells))
    return found


def _named_tests(cell: str) -> list[str]:
    """The files (`path`, a glob, or `path::test`) a test cell names, folder-relative ones
    resolved; what follows "conformance" names files of the upstream suite."""
    names, folder = [], ""
    for name in re.findall(r"`([^`]+)`", cell.split("conformance")[0]):
        if name.startswith("tests/"):
            folder = str(Path(name.split("::")[0]).parent)
        elif folder:
            name = f"{folder}/{name}"
        names.append(name)
    return names


def test_every_row_names_tests_that_exist() -> None:
    missing = []
    for section, cells in rows():
        status, tests = cells[-2], cells[-1]
        named = _named_tests(tests)
        if not named and "conformance" not in tests:
            if not status.startswith(("not supported", "see ")):  # refused, or a pointer
                missing.append(f"{section}: {cells[0]} ({status[:40]}...) names no test")
            continue
        for name in named:
            path, _, test = name.partition("::")
            if not any(ROOT.glob(path)):
                missing.append(f"{section}: {name} does not exist")
            elif test and f"def {test.split('[')[0]}(" not in (ROOT / path).read_text():
                missing.append(f"{section}: {name} has no such test")
    assert missing == []


def unsupported_options() -> list[tuple[str, str]]:
    """(tool, option) for each option a row of the two options tables calls not supported."""
    found = []
    for section, cells in rows():
        tool = next((t for source, t in TOOLS.items() if section.startswith(source)), None)
        if tool and cells[-2].startswith("not supported"):
            options = re.findall(r"`(--[\w-]+)(?:=[^`]*)?`", cells[0])
            found += [(tool, option) for option in options if not option.endswith("*")]
    return found


@pytest.mark.parametrize(("tool", "option"), unsupported_options())
def test_an_option_not_supported_is_refused_in_one_line(
    tool: str, option: str, tmp_path: Path
) -> None:
    source = tmp_path / "m.mlir"
    source.write_text("func.func @main() {\n  return\n}\n")
    ran = subprocess.run(
        [str(Path(sys.executable).parent / tool), str(source), option],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 1 and ran.stdout == ""
    assert len(ran.stderr.strip().splitlines()) == 1 and option in ran.stderr, ran.stderr
