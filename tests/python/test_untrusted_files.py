"""Every file in and out through one guarded path (issue 34): outputs written through symlinks
and to open descriptors, companions checked against what they were made from, sizes checked
before allocating, bundles read only from their own regular files, and user mistakes that
end in one line and exit 1 instead of "a bug in shlo".

The commands run as users run them, in child processes, so that a hang, a signal or a
traceback shows as the command's own failure."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import platform
import random
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import LIT_INPUTS, as_foreground_job

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_BUNDLE = FIXTURES / "torch_xla_bundle"
ADD = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
_TOOLS = {"shlo": "shlo.tools.cli", "shlo-opt": "shlo.tools.opt_main",
          "shlo-translate": "shlo.tools.translate_main"}  # fmt: skip


def run(tool: str, *args: str, memory: int | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`tool args` as a command (a child process; `memory`: its address-space limit)."""

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    if "stdout" not in kwargs:
        kwargs.setdefault("capture_output", True)
    return subprocess.run(
        [sys.executable, "-m", _TOOLS[tool], *map(str, args)],
        text=True, timeout=kwargs.pop("timeout", 120), preexec_fn=limit, **kwargs,
    )  # fmt: skip


def one_line_failure(done: subprocess.CompletedProcess, *words: str) -> str:
    """The command failed with exit 1 and one line on stderr holding `words`."""
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "a bug in shlo" not in lines[0], lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def leftovers(*folders: Path) -> list[str]:
    """Scratch files an output left behind."""
    return [p.name for folder in folders for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture(scope="module")
def add_vmfb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("add")
    (folder / "add.mlir").write_text(ADD)
    done = run("shlo", "compile", folder / "add.mlir", "-o", folder / "add.vmfb")
    assert done.returncode == 0, done.stderr
    return folder / "add.vmfb"


# Outputs: through symlinks to their target, in place to descriptors and devices.


@pytest.mark.parametrize("tool", ["shlo-opt", "shlo-translate"])
def test_an_output_symlink_stays_a_link_and_its_target_is_written(tmp_path, tool) -> None:
    source, real, link = tmp_path / "x.mlir", tmp_path / "real" / "out.mlir", tmp_path / "l.mlir"
    source.write_text(ADD)
    real.parent.mkdir()
    real.write_text("old\n")
    link.symlink_to(real)
    done = run(tool, source, "-o", link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "stablehlo.add" in real.read_text()
    # A failure leaves the target as it was, and no scratch file beside the link or the target.
    real.write_text("old\n")
    done = run(tool, LIT_INPUTS / "malformed.mlir", "-o", link)
    assert done.returncode == 1
    assert real.read_text() == "old\n" and link.is_symlink()
    assert leftovers(tmp_path, real.parent) == []


def test_compile_and_json_write_through_symlinks(tmp_path, add_vmfb) -> None:
    real_vmfb, real_json = tmp_path / "real.vmfb", tmp_path / "real.json"
    real_vmfb.write_bytes(b"old")
    real_json.write_text("old")
    (tmp_path / "m.vmfb").symlink_to(real_vmfb)
    (tmp_path / "r.json").symlink_to("real.json")  # relative, as `ln -s` makes them
    (tmp_path / "x.mlir").write_text(ADD)
    done = run("shlo", "compile", tmp_path / "x.mlir", "-o", tmp_path / "m.vmfb")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "m.vmfb").is_symlink() and real_vmfb.read_bytes() != b"old"
    done = run("shlo", "run", tmp_path / "m.vmfb", "--input=4xf32=1", "--json", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.json").is_symlink()
    assert json.loads(real_json.read_text())["results"] == ["4xf32=2 2 2 2"]


def test_dev_stdout_writes_to_the_descriptor_the_shell_opened(tmp_path) -> None:
    """`/dev/fd/1` here: a shlo without the fix would rename its scratch file over the system's
    `/dev/stdout` symlink (as root, it could), which is what this guards against."""
    from shlo.ir.output import resolve

    assert resolve("/dev/stdout").descriptor == resolve("/proc/self/fd/1").descriptor == 1
    assert resolve("/dev/stderr").descriptor == 2
    (tmp_path / "x.mlir").write_text(ADD)
    out = tmp_path / "out.txt"
    with open(out, "w") as stdout:
        done = run("shlo-opt", tmp_path / "x.mlir", "-o", "/dev/fd/1", stdout=stdout,
                   stderr=subprocess.PIPE)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "stablehlo.add" in out.read_text()
    out.write_text("kept\n")
    with open(out, "a") as stdout:  # `>>`: appended after what is there
        done = run("shlo-opt", tmp_path / "x.mlir", "-o", "/dev/fd/1", stdout=stdout,
                   stderr=subprocess.PIPE)  # fmt: skip
    assert out.read_text().startswith("kept\nmodule {")
    assert leftovers(tmp_path) == []


def test_devices_and_fifos_are_written_in_place(tmp_path) -> None:
    (tmp_path / "x.mlir").write_text(ADD)
    assert run("shlo-opt", tmp_path / "x.mlir", "-o", "/dev/null").returncode == 0
    assert Path("/dev/null").is_char_device()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_bytes()))
    reader.start()
    done = run("shlo-opt", tmp_path / "x.mlir", "-o", fifo)
    reader.join(60)
    assert done.returncode == 0, done.stderr
    assert b"stablehlo.add" in read[0] and fifo.is_fifo()


def test_an_interrupted_output_leaves_the_old_file_and_no_scratch(tmp_path) -> None:
    from shlo.ir.output import AtomicOutput, atomic_path

    real = tmp_path / "real.bin"
    real.write_bytes(b"old")
    (tmp_path / "link.bin").symlink_to(real)
    for path in (real, tmp_path / "link.bin"):
        with pytest.raises(KeyboardInterrupt), AtomicOutput(str(path)) as out:
            out.stream.write(b"half")
            raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt), atomic_path(path) as scratch:
            scratch.write_bytes(b"half")
            raise KeyboardInterrupt
    assert real.read_bytes() == b"old" and leftovers(tmp_path) == []
    with atomic_path(tmp_path / "link.bin") as scratch:
        scratch.write_bytes(b"new")
    assert real.read_bytes() == b"new" and (tmp_path / "link.bin").is_symlink()


