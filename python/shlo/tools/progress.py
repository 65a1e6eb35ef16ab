"""What a long `shlo` command is doing, shown on a terminal: the step, how many are done and the
time so far (tqdm), refreshed while a step runs.  Nothing is shown when stderr is not a
terminal or with `--quiet`, so logs and pipes stay clean."""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from tqdm import tqdm

_REFRESH_S = 0.5
_FALLBACK = os.terminal_size((80, 24))


def _terminal_size(stream: TextIO) -> os.terminal_size:
    """The terminal's size; one that reports none (a fresh pseudo-terminal) gets `_FALLBACK`,
    where tqdm would treat the bar as off screen and print nothing."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return _FALLBACK
    return size if size.columns and size.lines else _FALLBACK


class Steps:
    """`with Steps(3) as steps: with steps.step("import"): ...`"""

    def __init__(self, total: int, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        stream = stream or sys.stderr
        shown = not quiet and stream.isatty()
        size = _terminal_size(stream) if shown else _FALLBACK
        self._bar = tqdm(
            total=total,
            file=stream,
            disable=not shown,
            leave=False,
            ncols=size.columns,
            nrows=size.lines,
            bar_format="{desc} ({n_fmt}/{total_fmt}, {elapsed})",
        )
        self._done = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> Steps:
        if not self._bar.disable:
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._ticker.is_alive():
            self._ticker.join()
        self._bar.close()

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        self._bar.set_description_str(name, refresh=True)
        yield
        self._bar.update(1)

    def _tick(self) -> None:
        while not self._done.wait(_REFRESH_S):
            self._bar.refresh()
