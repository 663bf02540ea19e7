"""Read and write problems in google/minimalloc's CSV format.

Header `id,lower,upper,size` with optional `alignment` and `offset` columns;
`upper` is exclusive. A file named like `A.1048576.csv` carries its capacity
as the last dotted number of its name.

Reading streams the file (blank lines cost nothing) and refuses, as one line
naming the line, any number outside the limits of `memplan.limits`.
"""

from __future__ import annotations

import bisect
import csv
import io
import os
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, BinaryIO, TextIO

from ..errors import InputError
from ..limits import MAX_INT_CHARS, MAX_TOTAL, PACK_MAX_VALUE, read_int, shorten
from .problem import Buffer, Problem, Solution

if TYPE_CHECKING:
    from pathlib import Path  # not loaded to run: it brings urllib.parse and ipaddress

# The most buffers one CSV may hold: `memplan pack` of this many in one time partition,
# with lifetimes and alignments that leave the greedy packer's block lists unmerged, took
# 1.60 GiB (docs/reliability.md, "Memory at the limits"); 2,000,000 buffers in one
# partition took 2.9 GiB. A file with more rows is refused before it is parsed.
MAX_BUFFERS = 1 << 20  # 1,048,576
REQUIRED_COLUMNS = ("id", "lower", "upper", "size")
OPTIONAL_COLUMNS = ("alignment", "offset")


def capacity_from_name(path: str | Path) -> int | None:
    """`A.1048576.csv` -> 1048576; None when the name carries no number."""
    parts = os.path.basename(path).split(".")[:-1]  # drop the extension
    for part in reversed(parts[1:]):
        if part.isascii() and part.isdigit():
            try:
                return check_capacity(read_int(part), str(path))
            except ValueError as err:
                raise InputError(path, f"capacity in the file name: {err}") from None
    return None


def check_capacity(capacity: int, where: str = "--capacity") -> int:
    if not 0 <= capacity <= PACK_MAX_VALUE:
        raise InputError(where, f"capacity {capacity} is outside [0, 2**62]")
    return capacity


def read_problem(path: str | Path, capacity: int | None = None) -> Problem:
    """Parse a CSV file; `capacity` overrides the one in the file name."""
    if capacity is None:
        capacity = capacity_from_name(path)
    try:
        with open(path, "rb") as raw:
            _refuse_too_many_rows(raw, str(path))
            raw.seek(0)
            with open(raw.fileno(), encoding="utf-8", closefd=False) as f:
                return read_problem_from(f, str(path), capacity)
    except OSError as err:
        reason = err.strerror or str(err)
        raise InputError(path, f"cannot read file: {reason}") from None


# The shortest row of a CSV: `0,0,1,1` and its line break. A file with fewer bytes than
# MAX_BUFFERS + 1 such rows cannot pass the limit and is not counted.
_SHORTEST_ROW = 8
# Whitespace that makes a line blank for `_NON_BLANK_LINE`, as UTF-8: the ASCII ones are
# deleted by `bytes.translate` (\r becomes a line break, as text mode reads it), the
# others replaced one by one, only in blocks that are not ASCII.
_ASCII_BLANKS = bytes(b for b in range(128) if chr(b).isspace() and chr(b) not in "\r\n")
_CR_TO_LF = bytes.maketrans(b"\r", b"\n")
# Every other character `str.isspace` takes (Unicode's White_Space, U+3000 the highest),
# written out: found by testing each character up to U+3000 it cost 1.5 ms of every
# start-up. tests/test_pack_csv.py checks the list against `str.isspace`.
_OTHER_BLANKS = tuple(c.encode() for c in (
    "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"))


def _refuse_too_many_rows(raw: BinaryIO, path: str) -> None:
    """Refuse a file of more than MAX_BUFFERS rows before it is parsed, by counting its
    non-blank lines block by block (a 5M-row, 145 MB file: under a second, where parsing
    it up to the limit took 11 s); a file too short to pass the limit is not read."""
    try:
        size = os.fstat(raw.fileno()).st_size
    except OSError:
        return
    if size <= (MAX_BUFFERS + 1) * _SHORTEST_ROW:
        return  # also a FIFO or device (size 0): the parser counts its rows as it reads
    lines, carry = 0, b""
    while block := raw.read(_BLOCK_CHARS * 4):
        text = carry + block
        end = text.rfind(b"\n") + 1  # a UTF-8 sequence is never cut at a line break
        carry, text = text[end:], text[:end]
        lines += _non_blank_lines(text)
        if lines > MAX_BUFFERS + 1:  # one line is the header
            raise InputError(path, f"more than {MAX_BUFFERS:,} rows after the header, "
                             "memplan's limit for one problem (its memory grows with the "
                             "buffers); refused before reading them")
    # The rest (`carry`) is at most one more line: the parser's own count refuses it.


def _non_blank_lines(text: bytes) -> int:
    text = text.translate(_CR_TO_LF, _ASCII_BLANKS)
    if not text.isascii():
        for blank in _OTHER_BLANKS:
            text = text.replace(blank, b"")
    lines = text.split(b"\n")
    return len(lines) - lines.count(b"")