def test_a_dangling_symlink_creates_its_target(tmp_path) -> None:
    from shlo.ir.output import AtomicOutput

    (tmp_path / "link").symlink_to("made.txt")
    with AtomicOutput(str(tmp_path / "link")) as out:
        out.stream.write(b"made")
        out.commit()
    assert (tmp_path / "made.txt").read_bytes() == b"made" and (tmp_path / "link").is_symlink()


def test_outputs_under_a_replaced_stdout(tmp_path) -> None:
    """A caller that swapped `sys.stdout` for a text stream still writes files, and `-` goes
    into that stream, a character split between writes included."""
    import contextlib
    import io

    from shlo.ir.output import AtomicOutput, write_file

    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        write_file(tmp_path / "out.bin", b"\x00\xff bytes")
        with AtomicOutput("-") as out:
            out.stream.write("caf\u00e9 ".encode()[:-2])
            out.stream.write("caf\u00e9 ".encode()[-2:] + b"\xff")
            out.commit()
        write_file("-", b"!\n")
    assert (tmp_path / "out.bin").read_bytes() == b"\x00\xff bytes"
    assert captured.getvalue() == "caf\u00e9 \udcff!\n"
    assert leftovers(tmp_path) == []


def test_a_folder_output_replaces_the_folder_a_symlink_names(tmp_path) -> None:
    """SavedModels are written this way (TensorFlow is not needed to test the folder swap)."""
    from shlo.errors import OutputError
    from shlo.ir.output import atomic_folder

    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir()
    (real / "saved_model.pb").write_text("old")
    link.symlink_to(real)
    with atomic_folder(link, "SavedModel", "saved_model.pb") as built:
        built.mkdir()
        (built / "saved_model.pb").write_text("new")
    assert link.is_symlink() and (real / "saved_model.pb").read_text() == "new"
    swap = atomic_folder(link, "SavedModel", "saved_model.pb")
    with pytest.raises(KeyboardInterrupt), swap as built:
        built.mkdir()
        (built / "saved_model.pb").write_text("half")
        raise KeyboardInterrupt
    assert (real / "saved_model.pb").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]  # no scratch left
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(OutputError, match="mine exists and is not a SavedModel: not replacing it"):
        with atomic_folder(tmp_path / "mine", "SavedModel", "saved_model.pb"):
            pass
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_npy_outputs_go_through_symlinks_and_append(tmp_path, add_vmfb) -> None:
    real = tmp_path / "real.npy"
    np.save(real, np.zeros(2, np.float32))
    (tmp_path / "out.npy").symlink_to(real)
    done = run(
        "shlo", "run", add_vmfb, "--input=4xf32=1", "--output=+@" + str(tmp_path / "out.npy")
    )
    assert done.returncode == 0, done.stderr
    with open(real, "rb") as stream:
        first, second = np.load(stream), np.load(stream)
    assert first.tolist() == [0, 0] and second.tolist() == [2, 2, 2, 2]
    assert (tmp_path / "out.npy").is_symlink()
    # A save that fails after its header (numpy refuses objects there) leaves the file whole.
    from shlo.runtime.value_syntax import save_value

    before = real.read_bytes()
    for target in ("@", "+@"):
        with pytest.raises(ValueError):
            save_value(target + str(tmp_path / "out.npy"), np.array([{}], dtype=object))
        assert real.read_bytes() == before and leftovers(tmp_path) == []


# Companions: an encoded archive, a cache entry, checked against what they were made from.


def _weights_module(path: Path, seed: int) -> None:
    """A module with a 64x64 f32 weight of random values (big enough for the archive)."""
    generator = random.Random(seed)
    data = b"".join(struct.pack("<f", generator.uniform(-1, 1)) for _ in range(64 * 64))
    path.write_text(
        "func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {\n"
        f'  %w = stablehlo.constant dense<"0x{data.hex().upper()}"> : tensor<64x64xf32>\n'
        "  %0 = stablehlo.dot %x, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> "
        "tensor<64x64xf32>\n  return %0 : tensor<64x64xf32>\n}\n"
    )


def test_an_encoded_archive_of_other_weights_is_refused(tmp_path) -> None:
    for name, seed in (("mine", 1), ("other", 2)):
        (tmp_path / name).mkdir()
        _weights_module(tmp_path / name / "m.mlir", seed)
        done = run("shlo", "compile", tmp_path / name / "m.mlir", "--parameters",
                   tmp_path / name / "w.irpa", "-o", tmp_path / name / "m.vmfb")  # fmt: skip
        assert done.returncode == 0, done.stderr
    mine = tmp_path / "mine"
    args = ("run", mine / "m.vmfb", "--parameters", mine / "w.irpa", "--input=64x64xf32=1")
    assert run("shlo", *args).returncode == 0
    shutil.copy(tmp_path / "other" / "w.encoded.irpa", mine / "w.encoded.irpa")
    one_line_failure(run("shlo", *args), "w.encoded.irpa was packed from other weights")
    (mine / "w.encoded.irpa").write_bytes((mine / "w.irpa").read_bytes()[:300])
    one_line_failure(run("shlo", *args), "w.encoded.irpa")
    # A record of another shape than the encoder writes (hostile, not damaged): refused too.
    from shlo.runtime.archives import MADE_FROM, stale_encoding
    from shlo.runtime.bindings import ireert

    for record in HOSTILE_JSON + ['{"model": 5}', '["model"]', '{"model": {"size": 1e999}}']:
        index = ireert.ParameterIndex()
        index.add_buffer(MADE_FROM, np.frombuffer(record.encode(), np.uint8), metadata=record)
        index.create_archive_file(str(mine / "w.encoded.irpa"))
        assert "does not record which archive" in (stale_encoding(mine / "w.irpa") or ""), record
    one_line_failure(run("shlo", *args), "w.encoded.irpa does not record which archive")
    # An entry name that is not UTF-8 (a damaged packed copy): one line naming it.
    index = ireert.ParameterIndex()
    index.add_buffer("entryname", np.zeros(4, np.uint8))
    index.create_archive_file(str(mine / "w.encoded.irpa"))
    data = (mine / "w.encoded.irpa").read_bytes()
    (mine / "w.encoded.irpa").write_bytes(data.replace(b"entryname", b"entry\xffame"))
    one_line_failure(run("shlo", *args), "w.encoded.irpa: an entry's name is not UTF-8")


