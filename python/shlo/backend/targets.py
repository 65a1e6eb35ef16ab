"""Where compiled code runs: IREE targets as users name them, and the devices that run each.

One table says which target a device needs (`DEVICES`); every command, the demo, the
comparison and the tests read it.  GPU names IREE 3.13 cannot compile fail with a message and
a working alternative.
"""

from __future__ import annotations

import enum

from shlo.errors import CompileError


class Target(enum.Enum):
    """What a `.vmfb` is compiled for; parses the names users type (`Target.get("llvm-cpu")`)."""

    LLVM_CPU = "llvm-cpu"
    VULKAN = "vulkan"
    CUDA = "cuda"
    VMVX = "vmvx"

    @classmethod
    def get(cls, name: str | Target) -> Target:
        if isinstance(name, Target):
            return name
        try:
            return cls(name.lower())
        except ValueError:
            known = ", ".join(t.value for t in cls)
            raise CompileError(f"unknown target '{name}'; expected one of {known}") from None

    @property
    def default_device(self) -> str:
        """The first device of `DEVICES` that runs this target (vmvx runs on the CPU's)."""
        return next((d for d, target in DEVICES.items() if target is self), "local-task")


# IREE device (driver) name -> the target a module is compiled for to run there.  local-sync
# runs llvm-cpu code on the calling thread, local-task on a thread pool.
DEVICES: dict[str, Target] = {
    "local-task": Target.LLVM_CPU,
    "local-sync": Target.LLVM_CPU,
    "vulkan": Target.VULKAN,
    "cuda": Target.CUDA,
}
HOST_DEVICES = tuple(device for device, target in DEVICES.items() if target is Target.LLVM_CPU)


def target_for_device(device: str) -> Target:
    """The target to compile for so that `device` can run the module."""
    if device not in DEVICES:
        raise CompileError(f"unknown device '{device}'; expected one of {', '.join(DEVICES)}")
    return DEVICES[device]


DEFAULT_CUDA_ARCH = "sm_80"
_CUDA_NAMES = {
    "a100": "sm_80",
    "a10": "sm_86",
    "rtx3090": "sm_86",
    "l4": "sm_89",
    "rtx4090": "sm_89",
    "ada": "sm_89",
}
_CUDA_BROKEN = {"sm_90", "sm_90a", "h100", "h200", "hopper"}


def cuda_arch(name: str | None) -> str:
    """An `sm_*` IREE 3.13 compiles for, from what a user typed (`a100`, `sm_89`, ...)."""
    arch = (name or DEFAULT_CUDA_ARCH).lower()
    if arch in _CUDA_BROKEN:
        raise CompileError(
            f"IREE 3.13 cannot compile CUDA for '{name}' (sm_90 fails, 'h100' crashes the "
            "compiler); use --cuda-arch sm_89 or sm_80: that PTX runs on Hopper GPUs through "
            "the driver's JIT"
        )
    arch = _CUDA_NAMES.get(arch, arch)
    if not arch.startswith("sm_") or not arch[3:].isdigit():
        raise CompileError(
            f"unknown CUDA architecture '{name}'; use sm_XY (e.g. sm_80) or "
            f"one of {', '.join(sorted(_CUDA_NAMES))}"
        )
    return arch
