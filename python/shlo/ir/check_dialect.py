"""The `check` dialect as text: no binding registers it, so its ops go through as generic ops.

Custom-syntax check lines (`check.expect_eq %a, %b : tensor<2xf32>`) are rewritten line for
line into generic unregistered ops, which any context that allows unregistered dialects parses
with every location unchanged, and printed back in their own syntax afterwards.  In between they
are named `shlo.check.*`: IREE registers a `check` dialect of its own (other ops, same name),
which would claim them in IREE's passes.  Used by
shlo-translate (which evaluates them) and shlo-opt (which carries them through pipelines).
"""

from __future__ import annotations

import re

from shlo.errors import ShloError
from shlo.ir.text import split_top_level

_CHECK_LINE = re.compile(r"^(\s*)check\.(\w+)\s+(.*?)\s*$")
_CONST_FORMS = {"expect_eq_const", "expect_almost_eq_const"}
STAND_IN = "shlo.check."  # the generic name of `check.KIND` while shlo holds it


class CheckSyntaxError(ShloError, ValueError):
    """A check op line that cannot be read."""


_GENERIC_LINE = re.compile(r'^(\s*)"check\.')


def has_check_ops(text: str) -> bool:
    """Whether any line is a check op, in custom or generic syntax."""
    return "check." in text and any(
        _CHECK_LINE.match(line.split("//")[0]) or _GENERIC_LINE.match(line)
        for line in text.split("\n")
    )


def _split_type_suffix(text: str) -> tuple[str, list[str]]:
    depth, cut = 0, -1
    for i, ch in enumerate(text):
        depth += ch in "<([{"
        depth -= ch in ">)]}"
        if text.startswith(" : ", i) and depth == 0:
            cut = i
    if cut < 0:
        raise CheckSyntaxError(f"check op without a type: '{text}'")
    return text[:cut], split_top_level(text[cut + 3 :])


def generic_check(kind: str, body: str) -> str:
    """`check.KIND body` in custom syntax as a generic op with the same meaning."""
    head, types = _split_type_suffix(body)
    parts = split_top_level(head)
    values = [p for p in parts if p.startswith("%")]
    attrs = [p for p in parts if not p.startswith("%")]
    named = [a.replace(" = ", " = ").strip() for a in attrs if "=" in a and "<" not in a]
    literal = [a for a in attrs if a not in named]
    if kind in _CONST_FORMS:
        if not literal:
            raise CheckSyntaxError(f"check.{kind} needs a constant: '{body}'")
        named.append(f"value = {literal[0]} : {types[0]}")
    operand_types = (types * len(values))[: len(values)] if len(types) == 1 else types
    attributes = f" {{{', '.join(named)}}}" if named else ""
    operands = ", ".join(values)
    return f'"{STAND_IN}{kind}"({operands}){attributes} : ({", ".join(operand_types)}) -> ()'


def to_generic(text: str) -> str:
    """Every check op line rewritten in generic form under its stand-in name; lines and columns
    keep their places."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if match := _CHECK_LINE.match(line.split("//")[0]):
            indent, kind, body = match.groups()
            lines[index] = indent + generic_check(kind, body)
        elif match := _GENERIC_LINE.match(line):
            lines[index] = f'{match.group(1)}"{STAND_IN}{line[match.end() :]}'
    return "\n".join(lines)


def generic_names(text: str) -> str:
    """Printed generic IR with the stand-in names back to the check dialect's own."""
    return text.replace(f'"{STAND_IN}', '"check.')


_GENERIC_CHECK = re.compile(
    r'^(\s*)"shlo\.check\.(\w+)"\((.*?)\)(?: <?\{(.*)\}>?)? : \((.*)\) -> \(\)(\s*(?:loc\(.*\))?)$'
)


def to_custom(text: str) -> str:
    """Generic check ops printed back in the check dialect's own syntax (inverse of to_generic)."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _GENERIC_CHECK.match(line)
        if not match:
            continue
        indent, kind, operands, attributes, types, tail = match.groups()
        parts = [operands]
        for attribute in split_top_level(attributes or ""):
            key, _, value = attribute.partition(" = ")
            literal, _ = _split_type_suffix(value) if key == "value" else (value, None)
            parts.append(literal if key == "value" else f"{key} = {value.split(' : ')[0]}")
        type_list = split_top_level(types)
        shown = type_list[0] if len(set(type_list)) == 1 else ", ".join(type_list)
        lines[index] = f"{indent}check.{kind} {', '.join(parts)} : {shown}{tail}"
    return "\n".join(lines)