# JSON that Python's reader takes but no int conversion survives, nested past its recursion, a
# bad escape, an int too long to convert: what a hostile metadata file can hold.
HOSTILE_JSON = [
    "Infinity",
    "[NaN]",
    '{"a": [1e999]}',
    "-1e999",
    "[" * 100000,
    '"\\u12"',
    "1" * 5000,
]


@pytest.mark.parametrize("text", [*HOSTILE_JSON, b'{"a": "\xff"}'])
def test_hostile_json_is_one_error_naming_its_file(text) -> None:
    from shlo.runtime.untrusted import UntrustedFileError, load_json

    with pytest.raises(UntrustedFileError, match=r"^m\.json: (not valid JSON|JSON nested)"):
        load_json(text, "m.json")
    assert load_json('{"shape": [2, 1.5e3], "n": null}', "m.json") == {
        "shape": [2, 1500.0],
        "n": None,
    }


def test_a_truncated_archive_is_one_line_naming_it(tmp_path) -> None:
    _weights_module(tmp_path / "m.mlir", 1)
    run("shlo", "compile", tmp_path / "m.mlir", "--parameters", tmp_path / "w.irpa",
        "-o", tmp_path / "m.vmfb")  # fmt: skip
    cut = tmp_path / "cut.irpa"
    cut.write_bytes((tmp_path / "w.irpa").read_bytes()[:5000])
    done = run("shlo", "run", tmp_path / "m.vmfb", "--parameters", cut, "--input=64x64xf32=1")
    one_line_failure(done, "cannot read the parameter archive", "cut.irpa")


# Offsets IREE's archive reader adds without checking for overflow (each a SIGSEGV in the
# process that reads the archive): the next header's, the entry table's, the metadata's.
@pytest.mark.parametrize("field", [16, 40, 56])
def test_archive_offsets_past_the_end_are_one_line(tmp_path, field) -> None:
    from shlo.runtime.bindings import ireert

    index = ireert.ParameterIndex()
    index.add_buffer("w", np.ones(64, np.float32))
    index.create_archive_file(str(tmp_path / "w.irpa"))
    damaged = bytearray((tmp_path / "w.irpa").read_bytes())
    struct.pack_into("<Q", damaged, field, 2**64 - 1)
    (tmp_path / "w.irpa").write_bytes(damaged)
    script = f"""
from shlo.errors import ShloError
from shlo.runtime.archives import load_index
try:
    load_index({str(tmp_path / "w.irpa")!r})
except ShloError as error:
    print(error)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, (done.returncode, done.stderr)
    said = f"cannot read the parameter archive {tmp_path / 'w.irpa'}: damaged ("
    assert done.stdout.startswith(said), done


def test_a_damaged_cache_entry_is_evicted_and_rebuilt(tmp_path) -> None:
    """Each step in a process of its own, so only the cache on disk carries over."""
    compile_add = f"""
