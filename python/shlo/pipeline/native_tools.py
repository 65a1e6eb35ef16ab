"""The native MLIR tools inside the wheels (`torch-mlir-opt`, `iree-opt`, `iree-compile`), run
as subprocesses through one runner.

Some passes are compiled into these tools but not registered in the Python bindings (for example
`refback-generalize-tensor-concat`).  A pipeline segment made of such passes runs here: the
module goes in and comes back as bytecode, and the tool's diagnostics are read back from stderr.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from shlo.errors import ToolNotFound

# tool -> (package that ships it, path of the binary inside that package)
_TOOLS = {
    "torch-mlir-opt": ("torch_mlir", "_mlir_libs/torch-mlir-opt"),
    "iree-opt": ("iree", "compiler/_mlir_libs/iree-opt"),
    "iree-compile": ("iree", "compiler/_mlir_libs/iree-compile"),
}
# The tools that run pipeline segments (iree-compile runs whole compilations only).
NATIVE_TOOLS = ("torch-mlir-opt", "iree-opt")


def tool_path(tool: str) -> Path:
    """The binary itself (not the wheel's Python shim), found without importing the bindings."""
    package, relative = _TOOLS[tool]
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / relative
        if candidate.is_file():
            return candidate
    raise ToolNotFound(f"{tool} not found: is the package providing '{package}' installed?")


def run_binary(
    tool: str, arguments: list[str], cwd: str | Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a wheel's tool (or `python`: this interpreter) with `arguments`; output captured."""
    executable = sys.executable if tool == "python" else str(tool_path(tool))
    return subprocess.run([executable, *arguments], capture_output=True, text=True, cwd=cwd)


@dataclass(frozen=True)
class ToolResult:
    returncode: int
    output: bytes
    stderr: str


def run_tool(tool: str, module_bytecode: bytes, arguments: list[str]) -> ToolResult:
    """Run the tool's passes (given as its own arguments) on a module; bytecode comes back."""
    with tempfile.TemporaryDirectory(prefix="shlo-native-") as scratch:
        source, target = Path(scratch) / "in.mlirbc", Path(scratch) / "out.mlirbc"
        source.write_bytes(module_bytecode)
        done = run_binary(tool, [str(source), "--emit-bytecode", "-o", str(target), *arguments])
        output = target.read_bytes() if done.returncode == 0 and target.exists() else b""
    return ToolResult(done.returncode, output, done.stderr)


def list_passes_text(tool: str) -> str:
    """The tool's own `--list-passes` output."""
    return run_binary(tool, ["--list-passes"]).stdout
