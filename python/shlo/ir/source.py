"""Input text handling that needs no bindings: reading, `// -----` splitting, implicit modules.

Kept apart from the binding worlds so the rules that make locations point at the user's file
(line numbers preserved across splits, the implicit `module {}` added without moving any line)
live in one place and can be tested on plain strings.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from shlo.errors import UsageError

BYTECODE_MAGIC = b"ML\xefR"
DEFAULT_SPLIT_MARKER = "// -----"


@dataclass(frozen=True)
class Source:
    """One buffer to process: its name as diagnostics show it, and its contents."""

    name: str
    data: bytes
    first_line: int = 1
    is_file: bool = False

    @property
    def is_bytecode(self) -> bool:
        return self.data.startswith(BYTECODE_MAGIC)

    @property
    def text(self) -> str:
        """The contents as text.  MLIR reads bytes and takes any in comments and strings, as
        torch-mlir-opt does; a byte that is not UTF-8 is U+FFFD here, which only shlo's own
        scans of the text and the parse of a split chunk or of stdin see (a file is parsed
        from its bytes)."""
        return self.data.decode("utf-8", errors="replace")

    def padded_text(self) -> str:
        """The text preceded by blank lines so that line N of the chunk is line N of the file."""
        return "\n" * (self.first_line - 1) + self.text


def read_source(path: str) -> Source:
    """Read `path`, or standard input for `-`, as bytes (text and bytecode alike)."""
    if path == "-":
        return Source("<stdin>", sys.stdin.buffer.read())
    try:
        return Source(path, Path(path).read_bytes(), is_file=True)
    except OSError as exc:
        raise UsageError(f"could not open input file {path}: {exc.strerror}") from exc


def split_source(source: Source, marker: str) -> list[Source]:
    """Split at every `marker`, wherever on a line (MLIR's splitAndProcessBuffer splits the
    buffer on the marker text: `// // -----` splits too), keeping each chunk's first line
    number; the rest of the marker's line starts the next chunk."""
    text = source.text
    pattern = re.compile(re.escape(marker))
    chunks, start, line = [], 0, 1
    for match in pattern.finditer(text):
        chunks.append((line, text[start : match.start()]))
        line += text.count("\n", start, match.end())
        start = match.end()
    chunks.append((line, text[start:]))
    return [Source(source.name, chunk.encode(), first_line) for first_line, chunk in chunks]


# Top-level items of an MLIR file: attribute/type aliases (`#a = ...`, `!t = ...`), the file
# metadata block (`{-# ... #-}`) and operations.  Only operations go inside an implicit module.
_OPENERS, _CLOSERS = "([{<", ")]}>"


def _item_starts(text: str) -> list[tuple[int, str]]:
    """Offsets where a top-level item begins, with its kind: 'alias', 'meta' or 'op'."""
    starts: list[tuple[int, str]] = []
    depth, i, at_line_start, n = 0, 0, True, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            at_line_start = True
        elif ch in " \t\r":
            pass
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        else:
            if at_line_start and depth == 0:
                kind = "alias" if ch in "#!" else "meta" if text.startswith("{-#", i) else "op"
                starts.append((i, kind))
            at_line_start = False
            i = _skip_token(text, i, ch)
            depth += _depth_change(text, i, ch)
        i += 1
    return starts


def _skip_token(text: str, i: int, ch: str) -> int:
    """Index of the last character of a string literal starting at `i`, else `i`."""
    if ch != '"':
        return i
    i += 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i


def _depth_change(text: str, i: int, ch: str) -> int:
    if ch in _OPENERS:
        return 1
    if ch in _CLOSERS and not (ch == ">" and i > 0 and text[i - 1] == "-"):
        return -1
    return 0


def _content_end(text: str, start: int, stop: int) -> int:
    """Offset just past the last non-comment, non-blank character in text[start:stop]."""
    end = offset = start
    for line in text[start:stop].splitlines(keepends=True):
        code = _strip_comment(line).rstrip()
        if code:
            end = offset + len(code)
        offset += len(line)
    return end


def _strip_comment(line: str) -> str:
    in_string, i = False, 0
    while i < len(line):
        if line[i] == '"':
            in_string = not in_string
        elif line[i] == "\\" and in_string:
            i += 1
        elif line.startswith("//", i) and not in_string:
            return line[:i]
        i += 1
    return line


def _unknown_line(name: str) -> str:
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{escaped}":0:0)'


def wrap_in_module(text: str, name: str = "-") -> str | None:
    """Put the top-level operations of `text` inside `module { ... }` without moving any line.

    MLIR tools parse a file whose operations are not one `builtin.module` into an implicit
    module; the bindings' `Operation.parse` (the only parser that takes a source name) does not.
    `module {` replaces the blank or comment line before the first operation (or follows the
    alias on it) and `}` follows the last operation on its own line's end, so every location
    the parser records still points at the user's line and column.  The module gets the
    location MLIR gives an implicit module, `name:0:0`.  Returns None when the
    first operation starts the text: there is no line to put `module {` on.
    """
    starts = _item_starts(text)
    ops = [offset for offset, kind in starts if kind == "op"]
    if not ops:  # nothing but comments and aliases: an empty module, before any file metadata
        meta = next((offset for offset, kind in starts if kind == "meta"), len(text))
        return text[:meta] + f"\nmodule {{}} {_unknown_line(name)}\n" + text[meta:]
    first = ops[0]
    after_ops = [offset for offset, kind in starts if offset > ops[-1] and kind != "op"]
    last_end = _content_end(text, ops[-1], after_ops[0] if after_ops else len(text))
    body = text[first:last_end] + f" }} {_unknown_line(name)}" + text[last_end:]
    line_start = text.rfind("\n", 0, first) + 1
    if line_start == 0:
        return None
    prev_start = text.rfind("\n", 0, line_start - 1) + 1
    prev_code = _strip_comment(text[prev_start : line_start - 1]).rstrip()
    head = text[:prev_start] + (prev_code + " module {" if prev_code.strip() else "module {")
    return head + "\n" + text[line_start:first] + body