import sys
from shlo.backend.compile import compile_module
from shlo.ir.module import parse_source
from shlo.ir.source import Source
from shlo.ir.stablehlo import WORLD
from shlo.ir.worlds import ContextPolicy
from shlo.runtime.loaded import LoadedModule
module = parse_source(WORLD, WORLD.make_context(ContextPolicy()), Source("x", {ADD!r}.encode()))
compiled = compile_module(module, use_cache=True)
LoadedModule(compiled.vmfb)
print(compiled.cached)
"""
    environment = {**os.environ, "SHLO_CACHE_DIR": str(tmp_path)}

    def compile_once() -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-c", compile_add], capture_output=True,
                              text=True, env=environment, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    assert compile_once().stdout.strip() == "False"
    (entry,) = tmp_path.glob("*.vmfb")
    entry.write_bytes(entry.read_bytes()[:-100])
    rebuilt = compile_once()
    assert rebuilt.stdout.strip() == "False"
    (line,) = rebuilt.stderr.strip().splitlines()
    assert "the cached compile" in line and str(tmp_path) in line and "damaged" in line
    again = compile_once()
    assert again.stdout.strip() == "True" and again.stderr == ""


def test_a_damaged_pass_list_in_the_cache_is_computed_anew(tmp_path) -> None:
    """The cached list of passes (and StableHLO's version) is sealed like a compile: a damaged
    one is one line naming it, never "a bug in shlo", and is rebuilt."""
    environment = {**os.environ, "SHLO_CACHE_DIR": str(tmp_path / "cache")}
    for argument in ("--version", "--list-passes"):
        done = run("shlo-opt", argument, env=environment)
        assert done.returncode == 0, done.stderr
    for entry in (tmp_path / "cache").iterdir():
        entry.write_bytes(b"\xff" + entry.read_bytes()[:100])
    for argument in ("--version", "--list-passes"):
        done = run("shlo-opt", argument, env=environment)
        assert done.returncode == 0, done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert "is damaged" in line and str(tmp_path / "cache") in line, line
        done = run("shlo-opt", argument, env=environment)
        assert done.returncode == 0 and done.stderr == "", done.stderr


# Sizes: checked against the machine and the file before anything is allocated.

_FOUR_GIB = 4 << 30


@pytest.mark.parametrize("command", ["run", "import"])
def test_a_huge_shape_is_refused_before_allocating(add_vmfb, command) -> None:
    model = add_vmfb if command == "run" else "shlo.tools.demo_models:MLP"
    done = run("shlo", command, model, "--input=100000x100000xf32=0", memory=_FOUR_GIB)
    one_line_failure(done, "100000x100000xf32=0", "more than half the memory free here")


def test_an_npy_header_larger_than_its_file_is_refused(tmp_path, add_vmfb) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }"
    header += " " * (117 - len(header)) + "\n"
    big = tmp_path / "big.npy"
    big.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    done = run("shlo", "run", add_vmfb, f"--input=@{big}", memory=_FOUR_GIB)
    one_line_failure(done, "big.npy", "announces float32[100000, 100000]")


def test_module_text_that_is_not_utf8_is_one_line(tmp_path, add_vmfb) -> None:
    """A damaged `.vmfb` whose signature text is no UTF-8: the bindings raise a bare
    RuntimeError reading it, which must not read as a bug in shlo."""
    data = add_vmfb.read_bytes()
    at = data.index(b"sync func @main") + len(b"sync func")
    (tmp_path / "m.vmfb").write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    for command in ("run", "bench"):
        done = run("shlo", command, tmp_path / "m.vmfb", "--input=4xf32=1")
        one_line_failure(done, "damaged", "signature of 'main' is not UTF-8")


def test_a_fifo_input_is_refused_not_waited_on(tmp_path, add_vmfb) -> None:
    os.mkfifo(tmp_path / "x.npy")
    done = run("shlo", "run", add_vmfb, f"--input=@{tmp_path / 'x.npy'}", timeout=60)
    one_line_failure(done, "x.npy", "not a regular file")


# Bundles: only their own regular files.


def test_a_bundle_symlink_out_of_the_bundle_is_refused(tmp_path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(FIXTURE_BUNDLE, bundle)
    secret = tmp_path / "secret.npy"
    shutil.copy(bundle / "data" / "fc.bias", secret)
    (bundle / "data" / "fc.bias").unlink()
    (bundle / "data" / "fc.bias").symlink_to(secret)
    done = run("shlo", "compile", bundle, "-o", tmp_path / "b.vmfb")
    one_line_failure(done, "fc.bias", "outside")
    assert not (tmp_path / "b.vmfb").exists()


def test_a_bundle_fifo_is_refused_not_waited_on(tmp_path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(FIXTURE_BUNDLE, bundle)
    (bundle / "data" / "fc.bias").unlink()
    os.mkfifo(bundle / "data" / "fc.bias")
    done = run("shlo", "compile", bundle, "-o", tmp_path / "b.vmfb", timeout=60)
    one_line_failure(done, "fc.bias", "a FIFO")


def test_a_bundle_npy_header_larger_than_its_file_is_refused(tmp_path) -> None:
    """A weight whose header announces 10^10 elements: refused by name before allocating."""
    bundle = tmp_path / "bundle"
    shutil.copytree(FIXTURE_BUNDLE, bundle)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }"
    header += " " * (117 - len(header)) + "\n"
    (bundle / "data" / "fc.bias").write_bytes(
        b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
    )
    done = run("shlo", "run", bundle, "--input=2x4xf32=1", memory=_FOUR_GIB)
    one_line_failure(done, "fc.bias", "announces float32[100000, 100000]", "only 0 bytes follow")


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda meta: meta["input_signature"][0].update(shape=[1e999]), "forward.meta"),
        (lambda meta: meta["input_locations"][0].update(position=1e999), "forward.meta"),
        (lambda meta: meta.update(input_pytree_spec="[" * 100_000), "unreadable pytree spec"),
    ],
    ids=["shape", "position", "nested-spec"],
)
def test_hostile_bundle_metadata_is_one_line(tmp_path, edit, said) -> None:
    """Numbers no int conversion survives, and nesting past the reader's recursion: refused
    by the metadata file's name, never a traceback."""
    bundle = tmp_path / "bundle"
    shutil.copytree(FIXTURE_BUNDLE, bundle)
    path = bundle / "functions" / "forward.meta"
    meta = json.loads(path.read_text())
    edit(meta)
    path.write_text(json.dumps(meta))
    done = run("shlo", "run", bundle, "--input=2x4xf32=1")
    one_line_failure(done, said)


# How a corrupted heap ends the reader depends on the heap's layout (the paths, the modules
# loaded): one of glibc's checks aborts, saying which, or a pointer read from the damage faults.
HEAP_DEATHS = r"SIGABRT: [a-z]|SIGSEGV"


@pytest.mark.parametrize(
    ("damaged", "deaths"),
    [
        (LIT_INPUTS / "reader_crash.mlirbc", "SIGABRT"),
        (FIXTURES / "reader_segfault.mlirbc", "SIGSEGV"),
        (FIXTURES / "reader_heap_corruption.mlirbc", HEAP_DEATHS),
    ],
)
def test_bytecode_that_crashes_the_reader_is_one_line(tmp_path, damaged, deaths) -> None:
    """The issue's `shlo compile` and `shlo run BUNDLE`: each death of the reader (an abort, a
    SIGSEGV, a heap it corrupted) is one line naming the file and the signal."""
    crashed = re.compile(rf"bytecode reader crashed on this input \(({deaths})")
    done = run("shlo", "compile", damaged, "-o", tmp_path / "x.vmfb")
    assert crashed.search(one_line_failure(done, damaged.name))
    assert not (tmp_path / "x.vmfb").exists()
    bundle = tmp_path / "bundle"
    shutil.copytree(FIXTURE_BUNDLE, bundle)
    shutil.copy(damaged, bundle / "functions" / "forward.bytecode")
    done = run("shlo", "run", bundle, "--input=2x4xf32=1")
    assert crashed.search(one_line_failure(done, "forward.bytecode"))


def test_a_damaged_portable_artifact_from_python_is_a_shlo_error(tmp_path) -> None:
    """`shlo.ir.portable.deserialize` reads untrusted bytes as the commands do: one bit that
    corrupts the reader's heap, and an artifact cut short, are each a ShloError, and the
    caller goes on and exits cleanly."""
    done = run("shlo-translate", "--serialize", "-o", tmp_path / "x.vhlo", input=ADD)
    assert done.returncode == 0, done.stderr
    artifact = (tmp_path / "x.vhlo").read_bytes()
    (tmp_path / "cut.vhlo").write_bytes(artifact[:100])
    flipped = bytearray(artifact)
    flipped[50] ^= 0x80  # found by the fuzzing battery: "double free or corruption"
    (tmp_path / "flipped.vhlo").write_bytes(flipped)
    script = f"""
from pathlib import Path
from shlo.errors import ShloError
from shlo.ir.portable import deserialize
for name in ("flipped", "cut"):
    try:
        deserialize(Path({str(tmp_path)!r}, name + ".vhlo").read_bytes(), name)
    except ShloError as error:
        print(error)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    flipped, cut = done.stdout.strip().splitlines()
    assert flipped.startswith("flipped: ") and cut.startswith("cut: "), done.stdout


def test_bytes_of_the_file_quoted_by_the_reader_stay_on_its_line(tmp_path) -> None:
    """A producer string that runs on into the sections (its NUL gone) is quoted by the bytecode
    reader's note as it is, newlines and control characters included: each is shown escaped, so
    every diagnostic keeps to its own line."""
    done = run("shlo-translate", "--serialize", "-o", tmp_path / "x.vhlo", input=ADD)
    assert done.returncode == 0, done.stderr
    artifact = (tmp_path / "x.vhlo").read_bytes()
    end = artifact.index(b"\0")
    (tmp_path / "runs_on.vhlo").write_bytes(artifact[:end] + b"\n\x01" + artifact[end + 1 :])
    for tool in ("shlo-opt", "shlo-translate --deserialize", "shlo compile"):
        done = run(*tool.split(), tmp_path / "runs_on.vhlo", "-o", tmp_path / "out")
        assert done.returncode == 1, done.stderr
        produced = [line for line in done.stderr.splitlines() if "produced by: " in line]
        assert len(produced) == 1 and "\\x0a\\x01" in produced[0], done.stderr
        assert all(
            re.match(r"(\S+:\d+:\d+|<unknown>:0): (error|note): |shlo", line)
            for line in done.stderr.splitlines()
        ), done.stderr


# Native deaths: damaged bytecode and damaged code, from the commands and from Python.

_UD2, _JUMP_TO_ITSELF = b"\x0f\x0b", b"\xeb\xfe"  # x86-64: an illegal instruction; `jmp .`
x86_64 = pytest.mark.skipif(platform.machine() != "x86_64", reason="writes x86-64 code")


def _with_code(vmfb: bytes, instruction: bytes, *, loader_too: bool = False) -> bytes:
    """`vmfb` with the code of its embedded ELF replaced by `instruction` over and over: the
    dispatches only, or (`loader_too`) the library query IREE calls while loading it too."""
    damaged = bytearray(vmfb)
    start = damaged.find(b"\x7fELF")
    elf = memoryview(damaged)[start:]
    (table,) = struct.unpack_from("<Q", elf, 0x28)
    count, names_index = struct.unpack_from("<HH", elf, 0x3C)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, table + 64 * i) for i in range(count)]
    names = sections[names_index][4]
    by_name = {bytes(elf[names + s[0] : names + s[0] + 16]).split(b"\0")[0]: s for s in sections}
    _, _, _, text_address, text_offset, text_size, *_ = by_name[b".text"]
    kept: list[range] = []
    symbols = by_name[b".dynsym"]
    for index in range(symbols[5] // 24 if not loader_too else 0):
        *_, address, size = struct.unpack_from("<IBBHQQ", elf, symbols[4] + 24 * index)
        kept.append(range(address - text_address, address - text_address + size))
    for offset in range(0, text_size - 1, 2):
        if not any(offset in r or offset + 1 in r for r in kept):
            elf[text_offset + offset : text_offset + offset + 2] = instruction
    return bytes(damaged)


@x86_64
def test_python_callers_outlive_damaged_modules(tmp_path, add_vmfb) -> None:
    """The issue's SIGSEGV and heap corruption (bytecode: parsed in process, that one raises a
    ParseError, and the process aborts at exit) and SIGILL (code), from `shlo.load` and
    `LoadedModule`: each is one ShloError, and the caller goes on and exits cleanly."""
    valid = add_vmfb.read_bytes()
    (tmp_path / "ill.vmfb").write_bytes(_with_code(valid, _UD2))
    (tmp_path / "ill-loader.vmfb").write_bytes(_with_code(valid, _UD2, loader_too=True))
    (tmp_path / "cut.vmfb").write_bytes(valid[: len(valid) // 2])
    script = f"""
