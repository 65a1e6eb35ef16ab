# What shlo uses of tqdm, which ships no types (shlo.tools.progress).
from typing import TextIO

class tqdm:
    disable: bool
    def __init__(
        self,
        *,
        total: int | None = ...,
        file: TextIO | None = ...,
        disable: bool = ...,
        leave: bool = ...,
        ncols: int | None = ...,
        nrows: int | None = ...,
        bar_format: str | None = ...,
    ) -> None: ...
    def set_description_str(self, desc: str | None = ..., refresh: bool = ...) -> None: ...
    def update(self, n: float = ...) -> bool | None: ...
    def refresh(self) -> None: ...
    def close(self) -> None: ...
