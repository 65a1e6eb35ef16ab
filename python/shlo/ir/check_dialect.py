"""The `check` dialect as text: no binding registers it, so its ops go through as generic ops.

Custom-syntax check ops (`check.expect_eq %a, %b : tensor<2xf32>`, written on one line or over
several) are found by a scanner that follows brackets, strings and comments, and each is
rewritten into a generic unregistered op on its first line; the lines it spanned stay (empty),
so every location after it is unchanged.  Generic-form check ops are only renamed.  Printed IR
goes back to the dialect's own syntax afterwards.  In between the ops are named `shlo.check.*`:
IREE registers a `check` dialect of its own (other ops, same name), which would claim them in
IREE's passes.  Used by shlo-translate (which evaluates them) and shlo-opt (which carries them
through pipelines).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from shlo.errors import ShloError
from shlo.ir.text import split_top_level

STAND_IN = "shlo.check."  # the generic name of `check.KIND` while shlo holds it
_CONST_FORMS = {"expect_eq_const", "expect_almost_eq_const"}
_CUSTOM_START = re.compile(r"(?m)^([ \t]*)check\.(\w+)\b")
_GENERIC_NAME = re.compile(r'"check\.(\w+)"(\s*\()')
_OPEN, _CLOSE = "<([{", ">)]}"


@dataclass
class CheckSyntaxError(ShloError, ValueError):
    """A check op that cannot be read, with where it starts (1-based line and column)."""

    message: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        return self.message


def has_check_ops(text: str) -> bool:
    """Whether the text holds a check op, in custom or generic syntax."""
    return "check." in text and bool(_CUSTOM_START.search(text) or _GENERIC_NAME.search(text))


def _top_level(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, bracket depth after it) for each character outside strings and `//`
    comments; a string shows as its closing `"`.  The `>` of `->` is not a bracket."""
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i = _string_end(text, i)
            yield i - 1, '"', depth
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE and not (ch == ">" and text[i - 1] == "-"):
            depth -= 1
        yield i, ch, depth
        i += 1


def statement_end(text: str, start: int) -> int:
    """Where the custom-syntax op that starts at `start` ends: the first line end outside
    brackets and strings, unless the text so far ends in `,` or `:` or the next line begins
    with `:`, `{` or `loc(`."""
    last = ""
    for i, ch, depth in _top_level(text, start):
        if depth < 0:  # the enclosing block's `}`: the op ended before it
            return i
        if ch == "\n" and depth == 0 and last not in (",", ":") and not _continues(text, i):
            return i
        if not ch.isspace():
            last = ch
    return len(text)


def _continues(text: str, newline: int) -> bool:
    """Whether the next line goes on with the op: it starts with its `:` type list or its
    attribute dictionary."""
    rest = text[newline:].lstrip()
    return rest.startswith((":", "{", "loc("))


