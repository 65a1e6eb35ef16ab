"""This process's IREE devices, one per name while a module uses it, and what happens when a
driver loses one.

IREE's own cache (`iree.runtime.get_device`) keeps a device for the life of the process, so one
`VK_ERROR_DEVICE_LOST` would fail every module loaded after it, and an idle lavapipe device
keeps a CPU core busy (IREE's completion threads wait on two semaphores at once, which Mesa's
emulated timelines answer by polling).  Here a device lives while some owner (a loaded module)
does, and a lost device is dropped: what was loaded on it says so, and the next load gets a
new device.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from shlo.runtime.bindings import ireert

_DEVICES: dict[str, Any] = {}
_OWNERS: dict[int, int] = {}  # id of a device -> how many owners it has
_LOCK = threading.Lock()
# How drivers report a lost device in IREE's status text (Vulkan's VK_ERROR_DEVICE_LOST, CUDA's
# launch failures that poison the context).
_LOST = ("DEVICE_LOST", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_ILLEGAL_ADDRESS")


def device_config(name: str, owner: object) -> Any:
    """An `ireert.Config` on this process's device `name` (made when no owner holds one),
    which `owner` holds until it is collected."""
    with _LOCK:
        if name not in _DEVICES:
            _DEVICES[name] = ireert.get_device(name, cache=False)
        device = _DEVICES[name]
        _OWNERS[id(device)] = _OWNERS.get(id(device), 0) + 1
    weakref.finalize(owner, _release, name, device)
    return ireert.Config(device=device)


def _release(name: str, device: Any) -> None:
    with _LOCK:
        _OWNERS[id(device)] -= 1
        if _OWNERS[id(device)] == 0:
            del _OWNERS[id(device)]
            if _DEVICES.get(name) is device:
                del _DEVICES[name]


def lost_device(name: str, device: Any, message: str) -> str | None:
    """If `message` (an IREE failure on `device`) says the driver lost the device, drop it so
    the next load gets a new one, and say so (what follows is the caller's); else None."""
    if not any(mark in message for mark in _LOST):
        return None
    with _LOCK:
        if _DEVICES.get(name) is device:
            del _DEVICES[name]
    return f"the driver lost device '{name}' ({message.splitlines()[0][:300]})"
