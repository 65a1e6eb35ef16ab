"""Run one request in JAX's child process (`shlo.jax.child`) and read its answer.

JAX imports into a process of its own: shlo's process never loads jaxlib by default, a JAX
crash ends only the child, and the child's `sys.path` is this process's, so that it imports
the caller's modules as the caller does.
"""

from __future__ import annotations

import json
import pickle
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shlo.errors import ShloError
from shlo.jax.trees import RequestPickler

INSTALL = "install the extra: pip install 'shlo[jax]'"


class JaxError(ShloError, RuntimeError):
    """JAX is missing, or it refused, failed or died on the request."""


def run_child(
    request: dict[str, Any] | Callable[[str], dict[str, Any]], work: Path, what: str
) -> dict[str, Any]:
    """Send `request` to a JAX child working in `work`; its response.  A callable request is
    made from the StableHLO version the child's jaxlib reads, once the child has said it.
    `what` names the step in the one line a failure gives."""
    command = [sys.executable, "-m", "shlo.jax.child", str(work)]
    if _caller_x64():
        command.append("--x64")
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        said = child.stdout.readline() if child.stdout else ""
        if said:
            made = request(json.loads(said)["stablehlo"]) if callable(request) else request
            _write_request(work / "request.pkl", made)
        _, stderr = child.communicate("go\n" if said else "")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    if child.returncode != 0:
        raise JaxError(f"{what} failed: {failure(stderr, child.returncode)}")
    answer: dict[str, Any] = json.loads((work / "response.json").read_text())
    return answer


def _write_request(path: Path, request: dict[str, Any]) -> None:
    try:
        with open(path, "wb") as stream:
            RequestPickler(stream).dump({**request, "sys_path": list(sys.path)})
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        raise JaxError(f"the arguments cannot be sent to JAX's process: {error}") from None


def failure(stderr: str, returncode: int) -> str:
    """The child's reason in one line: its `error:` line, the signal it died on, or its
    last line of output."""
    errors = [line[len("error: ") :] for line in stderr.splitlines() if line.startswith("error: ")]
    if errors:
        reason = errors[-1]
        return f"{reason}: {INSTALL}" if "JAX is not importable" in reason else reason
    if returncode < 0:
        return f"JAX's process died on {signal.Signals(-returncode).name}"
    tail = stderr.strip().splitlines()[-1:] or [f"exit status {returncode}"]
    return f"JAX's process ended with exit status {returncode}: {tail[0]}"


def _caller_x64() -> bool:
    """Whether the caller's JAX (when it has one loaded) computes in 64 bits."""
    jax = sys.modules.get("jax")
    config = getattr(jax, "config", None)
    return bool(getattr(config, "jax_enable_x64", False))
