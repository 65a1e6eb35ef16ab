"""The machine a timing was taken on: CPU model, the ISA extensions that decide IREE's code, its
L2 share (which sizes IREE's matmul tiles) and core count.  A speed result holds only beside the
machine it names."""

from __future__ import annotations

import os
import platform
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

from shlo.support.host import l2_bytes_per_thread

# the extensions whose presence changes what IREE's llvm-cpu backend and PyTorch's kernels use
ISA_FLAGS = (
    "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
    "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8",
)  # fmt: skip


def read_cpuinfo(text: str) -> dict[str, Any]:
    """The model name, its family/model/stepping (a virtual machine's model name is often just
    "Intel(R) Xeon(R) Processor", whatever the generation) and the ISA_FLAGS present, from the
    first processor listed in /proc/cpuinfo's `text`."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    numbers = [fields.get(key, "") for key in ("cpu family", "model", "stepping")]
    return {
        "cpu": fields.get("model name", ""),
        "model_id": "/".join(numbers) if all(numbers) else None,
        "isa": [f for f in ISA_FLAGS if f in flags],
    }


@cache
def describe_machine() -> dict[str, Any]:
    """{"cpu", "model_id" (family/model/stepping), "isa", "l2_kib_per_thread", "cores"}."""
    try:
        described = read_cpuinfo(Path("/proc/cpuinfo").read_text())
    except OSError:
        described = {"cpu": "", "model_id": None, "isa": []}
    described["cpu"] = described["cpu"] or platform.processor() or platform.machine()
    l2 = l2_bytes_per_thread()
    described["l2_kib_per_thread"] = l2 // 1024 if l2 else None
    described["cores"] = os.cpu_count()
    return described


def machine_line() -> str:
    """One line for a benchmark's header."""
    described = describe_machine()
    cpu = described["cpu"] + (f" [{described['model_id']}]" if described["model_id"] else "")
    isa = " ".join(described["isa"]) or "no AVX2"
    l2 = described["l2_kib_per_thread"]
    cache_size = f", L2 {l2} KiB a thread" if l2 else ""
    return f"{cpu} ({isa}){cache_size}, {described['cores']} cores"


def machine_title(what: str, inches: float) -> str:
    """A chart's title: `what` on this machine, wrapped at about 12 characters an inch of the
    figure, so a long ISA list or a narrow chart is not cut off."""
    return textwrap.fill(f"{what}: {machine_line()}", int(12 * inches))
