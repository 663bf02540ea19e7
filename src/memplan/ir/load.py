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
    context = ir.Context()
    # Single-threaded: `Module.parse` holds the GIL while MLIR verifies ops on its worker
    # threads, and a worker's diagnostic goes to the bindings' Python handler, which waits
    # for the GIL forever (a bad data_layout in an IREE dispatch hung `check`).
    context.enable_multithreading(False)
    return context


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


# The parser's integer literals: a value outside int64 where the bindings build an int64 array
# (`permutation = [2**63, 0]`) ends IREE 3.13's process with SIGSEGV, and a 140,000-digit one
# took 200 s; so both are refused from the text before the parser sees it.
MAX_NUMBER_DIGITS = 40
# Candidates are found on a translated copy (every digit a "0", every hex digit too in the
# second), by `bytes.find`: a regular expression over the text ran at 10 MB/s.
_DIGITS = bytes.maketrans(b"0123456789", b"0" * 10)
_HEX = bytes.maketrans(b"0123456789abcdefABCDEF", b"0" * 22)
_CANDIDATES = ((_DIGITS, b"0" * 19), (_HEX, b"0x" + b"0" * 16))
# A line's tokens, so that a digit run inside a string, a comment or a name is told apart.
_TOKEN = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|[%^#@][\w$.\-]*'
                    r"|0[xX][0-9a-fA-F]+|[0-9]+|[A-Za-z_][\w$.]*")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+")
# The bytes of an MLIR file and its ops: the parser and the walks hold every op (`check` on a
# function of 1,000,000 `arith.addi`: 856 MiB, 22 s of CPU). Ops are counted as dotted names
# (`arith.addi`, also in types and locations: at least one per op) on a copy where letters
# are "a", plus the op names a default dialect lets a file write bare.
MAX_MLIR_BYTES = 256 * 2**20
MAX_OPS = 2_000_000
_LETTERS = bytes.maketrans(bytes(range(256)), bytes(
    ord("a") if chr(b).isascii() and (chr(b).isalpha() or chr(b) == "_")
    else b if b == ord(".") else ord(" ") for b in range(256)))


# Ops a region's default dialect lets a file write without their prefix: `func.func`'s
# `call` and `return` (a file of millions of `call @g() : () -> ()` lines was counted as
# none), the builtin dialect's `module`. Counted as substrings not after a ".": an overcount
# where one is part of a longer name, never an undercount.
_BARE_OP_NAMES = (b"return", b"call", b"constant", b"module", b"unrealized_conversion_cast")


def count_op_names(data: bytes) -> int:
    bare = sum(data.count(name) - data.count(b"." + name) for name in _BARE_OP_NAMES)
    return data.translate(_LETTERS).count(b"a.a") + bare


def check_numbers(path: str | Path, data: bytes) -> None:
    """Refuse the first integer literal outside int64, or number of more than
    `MAX_NUMBER_DIGITS` digits, that is not inside a string, a comment or a name.
    Only the lines of candidates (a 19-digit run, a 16-digit hex run) are tokenized."""
    lines: set[int] = set()
    for table, pattern in _CANDIDATES:
        marked = data.translate(table)
        at = marked.find(pattern)
        while at >= 0:
            lines.add(data.rfind(b"\n", 0, at) + 1)
            end = data.find(b"\n", at)
            at = marked.find(pattern, end) if end >= 0 else -1
    for start in sorted(lines):
        end = data.find(b"\n", start)
        line = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
        for token in _TOKEN.finditer(line):
            if token.group()[0] in '"/%^#@':
                continue
            for number in _NUMBER.finditer(token.group()):
                col = token.start() + number.start()
                if _out_of_range(number.group(), line, col):
                    line_no = data.count(b"\n", 0, start) + 1
                    col -= col > 0 and line[col - 1] == "-"  # the place of its sign
                    raise InputError(path, f"error: {_number_reason(number.group())}",
                                     f"{line_no}:{col + 1}")


def _out_of_range(number: str, line: str, at: int) -> bool:
    hexadecimal = number[:2].lower() == "0x"
    digits = number[2:] if hexadecimal else number
    if len(digits) > MAX_NUMBER_DIGITS:
        return True
    after = line[at + len(number):at + len(number) + 1]
    if at > 0 and line[at - 1] == "." or after in (".", "e", "E"):
        return False  # a float's digits: APFloat reads any of them
    if hexadecimal:
        return len(digits.lstrip("0")) > 16
    negative = at > 0 and line[at - 1] == "-"
    return int(digits) > 2**63 - 1 + negative


def _number_reason(number: str) -> str:
    hexadecimal = number[:2].lower() == "0x"
    digits = number[2:] if hexadecimal else number
    if len(digits) > MAX_NUMBER_DIGITS:
        return (f"a number of {len(digits):,} digits; memplan reads numbers of at most "
                f"{MAX_NUMBER_DIGITS} digits")
    bits = int(digits, 16 if hexadecimal else 10).bit_length()
    return (f"an integer of {bits} bits; memplan reads integers that fit 64 bits (signed): "
            "IREE's parser crashes on wider ones in integer arrays")


def read_mlir_text(path: str | Path) -> str:
    """The file's text, refused with one line if memplan cannot or must not parse it."""
    try:
        with open(path, "rb") as file:  # read up to the limit: a device or FIFO has no size
            data = file.read(MAX_MLIR_BYTES + 1)
        if len(data) > MAX_MLIR_BYTES:
            raise InputError(path, f"more than {MAX_MLIR_BYTES:,} bytes; memplan reads MLIR "
                             "files of at most that")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(path, f"cannot read file: {reason}") from None
    if not text.strip():
        raise InputError(path, "empty file: expected MLIR")
    check_numbers(path, data)
    ops = count_op_names(data)
    if ops > MAX_OPS:
        raise InputError(path, f"{ops:,} op names; memplan reads at most {MAX_OPS:,} ops in "
                         "one file")
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
