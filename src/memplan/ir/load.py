"""Load MLIR text, one module per `// -----` chunk, all in one context, keeping file locations.

The bindings only parse strings (reported as file "-", lines from 1), so each
chunk's path is a `SourceName` that knows the lines before the chunk:
`source_loc` maps "-" back to the file's path and line. (Padding each chunk
with the newlines before it would do the same at a cost quadratic in the
number of chunks.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from iree.compiler import ir

from ..errors import InputError
from .source import SourceLoc, SourceName, source_loc  # noqa: F401 - re-exported

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)
_PARSER_DIAGNOSTIC = re.compile(r'error: "-":(\d+):(\d+): (.*)')


@dataclass
class MlirChunk:
    """One parsed module of an input file (the whole file when it has no split markers)."""

    path: str  # a SourceName: the file's path, knowing the chunk's first line
    index: int  # 0-based position among the file's `// -----` chunks
    first_line: int  # 1-based line of the file where the chunk starts
    module: ir.Module
    # The chunk's own lines: the source of what the parser drops (SSA names of arguments).
    lines: tuple[str, ...] = ()

    @property
    def context(self) -> ir.Context:
        return self.module.context


def new_context() -> ir.Context:
    # IREE's context registers upstream and IREE dialects; unknown ops are parse errors.
    return ir.Context()


def parse_mlir(text: str, path: str = "<input>", first_line: int = 1,
               context: ir.Context | None = None) -> ir.Module:
    """Parse `text`, which starts at line `first_line` of `path` (for error messages)."""
    ctx = context or new_context()
    try:
        return ir.Module.parse(text, ctx)
    except ir.MLIRError as err:
        raise _input_error(path, err, first_line - 1) from None


def _input_error(path: str, err: Exception, line_offset: int = 0) -> InputError:
    match = _PARSER_DIAGNOSTIC.search(str(err))
    if match:
        line, col, reason = match.groups()
        return InputError(path, f"error: {reason}", f"{int(line) + line_offset}:{col}")
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


# Bracket nesting the MLIR parser takes without exhausting the native stack (measured on
# IREE 3.13: regions 3,000 deep parse, 4,000 deep crash the process; arrays 10,000 deep too).
MAX_NESTING = 2000
# Strings as runs between escapes: a group repeated per character costs the regex engine
# about 120 bytes of backtracking stack per character of a long string.
_STRINGS_AND_COMMENTS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*')
_OPEN, _CLOSE = "{[(", "}])"
# Every byte but the brackets (UTF-8 encodes other characters in bytes that are none of them).
_NOT_BRACKETS = bytes(b for b in range(256) if chr(b) not in _OPEN + _CLOSE)


def nesting_depth(text: str) -> int:
    """Deepest nesting of `{`, `[` and `(` outside strings and comments."""
    code = _STRINGS_AND_COMMENTS.sub("", text)
    brackets = code.encode("utf-8").translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    steps = np.frombuffer(brackets, dtype=np.uint8)
    delta = np.where(np.isin(steps, np.frombuffer(_OPEN.encode(), dtype=np.uint8)), 1, -1)
    return int(np.cumsum(delta).max())


# Allocations a file may hold: each costs about 5 KB and 70 us of CPU from parse to report
# (`check` on a function of 100,000 `memref.alloca`: 530 MiB, 6.4 s CPU); at this limit about
# 1 GB. Counted as op names in the text before parsing (one in a comment counts too).
MAX_ALLOCATIONS = 200_000
_ALLOCATION_NAMES = ("memref.alloc", "bufferization.alloc_tensor")


def read_mlir_text(path: str | Path) -> str:
    """The file's text, refused with one line if memplan cannot or must not parse it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(path, f"cannot read file: {reason}") from None
    if not text.strip():
        raise InputError(path, "empty file: expected MLIR")
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise InputError(path, f"brackets nested {depth} deep; memplan parses at most "
                         f"{MAX_NESTING} levels")
    allocations = sum(text.count(name) for name in _ALLOCATION_NAMES)
    if allocations > MAX_ALLOCATIONS:
        raise InputError(path, f"{allocations:,} allocation ops (memref.alloc, memref.alloca,"
                         f" bufferization.alloc_tensor); memplan reads at most "
                         f"{MAX_ALLOCATIONS:,} in one file")
    return text


def load_mlir(path: str | Path, context: ir.Context | None = None) -> list[MlirChunk]:
    """Parse every chunk of an MLIR file into one context; the first bad chunk stops with its
    location."""
    text = read_mlir_text(path)
    return parse_chunks(text, str(path), context or new_context())


def parse_chunks(text: str, path: str, context: ir.Context) -> list[MlirChunk]:
    chunks = []
    for index, (first_line, chunk) in enumerate(split_chunks(text)):
        name = SourceName(str(path), first_line - 1)
        chunks.append(MlirChunk(name, index, first_line,
                                parse_mlir(chunk, name, first_line, context),
                                tuple(chunk.splitlines())))
    return chunks


def clone_chunks(chunks: list[MlirChunk]) -> list[MlirChunk]:
    """Independent copies (same context, no re-parse) to rewrite while the originals stay as
    parsed. The copy's module is a detached `builtin.module` op, used like an `ir.Module`."""
    return [MlirChunk(c.path, c.index, c.first_line, c.module.operation.clone().opview, c.lines)
            for c in chunks]