import numpy as np
import shlo
from shlo.errors import ShloError
from shlo.runtime.loaded import LoadedModule
attempts = [
    lambda: shlo.load({str(LIT_INPUTS / "reader_crash.mlirbc")!r}),
    lambda: shlo.load({str(FIXTURES / "reader_segfault.mlirbc")!r}),
    lambda: shlo.load({str(FIXTURES / "reader_segfault.mlirbc")!r}, world="iree"),
    lambda: shlo.load({str(FIXTURES / "reader_heap_corruption.mlirbc")!r}),
    lambda: LoadedModule({str(tmp_path / "ill.vmfb")!r})("main", np.ones(4, np.float32)),
    lambda: LoadedModule(open({str(tmp_path / "ill-loader.vmfb")!r}, "rb").read()),
    lambda: LoadedModule({str(tmp_path / "cut.vmfb")!r}),
]
for attempt in attempts:
    try:
        attempt()
        print("no error")
    except ShloError as error:
        print(error)
print("still here")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.returncode, done.stderr)
    lines = done.stdout.splitlines()
    assert len(lines) == 8 and lines[-1] == "still here", done.stdout
    crashed = "MLIR's bytecode reader crashed on this input"
    assert f"reader_crash.mlirbc: {crashed} (SIGABRT" in lines[0]
    for line in lines[1:3]:
        assert f"reader_segfault.mlirbc: {crashed} (SIGSEGV" in line
    assert re.search(rf"reader_heap_corruption.mlirbc: {crashed} \(({HEAP_DEATHS})", lines[3])
    assert lines[4].startswith(f"{tmp_path / 'ill.vmfb'}: the IREE runtime crashed (SIGILL")
    assert lines[5].startswith("the module: the IREE runtime crashed (SIGILL")
    assert lines[6].startswith("not a valid IREE module (.vmfb)")


@x86_64
def test_shlo_run_names_a_module_whose_code_crashes(tmp_path, add_vmfb) -> None:
    (tmp_path / "ill.vmfb").write_bytes(_with_code(add_vmfb.read_bytes(), _UD2))
    done = run("shlo", "run", tmp_path / "ill.vmfb", "--input=4xf32=1")
    one_line_failure(done, "crashed (SIGILL", "ill.vmfb")


