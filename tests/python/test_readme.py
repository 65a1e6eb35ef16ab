"""Every snippet of README.md and docs/*.md runs as printed, and prints what the page shows;
the public load API behaves as the pages say (text, bytecode, either world, mlir-opt's error
format, short reprs).

How a page is read (docs/testing.md says the same for writers):
- a ```sh block runs line by line in bash (a line ending in `\\` continues), each line exiting 0,
  or N where the line ends in the comment `# exit N`; a ```python block runs as a script (its
  own globals, as `__main__`) in one Python process per page, never in the test's (a snippet's
  JAX or torch.compile state stays out of the tests);
- the blocks of one page run in order in one fresh folder, so a later block uses the files an
  earlier one wrote; `<!-- file: NAME -->` before any block writes its text to NAME there;
- a ```text block right after a run block is what that block prints (stdout and stderr): each
  of its lines must appear in the output, in order, `...` standing for any text;
- `<!-- cwd: repository -->` runs a block in the repository root instead (read-only commands);
- `<!-- not run: REASON -->` keeps a block out (a GPU, the whole suite): a few, each with a
  reason; `<!-- needs: tensorflow -->` blocks run in the slow TensorFlow test alone.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import shlo
from conftest import needs_tensorflow
from shlo.api import ParseError

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = ("sh", "python")
MARKER = re.compile(r"<!-- (file|not run|needs|cwd): (.+?) -->")
MOST_NOT_RUN = 4  # blocks no test can run (a GPU, the whole suite); keep them few
MAIN = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}"


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    markers: dict[str, str] = field(default_factory=dict)
    output: str | None = None  # the ```text block right after it

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks, each with its markers and the output shown after it."""
    found: list[Block] = []
    lines = page.read_text().splitlines()
    markers: dict[str, str] = {}
    index, after_run = 0, False  # after_run: only blank lines since a run block closed
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
            block = Block(page, index + 1, line[3:].strip(), "\n".join(lines[index + 1 : end]))
            block.text += "\n"
            block.markers, markers = markers, {}
            if block.language == "text" and after_run and not block.markers:
                found[-1].output = block.text
                after_run = False
            else:
                found.append(block)
                after_run = block.language in RUNNABLE
            index = end + 1
            continue
        if match := MARKER.fullmatch(line.strip()):
            markers[match[1]] = match[2]
        elif line.strip():
            markers, after_run = {}, False
        index += 1
    return found


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _shell_lines(text: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", "", text)
    return [line for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def _run_sh(block: Block, folder: Path) -> str:
    """Each line in bash with the environment's scripts on the PATH; their output, in order."""
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    printed = []
    for line in _shell_lines(block.text):
        status = re.search(r"# exit (\d+)\s*$", line)
        done = subprocess.run(
            ["bash", "-c", line], cwd=folder, env={**os.environ, "PATH": path},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
        )  # fmt: skip
        expected = int(status[1]) if status else 0
        assert done.returncode == expected, f"{block}: {line}\n{done.stdout[-3000:]}"
        printed.append(done.stdout)
    return "".join(printed)


# Runs each script it is sent (a JSON line: script, folder, log) as `__main__` in that folder,
# its stdout and stderr (the file descriptors, so a child's output too) into the log, and
# answers with the exit status on its own stdout.
DRIVER = """
import json, os, runpy, sys, traceback
answer = os.fdopen(os.dup(1), "w")
for request in sys.stdin:
    script, folder, log = json.loads(request)
    saved = os.dup(1), os.dup(2)
    with open(log, "wb") as printed:
        os.dup2(printed.fileno(), 1)
        os.dup2(printed.fileno(), 2)
        os.chdir(folder)
        try:
            runpy.run_path(script, run_name="__main__")
            status = 0
        except SystemExit as done:
            status = done.code if isinstance(done.code, int) else int(done.code is not None)
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
    print(status, file=answer, flush=True)
"""


class PythonBlocks:
    """One Python process for a page's ```python blocks, each run as a script of its own
    (fresh globals, `__main__`): torch and JAX are imported once a page, and never in the
    pytest worker, which forks later."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.process: subprocess.Popen[str] | None = None

    def run(self, block: Block, folder: Path) -> str:
        """Run the block in `folder`; what it printed (stdout and stderr), after it exited 0."""
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-c", DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True,
            )  # fmt: skip
        script, log = (
            self.scratch / f"block{block.line}.py",
            self.scratch / f"block{block.line}.log",
        )
        script.write_text(block.text)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps([str(script), str(folder), str(log)]) + "\n")
        self.process.stdin.flush()
        if not select.select([self.process.stdout], [], [], 600)[0]:
            self.process.kill()
            raise AssertionError(f"{block}: still running after 600 s")
        status = self.process.stdout.readline()
        printed = log.read_text() if log.exists() else ""
        assert status.strip() == "0", f"{block}: exit {status.strip() or 'lost'}\n{printed[-3000:]}"
        return printed

    def close(self) -> None:
        if self.process is not None:
            self.process.communicate(timeout=60)


def check_output(block: Block, printed: str) -> None:
    """Each line the page shows appears in `printed`, in order; `...` stands for any text."""
    lines = printed.splitlines()
    at = 0
    for expected in (block.output or "").splitlines():
        if expected.strip() in ("", "..."):
            continue
        pattern = re.compile(".*".join(map(re.escape, expected.rstrip().split("..."))))
        at = next(
            (i + 1 for i in range(at, len(lines)) if pattern.fullmatch(lines[i].rstrip())), -1
        )
        assert at > 0, f"{block}: no line like {expected!r} (in order) in:\n{printed[-3000:]}"


def run_page(page: Path, folder: Path, *, tensorflow: bool) -> int:
    """Run the page's blocks in order in `folder`: those that need TensorFlow or the others."""
    scratch = folder.with_name(folder.name + "-scripts")
    scratch.mkdir()
    python = PythonBlocks(scratch)
    try:
        return _run_blocks(page, folder, python, tensorflow=tensorflow)
    finally:
        python.close()


def _run_blocks(page: Path, folder: Path, python: PythonBlocks, *, tensorflow: bool) -> int:
    ran = 0
    for block in blocks(page):
        if "file" in block.markers:
            (folder / block.markers["file"]).write_text(block.text)
            continue
        if block.language not in RUNNABLE or "not run" in block.markers:
            continue
        if ("needs" in block.markers) != tensorflow:
            continue
        where = ROOT if block.markers.get("cwd") == "repository" else folder
        if block.language == "sh":
            printed = _run_sh(block, where)
        else:
            printed = python.run(block, where)
        if block.output is not None:
            check_output(block, printed)
        ran += 1
    return ran


def test_every_snippet_is_run_or_says_why_not() -> None:
    """No fence without a language, commands only as `sh` or `python` (another spelling would
    never run), no unknown marker, few blocks left unrun."""
    not_run = []
    for page in PAGES:
        for block in blocks(page):
            assert block.language, f"{block}: a fence without a language"
            spelled = {"bash": "sh", "shell": "sh", "console": "sh", "py": "python"}
            assert block.language not in spelled, f"{block}: spell it {spelled[block.language]}"
            assert set(block.markers) <= {"file", "not run", "needs", "cwd"}, str(block)
            assert block.markers.get("needs", "tensorflow") == "tensorflow", str(block)
            assert block.markers.get("cwd", "repository") == "repository", str(block)
            if "not run" in block.markers:
                assert block.markers["not run"].strip(), f"{block}: say why it is not run"
                not_run.append(str(block))
    assert 0 < len(not_run) <= MOST_NOT_RUN, not_run


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_page_snippets_run_as_printed(page: Path, tmp_path: Path) -> None:
    run_page(page, tmp_path, tensorflow=False)


@needs_tensorflow
def test_tensorflow_snippets_run_as_printed(tmp_path: Path) -> None:
    ran = 0
    for page in PAGES:
        (tmp_path / page.stem).mkdir()
        ran += run_page(page, tmp_path / page.stem, tensorflow=True)
    assert ran > 0
    assert (tmp_path / "pytorch" / "mlp_saved" / "saved_model.pb").is_file()


PATH = re.compile(r"`((?:tests|tools|python|passes|benchmarks|examples|docs)/[^`\s]*)`")


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_path_and_test_a_page_names_exists(page: Path) -> None:
    """`tests/lit/passes/x.mlir`, `tests/lit/translate/serialize*.mlir`,
    `tests/python/test_x.py::test_y`, `tools/x.py:function`."""
    for named in PATH.findall(page.read_text()):
        path, _, test = named.partition("::")
        path = path.split(":")[0]
        assert list(ROOT.glob(path)), f"{_page_id(page)} names {path}, which does not exist"
        if test:
            assert f"def {test}(" in (ROOT / path).read_text(), f"{_page_id(page)}: {named}"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_link_between_pages_leads_somewhere(page: Path) -> None:
    """Relative links reach a file, and `#anchor`s a heading of it (GitHub's slugs)."""
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if "://" in target:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{_page_id(page)} links to {target}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.*)$", linked.read_text(), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{_page_id(page)} links to {target}: no such heading"


def test_the_demo_table_is_the_one_the_demo_prints() -> None:
    """The README shows the demo's output (the demo is not run here: test_demo.py runs its
    path): its columns are those the demo's table prints, in that order."""
    (table,) = [b.text for b in blocks(ROOT / "README.md") if b.text.startswith("model ")]
    header = re.split(r"\s{2,}", table.splitlines()[0].strip())
    source = (ROOT / "python" / "shlo" / "tools" / "demo.py").read_text()
    positions = [source.find(f"'{column}'") for column in header]
    assert -1 not in positions and positions == sorted(positions), positions


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
