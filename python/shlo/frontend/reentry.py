"""A decomposition that calls the op it replaces.

A decomposition table applies to every op traced while a decomposition runs, its own included:
a function that checks or rewrites an op around a call to that same op would meet itself
again.  `Reentry` marks the span of that inner call, so that the function, asked again there,
answers `NotImplemented` and the op is kept as it is.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator


class Reentry:
    """Whether a decomposition is inside its own inner call of the op it decomposes."""

    def __init__(self, name: str) -> None:
        self._inside = contextvars.ContextVar(f"shlo_{name}", default=False)

    def inside(self) -> bool:
        """True within `entered`: the op is to be kept as it is."""
        return self._inside.get()

    @contextlib.contextmanager
    def entered(self) -> Iterator[None]:
        """The span of the inner call of the op."""
        token = self._inside.set(True)
        try:
            yield
        finally:
            self._inside.reset(token)