@x86_64
def test_ctrl_c_ends_shlo_run_stuck_in_a_dispatch(tmp_path, add_vmfb) -> None:
    """A module whose code never returns holds its process in native code, where Python's
    Ctrl-C handler never runs: `shlo run` kills its child and exits 130."""
    (tmp_path / "loop.vmfb").write_bytes(_with_code(add_vmfb.read_bytes(), _JUMP_TO_ITSELF))
    command = [sys.executable, "-m", "shlo.tools.cli", "run", str(tmp_path / "loop.vmfb"),
               "--input=4xf32=1"]  # fmt: skip
    child = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_foreground_job,
    )
    try:
        _wait_for_a_spinning_child(child.pid)
        os.killpg(child.pid, signal.SIGINT)  # as a terminal sends it, to the whole group
        assert child.wait(30) == 130
        assert child.stderr.read().strip() == "shlo: interrupted"
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)


def _wait_for_a_spinning_child(parent: int) -> None:
    """Until a child of `parent` has spent two seconds on the CPU: stuck in the loop."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        for child in Path(f"/proc/{parent}/task/{parent}/children").read_text().split():
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[11]) > 2 * os.sysconf("SC_CLK_TCK"):  # utime, in clock ticks
                return
        time.sleep(0.2)
    raise AssertionError("shlo run's child never started looping")


def test_bytecode_the_reader_never_finishes_is_one_error(monkeypatch) -> None:
    """MLIR's reader loops forever on this damaged file; the child reading it is stopped."""
    import shlo
    from shlo.errors import UsageError
    from shlo.ir import bytecode_guard

    monkeypatch.setattr(bytecode_guard, "READ_SECONDS", 10)
    with pytest.raises(UsageError, match="still reading this input after 10 s"):
        shlo.load(FIXTURES / "reader_loop.mlirbc")


def test_a_byte_that_is_not_utf8_in_a_comment_is_read_as_mlir_reads_it(tmp_path) -> None:
    source = tmp_path / "latin1.mlir"
    source.write_bytes(ADD.replace("return", "// caf\xe9 in Latin-1\n  return").encode("latin-1"))
    for args in ((source,), (source, "-split-input-file"), ("-",)):
        with open(source, "rb") as stdin:
            done = run("shlo-opt", *args, stdin=stdin)
        assert done.returncode == 0 and "stablehlo.add" in done.stdout, done.stderr


# MLIR text nested past what MLIR's recursive parser reads without overflowing its stack (a
# native crash of the caller, from Python); strings, comments and `->` do not count.
DEEP = {
    "regions": "module {\n" * 20000 + ADD + "}\n" * 20000,
    "types": ADD.replace("tensor<4xf32>", "tuple<" * 50000 + "f32" + ">" * 50000, 1),
    "literals": ADD.replace("{\n", "{\n  %c = stablehlo.constant dense<" + "[" * 50000 + "1.0"
                            + "]" * 50000 + "> : tensor<4xf32>\n", 1),
}  # fmt: skip


@pytest.mark.parametrize("nesting", DEEP)
def test_text_nested_past_the_parsers_stack_is_one_line(tmp_path, nesting) -> None:
    source = tmp_path / "deep.mlir"
    source.write_text(DEEP[nesting])
    one_line_failure(run("shlo-opt", source), "deep.mlir: nested more than 1000 deep")
    script = (
        f"import shlo\ntry:\n    shlo.load({str(source)!r})\nexcept Exception as e:\n    print(e)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and "nested more than 1000 deep" in done.stdout, done


def test_brackets_in_strings_and_comments_are_not_nesting(tmp_path) -> None:
    brackets = "{[(<" * 2000
    attribute = f'{{note = "{brackets} \\\\ \\" {brackets}"}}'  # escaped: \\ and \"
    source = tmp_path / "flat.mlir"
    source.write_text(f"// {brackets}\n" + ADD.replace(") -> tensor<4xf32> {", ") -> tensor<4xf32> "
                      f"attributes {attribute} {{", 1))  # fmt: skip
    done = run("shlo-opt", source)
    assert done.returncode == 0 and "stablehlo.add" in done.stdout, done.stderr


# Mistakes that were "internal errors".


def test_bench_with_no_runs_names_the_flag(add_vmfb) -> None:
    one_line_failure(run("shlo", "bench", add_vmfb, "--runs", "0", "--input=4xf32=1"), "--runs 0")


@pytest.mark.parametrize(
    ("tool", "argv", "said"),
    [
        ("shlo-translate", ["--interpret", "--timeout", "nan", "x.mlir"],
         "shlo-translate: for the --timeout option: 'nan' value invalid"),
        ("shlo-translate", ["--serialize", "--target=1.0", "x.mlir", "-o", "x.vhlo"],
         "shlo-translate: target '1.0' is not a version like 1.0.0"),
        ("shlo-opt", ["bad_regex.mlir", "--verify-diagnostics"],
         "bad_regex.mlir:1:4: error: invalid regex: unterminated character set"),
    ],
)  # fmt: skip
def test_mistakes_in_arguments_and_files_name_them(tmp_path, capsys, tool, argv, said) -> None:
    """Each was "internal error ... a bug in shlo" (or, for the version, "not pure StableHLO")."""
    from shlo.tools.opt_main import main as opt_main
    from shlo.tools.translate_main import main as translate_main

    (tmp_path / "x.mlir").write_text(ADD)
    (tmp_path / "bad_regex.mlir").write_text("// expected-error-re @+1 {{a{{[unclosed}}b}}\n" + ADD)
    main = {"shlo-opt": opt_main, "shlo-translate": translate_main}[tool]
    try:
        status = main([str(tmp_path / a) if a.endswith((".mlir", ".vhlo")) else a for a in argv])
    except SystemExit as stop:  # argparse's errors
        status = stop.code
    assert status == 1
    error = capsys.readouterr().err
    lines = error.splitlines()  # one line, or MLIR's diagnostic: its line, the source, a caret
    assert len(lines) == 1 or (len(lines) == 3 and lines[2].strip() == "^"), error
    assert said in lines[0] and "a bug in shlo" not in error, error
    assert not (tmp_path / "x.vhlo").exists()


def test_json_on_stdout_is_only_json(add_vmfb) -> None:
    for command in (("run",), ("bench", "--runs", "2")):
        done = run("shlo", *command, add_vmfb, "--input=4xf32=1", "--json", "-")
        assert done.returncode == 0, done.stderr
        json.loads(done.stdout)  # nothing else on stdout
        assert done.stderr.strip()  # the human summary went here


def test_a_bad_integer_option_is_one_line_in_llvm_words(tmp_path) -> None:
    (tmp_path / "x.mlir").write_text(ADD)
    done = run("shlo-opt", tmp_path / "x.mlir", "--mlir-elide-elementsattrs-if-larger=abc")
    line = one_line_failure(done)
    assert line == (
        "shlo-opt: for the --mlir-elide-elementsattrs-if-larger option: 'abc' value invalid for "
        "uint argument!"
    )


def test_calls_from_python_name_the_count_and_the_int(tmp_path) -> None:
    script = """
import torch
from shlo.api import compile_torch
class Scale(torch.nn.Module):
    def forward(self, x, n: int):
        return x * n
compiled = compile_torch(Scale(), (torch.ones(2), 3))
for args in ((torch.ones(2),), (torch.ones(2), 2**70)):
    try:
        compiled(*args)
    except Exception as error:
        print(type(error).__name__, error)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.stdout.splitlines() == [
        "RunError expected 2 arguments, got 1",
        "RunError argument 1: the Python int 1180591620717411303424 does not fit in int64",
    ], done.stderr


# Every output option of every command, read from the parsers: each writes through a symlink
# to its target (the link stays a link), refuses a folder it cannot write in with one line, and
# writes a file to /dev/stdout (a folder output refuses it in one line).

# (tool, option) -> the command's arguments around `{out}`, whether it writes a file or a
# folder, and bytes the written output holds.
PROBE = """func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = interpreter.probe %0, probe_id = "p" : tensor<2xf32>
  func.return
}
"""
DIAGNOSTIC = re.compile(r"^.+:\d+:\d+: (?:error|warning|note): ")
NOT_FLAT = ADD + ADD.replace("@main", "@other")
MODEL = """import torch

