"""Every file in and out through one guarded path (issue 34): outputs written through symlinks
and to open descriptors, companions checked against what they were made from, sizes checked
before allocating, bundles read only from their own regular files, and user mistakes that
end in one line and exit 1 instead of "a bug in shlo".

The commands run as users run them, in child processes, so that a hang, a signal or a
traceback shows as the command's own failure."""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

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
    one_line_failure(done, "100000x100000xf32=0", "more than this machine's memory")


def test_an_npy_header_larger_than_its_file_is_refused(tmp_path, add_vmfb) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }"
    header += " " * (117 - len(header)) + "\n"
    big = tmp_path / "big.npy"
    big.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    done = run("shlo", "run", add_vmfb, f"--input=@{big}", memory=_FOUR_GIB)
    one_line_failure(done, "big.npy", "announces float32[100000, 100000]")


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


@pytest.mark.parametrize(
    ("damaged", "signal_name"),
    [
        (LIT_INPUTS / "reader_crash.mlirbc", "SIGABRT"),
        (FIXTURES / "reader_segfault.mlirbc", "SIGSEGV"),
        (FIXTURES / "reader_heap_corruption.mlirbc", "SIGABRT: double free or corruption"),
    ],
)
def test_bytecode_that_crashes_the_reader_is_one_line(tmp_path, damaged, signal_name) -> None:
    """The issue's `shlo compile` and `shlo run BUNDLE`: each death of the reader (an abort, a
    SIGSEGV, a heap it corrupted) is one line naming the file and the signal."""
    done = run("shlo", "compile", damaged, "-o", tmp_path / "x.vmfb")
    one_line_failure(done, damaged.name, f"bytecode reader crashed on this input ({signal_name}")
    assert not (tmp_path / "x.vmfb").exists()
    bundle = tmp_path / "bundle"
    shutil.copytree(FIXTURE_BUNDLE, bundle)
    shutil.copy(damaged, bundle / "functions" / "forward.bytecode")
    done = run("shlo", "run", bundle, "--input=2x4xf32=1")
    one_line_failure(
        done, "forward.bytecode", f"bytecode reader crashed on this input ({signal_name}"
    )


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
    assert f"reader_heap_corruption.mlirbc: {crashed} (SIGABRT" in lines[3]
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