def read_problem_from(stream: TextIO, name: str, capacity: int | None = None) -> Problem:
    """Parse an open text stream (standard input: `memplan pack -`); `name` is what errors
    call it. Nothing but `capacity` gives the capacity: a stream has no file name."""
    if capacity is not None:
        check_capacity(capacity)
    try:
        problem = _parse_lines(_blocks(stream), name)
    except UnicodeDecodeError as err:
        raise InputError(name, f"cannot read file: {err}") from None
    return Problem(problem.buffers, capacity)


def parse_problem(text: str, path: str = "<input>") -> Problem:
    # As `open` does by default: \r\n and \r end a line like \n.
    return _parse_lines([text.replace("\r\n", "\n").replace("\r", "\n")], path)


def _blocks(f: TextIO) -> Iterator[str]:
    while block := f.read(_BLOCK_CHARS):
        yield block


_BLOCK_CHARS = 1 << 20
_FIELD_LIMIT = csv.field_size_limit()
# Six fields at csv's limit of 131,072 characters each, and their commas, fit.
MAX_LINE_CHARS = 1 << 20
_NON_BLANK_LINE = re.compile(r"^[^\S\n]*\S[^\n]*", re.MULTILINE)


def _records(blocks: Iterable[str], path: str) -> Iterator[tuple[int, list[str]]]:
    """Non-blank lines as CSV records, with their line numbers.

    Lines are found block by block with a regular expression, so blank lines
    (even 100 MB of them) are skipped at the speed of a scan. A record is one
    line: a quoted field may hold commas but not a line break.
    """
    line, carry = 1, ""
    for block in blocks:
        text = carry + block
        end = text.rfind("\n") + 1  # the part after the last newline waits for more
        carry, text = text[end:], text[:end]
        yield from _records_in(text, line, path)
        line += text.count("\n")
        if len(carry) > MAX_LINE_CHARS:
            raise InputError(path, f"line longer than {MAX_LINE_CHARS:,} characters", line)
    yield from _records_in(carry, line, path)


def _records_in(text: str, line: int, path: str) -> Iterator[tuple[int, list[str]]]:
    if text.isspace():
        return
    if '"' not in text and "\0" not in text:
        # No quoting and nothing csv refuses: a record is the line split at commas,
        # what csv.reader would return, at a fraction of its cost per line. A line
        # long enough to hold a field past csv's size limit goes to csv, which says so.
        position = 0
        for match in _NON_BLANK_LINE.finditer(text):
            line += text.count("\n", position, match.start())
            position = match.start()
            row = match.group()
            if len(row) > _FIELD_LIMIT:
                yield from _csv_records_in(row, line, path)
            else:
                yield line, row.split(",")
        return
    yield from _csv_records_in(text, line, path)


def _csv_records_in(text: str, line: int, path: str) -> Iterator[tuple[int, list[str]]]:
    position = 0
    for match in _NON_BLANK_LINE.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        try:
            row = next(csv.reader([match.group()], strict=True))
        except csv.Error as err:
            # The field-size limit (131,072 characters) keeps one record bounded.
            reason = ("a quoted field runs past the end of the line (unmatched quote?)"
                      if "unexpected end of data" in str(err) else f"unreadable CSV: {err}")
            raise InputError(path, reason, line) from None
        yield line, row