def model():
    return torch.nn.Linear(4, 2)
"""
WRITES: dict[tuple[str, str], tuple[list[str], str, bytes]] = {
    ("shlo-opt", "--output"): (["{add}", "-o", "{out}"], "file", b"stablehlo.add"),
    ("shlo-opt", "--mlir-print-ir-tree-dir"): (
        ["{add}", "--canonicalize", "--mlir-print-ir-after-all",
         "--mlir-print-ir-tree-dir={out}", "-o", "/dev/null"], "folder", b"stablehlo.add"),
    ("shlo-opt", "--mlir-pass-pipeline-crash-reproducer"): (
        ["{not_flat}", "--canonicalize", "--shlo-verify-flat",
         "--mlir-pass-pipeline-crash-reproducer={out}"], "file", b"mlir_reproducer"),
    ("shlo-translate", "--output"): (["{add}", "--serialize", "-o", "{out}"], "file", b"ML\xefR"),
    ("shlo-translate", "--probe-output-dir"): (
        ["{probe}", "--interpret", "--probe-output-dir", "{out}"], "folder", b"NUMPY"),
    ("shlo compile", "--output"): (["compile", "{add}", "-o", "{out}"], "file", b"IREE"),
    ("shlo compile", "--parameters"): (
        ["compile", "{weights}", "--target", "vmvx", "--parameters", "{out}", "-o", "/dev/null"],
        "file", b"IRPA"),
    ("shlo compile", "--keep-temps"): (
        ["compile", "{add}", "--keep-temps", "{out}", "-o", "/dev/null"], "folder", b"stablehlo"),
    ("shlo run", "--json"): (
        ["run", "{vmfb}", "--input=4xf32=1", "--json", "{out}"], "file", b'"results"'),
    ("shlo run", "--output"): (
        ["run", "{vmfb}", "--input=4xf32=1", "--output=@{out}"], "file", b"NUMPY"),
    ("shlo bench", "--json"): (
        ["bench", "{vmfb}", "--input=4xf32=1", "--runs", "1", "--json", "{out}"], "file", b"{"),
    ("shlo compare", "--json"): (
        ["compare", "{add}", "--input=4xf32=1", "--device", "local-task", "--json", "{out}"],
        "file", b"{"),
    ("shlo import", "--output"): (
        ["import", "{model}:model", "--input", "1x4xf32", "-o", "{out}"], "file", b"func.func"),
    ("shlo import", "--bundle"): (
        ["import", "{model}:model", "--input", "1x4xf32", "--bundle", "{out}"], "folder", b"{"),
    ("shlo saved-model", "--output"): (["saved-model", "{bundle}", "-o", "{out}"], "folder", b""),
    ("shlo saved-model", "--output-value"): (
        ["saved-model", "{bundle}", "-o", "{scratch}", "--input=2x4xf32=1",
         "--output-value=@{out}"], "file", b"NUMPY"),
    ("shlo demo", "--output-dir"): (["demo", "--output-dir", "{out}"], "folder", b"report"),
}  # fmt: skip
# Commands too slow for every run (a torch import, every demo model), or that need TensorFlow.
SLOW_WRITES = {"shlo import", "shlo demo", "shlo compare"}
NEEDS_TENSORFLOW = {"shlo saved-model"}


def _options() -> dict[tuple[str, str], argparse.Action]:
    """Every option that takes a value, of every command, by (command, its first long name)."""
    from shlo.tools import cli, opt_main, translate_main

    parsers = {"shlo-opt": opt_main.build_parser(), "shlo-translate": translate_main.build_parser()}
    (commands,) = [a for a in cli.build_parser()._actions
                   if isinstance(a, argparse._SubParsersAction)]  # fmt: skip
    for name, parser in commands.choices.items():
        importlib.import_module(f"shlo.tools.commands.{parser.module}").add_arguments(parser)
        parsers[f"shlo {name}"] = parser
    return {(tool, next(o for o in action.option_strings if o.startswith("--"))): action
            for tool, parser in parsers.items() for action in parser._actions
            if action.option_strings and action.nargs != 0}  # fmt: skip


def test_every_option_that_writes_is_tested() -> None:
    """An option whose name or help speaks of writing, outputs, folders or reproducers is in
    WRITES (a new output option fails here until it is), and WRITES names real options."""
    options = _options()
    assert set(WRITES) <= set(options), set(WRITES) - set(options)
    writes = re.compile(r"output|json|dir\b|_dir|write|reproducer|bundle|keep", re.IGNORECASE)
    spoken = {key for key, action in options.items()
              if writes.search(f"{action.dest} {action.help or ''}")}  # fmt: skip
    values_only = {("shlo-opt", "--output-split-marker"), ("shlo-opt", "--emit-bytecode-version"),
                   ("shlo-translate", "--output-split-marker"), ("shlo import", "--output-type"),
                   ("shlo run", "--expected-output"), ("shlo saved-model", "--expected-output"),
                   ("shlo saved-model", "--name")}  # fmt: skip
    assert spoken - values_only <= set(WRITES), sorted(spoken - values_only - set(WRITES))


@pytest.fixture(scope="module")
def writer_inputs(tmp_path_factory: pytest.TempPathFactory, add_vmfb: Path) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("writers")
    files = {"add": ADD, "not_flat": NOT_FLAT, "probe": PROBE, "model": MODEL,
             "weights": _weights_text()}  # fmt: skip
    made = {name: str(folder / f"{name}.{'py' if name == 'model' else 'mlir'}") for name in files}
    for name, text in files.items():
        Path(made[name]).write_text(text)
    return {**made, "vmfb": str(add_vmfb), "bundle": str(FIXTURE_BUNDLE)}


def _weights_text() -> str:
    weights = np.random.default_rng(0).uniform(-1, 1, (64, 64)).astype(np.float32)
    return f"""func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {{
  %w = stablehlo.constant dense<"0x{weights.tobytes().hex().upper()}"> : tensor<64x64xf32>
  %0 = stablehlo.dot %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}}
