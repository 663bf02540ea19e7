"""Read and write problems in google/minimalloc's CSV format.

Header `id,lower,upper,size` with optional `alignment` and `offset` columns;
`upper` is exclusive. A file named like `A.1048576.csv` carries its capacity
as the last dotted number of its name.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..errors import InputError
from .problem import Buffer, Problem, Solution

REQUIRED_COLUMNS = ("id", "lower", "upper", "size")
OPTIONAL_COLUMNS = ("alignment", "offset")


def capacity_from_name(path: str | Path) -> int | None:
    """`A.1048576.csv` -> 1048576; None when the name carries no number."""
    parts = Path(path).name.split(".")[:-1]  # drop the extension
    for part in reversed(parts[1:]):
        if part.isdigit():
            return int(part)
    return None


def read_problem(path: str | Path, capacity: int | None = None) -> Problem:
    """Parse a CSV file; `capacity` overrides the one in the file name."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(path, f"cannot read file: {reason}") from None
    problem = parse_problem(text, str(path))
    if capacity is None:
        capacity = capacity_from_name(path)
    return Problem(problem.buffers, capacity)


def parse_problem(text: str, path: str = "<input>") -> Problem:
    rows = list(csv.reader(io.StringIO(text)))
    rows_with_lines = [(n, r) for n, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
    if not rows_with_lines:
        raise InputError(path, "empty file: expected a header 'id,lower,upper,size'")
    header_line, header = rows_with_lines[0]
    columns = [c.strip().lower() for c in header]
    for name in REQUIRED_COLUMNS:
        if name not in columns:
            raise InputError(path, f"missing column '{name}' in header", header_line)
    unknown = [c for c in columns if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    if unknown:
        raise InputError(path, f"unknown column '{unknown[0]}' in header", header_line)
    if len(set(columns)) != len(columns):
        raise InputError(path, "a column appears twice in the header", header_line)
    if len(rows_with_lines) == 1:
        raise InputError(path, "no buffers after the header", header_line)

    buffers: list[Buffer] = []
    seen_ids: dict[str, int] = {}
    for line, row in rows_with_lines[1:]:
        if len(row) != len(columns):
            raise InputError(path, f"expected {len(columns)} fields, found {len(row)}", line)
        fields = dict(zip(columns, (c.strip() for c in row), strict=True))
        buffer = _buffer_from_fields(fields, path, line)
        if buffer.id in seen_ids:
            raise InputError(
                path, f"duplicate id '{buffer.id}' (first on line {seen_ids[buffer.id]})", line
            )
        seen_ids[buffer.id] = line
        buffers.append(buffer)
    problem = Problem(tuple(buffers))
    _check_fixed_offsets(problem, path, list(seen_ids.values()))
    return problem


def _int_field(fields: dict[str, str], name: str, path: str, line: int) -> int:
    value = fields[name]
    try:
        return int(value)
    except ValueError:
        raise InputError(path, f"{name} '{value}' is not an integer", line) from None


def _buffer_from_fields(fields: dict[str, str], path: str, line: int) -> Buffer:
    buffer_id = fields["id"]
    if not buffer_id:
        raise InputError(path, "empty id", line)
    lower = _int_field(fields, "lower", path, line)
    upper = _int_field(fields, "upper", path, line)
    size = _int_field(fields, "size", path, line)
    if lower >= upper:
        raise InputError(
            path, f"buffer '{buffer_id}': lower {lower} must be below upper {upper}", line
        )
    if size <= 0:
        raise InputError(path, f"buffer '{buffer_id}': size {size} must be positive", line)
    alignment = 1
    if fields.get("alignment", ""):
        alignment = _int_field(fields, "alignment", path, line)
        if alignment <= 0:
            raise InputError(
                path, f"buffer '{buffer_id}': alignment {alignment} must be positive", line
            )
    offset = None
    if fields.get("offset", ""):
        offset = _int_field(fields, "offset", path, line)
        if offset < 0:
            raise InputError(path, f"buffer '{buffer_id}': offset {offset} is negative", line)
        if offset % alignment:
            raise InputError(
                path,
                f"buffer '{buffer_id}': fixed offset {offset} is not a multiple of "
                f"its alignment {alignment}",
                line,
            )
    return Buffer(buffer_id, lower, upper, size, alignment, offset)


def _check_fixed_offsets(problem: Problem, path: str, lines: list[int]) -> None:
    fixed = [(b, line) for b, line in zip(problem.buffers, lines, strict=True)
             if b.offset is not None]
    fixed.sort(key=lambda item: item[0].start)
    for i, (a, _) in enumerate(fixed):
        for b, line in fixed[i + 1:]:
            if b.start >= a.end:
                break
            assert a.offset is not None and b.offset is not None
            if a.offset < b.offset + b.size and b.offset < a.offset + a.size:
                raise InputError(
                    path,
                    f"fixed buffer '{b.id}' overlaps fixed buffer '{a.id}' in time and address",
                    line,
                )


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

