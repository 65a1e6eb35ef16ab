"""MLIR text split at top-level separators: pipelines, option lists, attribute and type lists.

Brackets (`()`, `{}`, `[]`) and quotes nest; a separator inside them does not split.  Shared by
the pipeline syntax, the check dialect's text form and the interpreter's result layout.
"""

from __future__ import annotations

from shlo.errors import ShloError

_PAIRS = {"(": ")", "{": "}", "[": "]"}


class BracketError(ShloError, ValueError):
    """Brackets or quotes that do not balance."""


def split_top_level(
    text: str, separator: str = ",", what: str = "text", keep_empty: bool = False
) -> list[str]:
    """Split at `separator` outside brackets and quotes; empty pieces are dropped unless
    `keep_empty`.  `what` the text is names it in the error when brackets do not balance."""
    pieces, depth, quote, start = [], [], "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in _PAIRS:
            depth.append(_PAIRS[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif ch in ")}]":
            wanted = f"expected '{depth[-1]}' before" if depth else "unbalanced"
            raise BracketError(f"{wanted} '{ch}' at column {i + 1} of '{text}'")
        elif ch == separator and not depth:
            pieces.append(text[start:i])
            start = i + 1
    if depth or quote:
        raise BracketError(f"unterminated '{quote or depth[-1]}' in {what} '{text}'")
    pieces.append(text[start:])
    return [piece.strip() for piece in pieces if keep_empty or piece.strip()]
