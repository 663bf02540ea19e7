"""Where an op is in the input file, and what the source text says that the IR forgets."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iree.compiler import ir


class SourceName(str):
    """The input's name as diagnostics print it, knowing where its chunk starts.

    A `// -----` chunk is parsed on its own, so the bindings number its lines from 1;
    `line_offset` (the lines before the chunk) turns them back into the file's own.
    It is a `str` so that every layer can keep passing "the path" around unchanged.
    """

    line_offset: int

    def __new__(cls, name: str, line_offset: int = 0) -> SourceName:
        made = super().__new__(cls, name)
        made.line_offset = line_offset
        return made


@dataclass(frozen=True)
class SourceLoc:
    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


def source_loc(op: ir.Operation | ir.OpView, path: str) -> SourceLoc | None:
    """The input-file location of `op`, looking through fused and call-site locations."""
    loc = op.location
    for _ in range(8):
        try:
            filename = loc.filename
        except AttributeError:
            nested = _nested_location(loc)
            if nested is None:
                return None
            loc = nested
            continue
        if filename != "-":  # a location the input itself spelled out
            return SourceLoc(filename, loc.start_line, loc.start_col)
        return SourceLoc(str(path), loc.start_line + getattr(path, "line_offset", 0),
                         loc.start_col)
    return None


def _nested_location(loc: ir.Location) -> ir.Location | None:
    for attribute in ("locations", "callee", "child_loc"):
        value = getattr(loc, attribute, None)
        if isinstance(value, list) and value:
            return value[0]
        if value is not None and not isinstance(value, list):
            return value
    return None


_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*')


def source_argument_names(func: ir.Operation, lines: Sequence[str]) -> list[str | None]:
    """The SSA names (`n` for `%n`) the source gives the function's arguments.

    The bindings drop SSA names when parsing, so they are read back from the
    signature at the function's location in `lines` (the lines of the text it was
    parsed from: its chunk); None where that fails.
    """
    count = len(func.regions[0].blocks[0].arguments)
    loc = func.location
    try:
        line, col = loc.start_line, loc.start_col
    except AttributeError:
        return [None] * count
    # Comments between arguments (IREE's lit tests put `// CHECK-SAME:` there) are not code.
    signature = [_COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
                 for text in lines[line - 1: line + 40]]
    text = "\n".join(signature)[col - 1:]
    start = text.find("(")
    if start < 0:
        return [None] * count
    pieces, depth, current = [], 0, ""
    for char in text[start + 1:]:
        if char in "(<[{":
            depth += 1
        elif char in ")>]}" and not (char == ">" and current.endswith("-")):  # `->` in a map
            if depth == 0:
                pieces.append(current)
                break
            depth -= 1
        if char == "," and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += char
    names = [m.group(1) if (m := re.match(r"\s*%([\w$.-]+)\s*:", p)) else None for p in pieces]
    return names if len(names) == count else [None] * count