"""


def _write_with(key: tuple[str, str], out: str, inputs: dict[str, str], scratch: Path,
                **kwargs: Any) -> subprocess.CompletedProcess:  # fmt: skip
    tool, _ = key
    arguments, _, _ = WRITES[key]
    filled = [a.format(out=out, scratch=scratch / "scratch", **inputs) for a in arguments]
    return run(tool.split()[0], *filled, timeout=600, **kwargs)


def _holds(path: Path, marker: bytes) -> bool:
    """Whether the file, or a file under the folder, at `path` holds `marker`."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return any(marker in p.read_bytes() for p in files)


def _params(keys: Any) -> list[Any]:
    return [pytest.param(key, id=" ".join(key),
                         marks=[pytest.mark.slow] if key[0] in SLOW_WRITES else [])
            for key in keys]  # fmt: skip


@pytest.mark.parametrize("key", _params(WRITES))
def test_every_output_writes_through_a_symlink(tmp_path, writer_inputs, key) -> None:
    if key[0] in NEEDS_TENSORFLOW and importlib.util.find_spec("tensorflow") is None:
        pytest.skip("needs TensorFlow")
    _, kind, marker = WRITES[key]
    real = tmp_path / "real" / ("target" if kind == "file" else "folder")
    real.parent.mkdir()
    if kind == "file":
        real.write_bytes(b"old")
    else:
        real.mkdir()
    (tmp_path / "link").symlink_to(real)
    done = _write_with(key, str(tmp_path / "link"), writer_inputs, tmp_path)
    assert done.returncode == (1 if "reproducer" in key[1] else 0), done.stderr
    assert (tmp_path / "link").is_symlink() and os.readlink(tmp_path / "link") == str(real)
    assert _holds(real, marker), sorted(real.parent.rglob("*"))
    assert leftovers(tmp_path, real.parent) == []


@pytest.mark.parametrize("key", _params(WRITES))
def test_every_output_into_a_read_only_folder_is_one_line(tmp_path, writer_inputs, key) -> None:
    if key[0] in NEEDS_TENSORFLOW and importlib.util.find_spec("tensorflow") is None:
        pytest.skip("needs TensorFlow")
    locked = tmp_path / "locked"
    locked.mkdir()
    with _read_only(locked):
        done = _write_with(key, str(locked / "out"), writer_inputs, tmp_path)
        assert list(locked.iterdir()) == []
    one_line_failure(_without_diagnostics(done), str(locked))


def _without_diagnostics(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    """`done` without MLIR's diagnostics of a pipeline that fails anyway (the reproducer's)."""
    said = [line for line in done.stderr.splitlines() if not DIAGNOSTIC.match(line)]
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, "\n".join(said))


@pytest.mark.parametrize("key", _params(WRITES))
def test_every_output_to_dev_stdout(tmp_path, writer_inputs, key) -> None:
    """A file output lands on the descriptor the caller gave; a folder output is one line."""
    if key[0] in NEEDS_TENSORFLOW and importlib.util.find_spec("tensorflow") is None:
        pytest.skip("needs TensorFlow")
    _, kind, marker = WRITES[key]
    with open(tmp_path / "stdout", "w+b") as stdout:
        done = _write_with(key, "/dev/stdout", writer_inputs, tmp_path, stdout=stdout,
                           stderr=subprocess.PIPE)  # fmt: skip
    if kind == "folder":  # named as given, or as the file it leads to
        line = one_line_failure(done)
        assert "/dev/stdout" in line or str(tmp_path / "stdout") in line, line
        return
    assert done.returncode == (1 if "reproducer" in key[1] else 0), done.stderr
    assert marker in (tmp_path / "stdout").read_bytes()


@contextlib.contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    """`folder` made read-only for this process's children: mode 0555, and immutable
    (`chattr +i`) for root, whom a mode does not stop."""
    folder.chmod(0o555)
    immutable = os.geteuid() == 0
    if immutable and subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        folder.chmod(0o755)
        pytest.skip("root, and no chattr +i here: no folder is read-only to root")
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)