def _string_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _without_comments(text: str) -> str:
    """The op's text on one line, its `//` comments dropped (strings kept whole)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        else:
            out.append(" " if text[i] == "\n" else text[i])
            i += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _top_level_colon(text: str) -> int:
    """The index of the first `:` outside brackets and strings, or -1."""
    return next((i for i, ch, depth in _top_level(text) if ch == ":" and depth == 0), -1)


def _trailing(types: str) -> tuple[str, str, str]:
    """`tensor<f64> {tolerance = 0.1 : f64} loc("x")` -> types, attribute dict, location."""
    location = ""
    if (at := types.find(" loc(")) >= 0 or (at := types.find("loc(")) == 0:
        types, location = types[:at].strip(), types[at:].strip()
    attributes = ""
    if types.endswith("}") and (brace := types.find("{")) >= 0:
        types, attributes = types[:brace].strip(), types[brace + 1 : -1].strip()
    return types, attributes, location


_DECLARED = {  # CheckOps.td's attribute types (a hex tolerance is f64 bits, not an integer)
    "max_ulp_difference": "ui64",
    "min_ulp_difference": "ui64",
    "iteration": "ui32",
    "tolerance": "f64",
}
_SPELLED = {"iter": "iteration"}  # expect_serialized_eq's custom syntax names it `iter`


def _typed(attribute: str) -> str:
    """`max_ulp_difference = 3` as the op declares it (`: ui64`), `iter = 1` as the attribute
    it sets (`iteration = 1 : ui32`); others as written."""
    key, _, value = (part.strip() for part in attribute.partition("="))
    key = _SPELLED.get(key, key)
    if key in _DECLARED and ":" not in value:
        return f"{key} = {value} : {_DECLARED[key]}"
    return f"{key} = {value}"


def generic_check(kind: str, body: str) -> str:
    """`check.KIND body` in custom syntax as a generic op with the same meaning."""
    colon = _top_level_colon(body)
    if colon < 0:
        raise CheckSyntaxError(f"check.{kind}: expected ':' and the operand types in '{body}'")
    head, (type_text, attribute_dict, location) = body[:colon], _trailing(body[colon + 1 :].strip())
    parts = split_top_level(head, what=f"check.{kind}")
    types = split_top_level(type_text, what=f"check.{kind}")
    values = [p for p in parts if p.startswith("%")]
    named = [p for p in parts if not p.startswith("%") and re.match(r"^[\w.$-]+\s*=", p)]
    literal = [p for p in parts if not p.startswith("%") and p not in named]
    named = [_typed(attribute) for attribute in named]
    if attribute_dict:
        named += split_top_level(attribute_dict, what=f"check.{kind}")
    if not types:
        raise CheckSyntaxError(f"check.{kind}: no operand type after ':' in '{body}'")
    if kind in _CONST_FORMS:
        if not literal:
            raise CheckSyntaxError(f"check.{kind} needs a constant: '{body}'")
        named.append(f"value = {literal[0]} : {types[0]}")
    elif literal:
        raise CheckSyntaxError(f"check.{kind}: unexpected '{literal[0]}' in '{body}'")
    if not values:
        raise CheckSyntaxError(f"check.{kind}: expected an operand (%value) in '{body}'")
    operand_types = (types * len(values))[: len(values)] if len(types) == 1 else types
    if len(operand_types) != len(values):
        raise CheckSyntaxError(
            f"check.{kind}: {len(values)} operands but {len(types)} types in '{body}'"
        )
    attributes = f" {{{', '.join(named)}}}" if named else ""
    tail = f" {location}" if location else ""
    return (
        f'"{STAND_IN}{kind}"({", ".join(values)}){attributes} : '
        f"({', '.join(operand_types)}) -> (){tail}"
    )


def to_generic(text: str, first_line: int = 1) -> str:
    """Every check op rewritten in generic form under its stand-in name; lines and columns
    of everything else keep their places.  Raises CheckSyntaxError with the op's position
    (lines counted from `first_line`)."""
    pieces, cursor = [], 0
    for match in _CUSTOM_START.finditer(text):
        if match.start() < cursor or _in_comment(text, match.start()):
            continue
        indent, kind = match.groups()
        end = statement_end(text, match.end())
        line = text.count("\n", 0, match.start()) + first_line
        try:
            generic = generic_check(kind, _without_comments(text[match.end() : end]))
        except (CheckSyntaxError, ShloError) as error:
            raise CheckSyntaxError(str(error), line, len(indent) + 1) from None
        spanned = text.count("\n", match.start(), end)
        pieces += [text[cursor : match.start()], indent, generic, "\n" * spanned]
        cursor = end
    pieces.append(text[cursor:])
    return _GENERIC_NAME.sub(rf'"{STAND_IN}\1"\2', "".join(pieces))


def _in_comment(text: str, index: int) -> bool:
    line_start = text.rfind("\n", 0, index) + 1
    return "//" in text[line_start:index]


def generic_names(text: str) -> str:
    """Printed generic IR with the stand-in names back to the check dialect's own."""
    return text.replace(f'"{STAND_IN}', '"check.')


_GENERIC_CHECK = re.compile(
    r'^(\s*)"shlo\.check\.(\w+)"\((.*?)\)(?: <?\{(.*)\}>?)? : \((.*)\) -> \(\)(\s*(?:loc\(.*\))?)$'
)


def to_custom(text: str) -> str:
    """Generic check ops printed back in the check dialect's own syntax (inverse of to_generic).

    The printer puts each op on one line, so printed IR is read line by line."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _GENERIC_CHECK.match(line)
        if not match:
            continue
        indent, kind, operands, attributes, types, tail = match.groups()
        parts, extra = [operands], []
        for attribute in split_top_level(attributes or ""):
            key, _, value = attribute.partition(" = ")
            if key == "value":
                parts.append(value)
            elif kind in _CONST_FORMS:
                extra.append(attribute)
            else:
                shown = {v: k for k, v in _SPELLED.items()}.get(key, key)
                parts.append(f"{shown} = {value.split(' : ')[0]}")
        type_list = split_top_level(types)
        if kind in _CONST_FORMS:  # the constant carries its type; other attributes follow it
            dictionary = f" {{{', '.join(extra)}}}" if extra else ""
            lines[index] = f"{indent}check.{kind} {', '.join(parts)}{dictionary}{tail}"
            continue
        shown = type_list[0] if len(set(type_list)) == 1 else ", ".join(type_list)
        lines[index] = f"{indent}check.{kind} {', '.join(parts)} : {shown}{tail}"
    return "\n".join(lines)


def check_kind(op: Any) -> str | None:
    """`expect_eq` for `check.expect_eq` and `stablehlo.custom_call @check.expect_eq`."""
    name = op.operation.name
    for prefix in (STAND_IN, "check."):
        if name.startswith(prefix):
            return cast("str | None", name[len(prefix) :])
    if name == "stablehlo.custom_call":
        target = str(op.operation.attributes["call_target_name"]).strip('"')
        return target[len("check.") :] if target.startswith("check.") else None
    return None
