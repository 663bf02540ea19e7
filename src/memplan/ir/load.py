"""Load MLIR text, one module per `// -----` chunk, keeping file locations.

The bindings only parse strings (reported as file "-"), so each chunk is
padded with the newlines that precede it: line numbers in diagnostics are then
the input file's own, and `source_loc` maps "-" back to the file's path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from iree.compiler import ir

from ..errors import InputError

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)
_PARSER_DIAGNOSTIC = re.compile(r'error: "-":(\d+):(\d+): (.*)')


@dataclass(frozen=True)
class SourceLoc:
    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass
class MlirChunk:
    """One parsed module of an input file (the whole file when it has no split markers)."""

    path: str
    index: int  # 0-based position among the file's `// -----` chunks
    first_line: int  # 1-based line of the file where the chunk starts
    module: ir.Module

    @property
    def context(self) -> ir.Context:
        return self.module.context


def new_context() -> ir.Context:
    # IREE's context registers upstream and IREE dialects; unknown ops are parse errors.
    return ir.Context()


def parse_mlir(text: str, path: str = "<input>", first_line: int = 1,
               context: ir.Context | None = None) -> ir.Module:
    padded = "\n" * (first_line - 1) + text
    ctx = context or new_context()
    try:
        return ir.Module.parse(padded, ctx)
    except ir.MLIRError as err:
        raise _input_error(path, err) from None


def _input_error(path: str, err: Exception) -> InputError:
    match = _PARSER_DIAGNOSTIC.search(str(err))
    if match:
        line, col, reason = match.groups()
        return InputError(path, f"error: {reason}", f"{line}:{col}")
    first = str(err).strip().splitlines()
    return InputError(path, f"error: {first[-1] if first else 'cannot parse MLIR'}")


def split_chunks(text: str) -> list[tuple[int, str]]:
    """Return `(first line, text)` of each `// -----`-separated chunk."""
    chunks: list[tuple[int, str]] = []
    line, start = 1, 0
    for marker in SPLIT_MARKER.finditer(text):
        chunks.append((line, text[start:marker.start()]))
        line += text.count("\n", start, marker.end()) + 1
        start = marker.end() + 1
    chunks.append((line, text[start:]))
    return chunks


def load_mlir(path: str | Path) -> list[MlirChunk]:
    """Parse every chunk of an MLIR file; the first bad chunk stops with its location."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(path, f"cannot read file: {reason}") from None
    if not text.strip():
        raise InputError(path, "empty file: expected MLIR")
    loaded = []
    for index, (first_line, chunk) in enumerate(split_chunks(text)):
        module = parse_mlir(chunk, str(path), first_line)
        loaded.append(MlirChunk(str(path), index, first_line, module))
    return loaded


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
        return SourceLoc(path if filename == "-" else filename, loc.start_line, loc.start_col)
    return None


def _nested_location(loc: ir.Location) -> ir.Location | None:
    for attribute in ("locations", "callee", "child_loc"):
        value = getattr(loc, attribute, None)
        if isinstance(value, list) and value:
            return value[0]
        if value is not None and not isinstance(value, list):
            return value
    return None
