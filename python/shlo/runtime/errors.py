"""The runtime's error, raised by every runtime module (loading, archives, inputs)."""

from __future__ import annotations

from shlo.errors import ShloError


class RunError(ShloError, RuntimeError):
    """A problem running a module: missing device, bad module or archive, wrong inputs."""
