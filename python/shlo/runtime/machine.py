"""The machine a timing was taken on: CPU model, the ISA extensions that decide IREE's code, and
core count.  A speed result holds only beside the machine it names."""

from __future__ import annotations

import os
import platform
from functools import cache
from pathlib import Path

# the extensions whose presence changes what IREE's llvm-cpu backend and PyTorch's kernels use
ISA_FLAGS = (
    "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
    "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8",
)  # fmt: skip


@cache
def describe_machine() -> dict[str, object]:
    """{"cpu": model name, "isa": the ISA_FLAGS present, "cores": logical CPUs}."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() in ("flags", "Features"):
                flags = set(value.split())
    except OSError:
        pass
    return {"cpu": model, "isa": [f for f in ISA_FLAGS if f in flags], "cores": os.cpu_count()}


def machine_line() -> str:
    """One line for a benchmark's header."""
    described = describe_machine()
    isa = " ".join(described["isa"]) or "no AVX2"
    return f"{described['cpu']} ({isa}), {described['cores']} cores"