def _parse_lines(lines: Iterable[str], path: str) -> Problem:
    records = _records(lines, path)
    found = next(records, None)
    if found is None:
        raise InputError(path, "empty file: expected a header 'id,lower,upper,size'")
    header_line, header = found
    columns = [c.strip().lower() for c in header]
    for name in REQUIRED_COLUMNS:
        if name not in columns:
            raise InputError(path, f"missing column '{name}' in header", header_line)
    unknown = [c for c in columns if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    if unknown:
        raise InputError(path, f"unknown column {shorten(unknown[0])} in header", header_line)
    if len(set(columns)) != len(columns):
        raise InputError(path, "a column appears twice in the header", header_line)

    buffers: list[Buffer] = []
    lines_of: list[int] = []
    seen_ids: dict[str, int] = {}
    total = 0  # sizes + alignments of the buffers to place
    top = 0  # the highest end of a fixed buffer
    width = len(columns)
    plain = sorted(columns) == sorted(REQUIRED_COLUMNS)
    at = [columns.index(name) for name in REQUIRED_COLUMNS]
    for line, row in records:
        if len(row) != width:
            raise InputError(path, f"expected {width} fields, found {len(row)}", line)
        buffer = _plain_buffer(row, at) if plain else None
        if buffer is None:  # not the common case, or bad: the full reading says why
            fields = dict(zip(columns, (c.strip() for c in row), strict=True))
            buffer = _buffer_from_fields(fields, path, line)
        if buffer.id in seen_ids:
            raise InputError(path, f"duplicate id {shorten(buffer.id)} (first on line "
                             f"{seen_ids[buffer.id]})", line)
        seen_ids[buffer.id] = line
        if len(buffers) == MAX_BUFFERS:
            raise InputError(path, f"more than {MAX_BUFFERS:,} buffers, memplan's limit for one "
                             "problem (its memory grows with the buffers)", line)
        if buffer.offset is None:
            total += buffer.size + buffer.alignment
        else:
            top = max(top, buffer.offset + buffer.size)
        if top + total > MAX_TOTAL:
            raise InputError(path, "the highest fixed buffer's end plus the sizes and "
                             "alignments of the others add up to more than 2**62 bytes", line)
        buffers.append(buffer)
        lines_of.append(line)
    if not buffers:
        raise InputError(path, "no buffers after the header", header_line)
    problem = Problem(tuple(buffers))
    _check_fixed_offsets(problem, path, lines_of)
    return problem


def _plain_buffer(row: list[str], at: list[int]) -> Buffer | None:
    """The buffer of a row with only the required columns, when every field is a plain
    integer within memplan's limits; None for anything else (the caller then reads
    the row field by field, which names what is wrong). Reading a million rows,
    this is most of the time spent."""
    buffer_id = row[at[0]].strip()
    try:
        lower, upper, size = int(row[at[1]]), int(row[at[2]]), int(row[at[3]])
    except ValueError:
        return None
    if (buffer_id and 0 <= lower < upper <= PACK_MAX_VALUE and 0 < size <= PACK_MAX_VALUE
            and max(len(row[at[1]]), len(row[at[2]]), len(row[at[3]])) <= MAX_INT_CHARS):
        return Buffer(buffer_id, lower, upper, size)
    return None


def _int_field(fields: dict[str, str], name: str, path: str, line: int, lowest: int,
               what: str) -> int:
    try:
        value = read_int(fields[name])
    except ValueError as err:
        raise InputError(path, f"{name} {err}", line) from None
    if value < lowest:
        raise InputError(path, f"buffer {shorten(fields['id'])}: {name} {value} {what}", line)
    if value > PACK_MAX_VALUE:
        raise InputError(path, f"buffer {shorten(fields['id'])}: {name} {value} is above "
                         "memplan's limit 2**62", line)
    return value


def _buffer_from_fields(fields: dict[str, str], path: str, line: int) -> Buffer:
    buffer_id = fields["id"]
    if not buffer_id:
        raise InputError(path, "empty id", line)
    lower = _int_field(fields, "lower", path, line, 0, "is negative")
    upper = _int_field(fields, "upper", path, line, 0, "is negative")
    size = _int_field(fields, "size", path, line, 1, "must be positive")
    name = shorten(buffer_id)
    if lower >= upper:
        raise InputError(path, f"buffer {name}: lower {lower} must be below upper {upper}", line)
    alignment = 1
    if fields.get("alignment", ""):
        alignment = _int_field(fields, "alignment", path, line, 1, "must be positive")
    offset = None
    if fields.get("offset", ""):
        offset = _int_field(fields, "offset", path, line, 0, "is negative")
        if offset % alignment:
            raise InputError(
                path,
                f"buffer {name}: fixed offset {offset} is not a multiple of "
                f"its alignment {alignment}",
                line,
            )
    return Buffer(buffer_id, lower, upper, size, alignment, offset)


def _check_fixed_offsets(problem: Problem, path: str, lines: list[int]) -> None:
    """Fixed buffers live at the same time must not share an address.

    A sweep over time keeps the live fixed buffers ordered by offset; they are
    disjoint, so a new one overlaps some live buffer exactly when it overlaps
    its neighbour below or above: O(n log n) comparisons.
    """
    fixed = [(b, line) for b, line in zip(problem.buffers, lines, strict=True)
             if b.offset is not None]
    events = sorted([(b.end, 0, i) for i, (b, _) in enumerate(fixed)]
                    + [(b.start, 1, i) for i, (b, _) in enumerate(fixed)])
    live: list[tuple[int, int]] = []  # (offset, index), disjoint in address
    for _, starts, i in events:
        b, line = fixed[i]
        assert b.offset is not None
        key = (b.offset, i)
        at = bisect.bisect_left(live, key)
        if not starts:
            del live[at]
            continue
        for j in (at - 1, at):
            if 0 <= j < len(live):
                other = fixed[live[j][1]][0]
                assert other.offset is not None
                if other.offset < b.offset + b.size and b.offset < other.offset + other.size:
                    raise InputError(path, f"fixed buffer {shorten(b.id)} overlaps fixed "
                                     f"buffer {shorten(other.id)} in time and address", line)
        live.insert(at, key)


def format_solution(problem: Problem, solution: Solution) -> str:
    """The input columns plus `offset`, alignment kept when any buffer needs it."""
    with_alignment = any(b.alignment != 1 for b in problem.buffers)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["id", "lower", "upper", "size"] + (["alignment"] if with_alignment else [])
    writer.writerow(header + ["offset"])
    for b, off in zip(problem.buffers, solution.offsets, strict=True):
        row = [b.id, b.start, b.end, b.size] + ([b.alignment] if with_alignment else [])
        writer.writerow(row + [off])
    return out.getvalue()
