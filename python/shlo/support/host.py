"""The host CPU's level-2 cache, which sizes llvm-cpu's matmul tiles when compiling for it.

Read from Linux's sysfs; where that is missing (another OS, a container that hides it) the
answer is None and IREE's own default stays.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

CPU0_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")


@cache
def l2_bytes_per_thread(caches: Path = CPU0_CACHES) -> int | None:
    """CPU 0's level-2 data (or unified) cache divided among the logical CPUs that share it:
    each of them runs its own workgroups, so that share is what one workgroup can keep."""
    try:
        for index in sorted(caches.glob("index*")):
            if (index / "level").read_text().strip() != "2":
                continue
            if (index / "type").read_text().strip() == "Instruction":
                continue
            size = _size_bytes((index / "size").read_text().strip())
            return size // _count_cpus((index / "shared_cpu_list").read_text().strip())
    except (OSError, ValueError):
        return None
    return None


def _size_bytes(text: str) -> int:
    """sysfs writes cache sizes as `2048K` or `1M`."""
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    if text[-1:].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def _count_cpus(text: str) -> int:
    """How many CPUs a list like `0-1,8-9` names."""
    count = 0
    for part in text.split(","):
        first, _, last = part.partition("-")
        count += int(last or first) - int(first) + 1
    return max(count, 1)
