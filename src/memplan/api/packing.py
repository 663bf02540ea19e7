"""`pack`: buffers with lifetimes packed at static offsets, from a CSV file in
minimalloc's format or from rows in memory."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Sequence
from typing import Any

from ..pack import Buffer, PackOptions, PackResult, Problem
from ..pack import pack as pack_problem
from ..pack.csvio import check_capacity, parse_problem, read_problem

# minimalloc's columns, in its order; a row gives the first four or more.
COLUMNS = ("id", "lower", "upper", "size", "alignment", "offset")
ROWS = "<rows>"

Source = str | os.PathLike[str] | Problem | Iterable[Buffer | Sequence[object]]


def pack(source: Source, *, capacity: int | None = None, **options: Any) -> PackResult:
    """Pack `source`: a CSV path (a name like A.1048576.csv gives the capacity), a
    `Problem`, or buffers (`pack.Buffer`s, or rows `(id, lower, upper, size[, alignment[,
    offset]])`, checked as a file's rows are). `capacity` overrides the file's or the
    problem's; `options` are `pack.PackOptions`' fields (`exact`, `minimize`,
    `time_limit`, ...). The result has `.peak`, `.lower_bound`, `.status` and `.offsets`
    (by buffer id). Bad input raises `errors.InputError`."""
    if isinstance(source, str | os.PathLike):
        problem = read_problem(source, capacity)
    else:
        problem = source if isinstance(source, Problem) else _problem(list(source))
        if capacity is not None:
            problem = Problem(problem.buffers, check_capacity(capacity, "capacity"))
    return pack_problem(problem, PackOptions(**options))


def _problem(rows: list[Buffer | Sequence[object]]) -> Problem:
    if rows and all(isinstance(r, Buffer) for r in rows):
        return Problem(tuple(rows))  # type: ignore[arg-type]
    # Rows go through the file reader, so they are held to every rule a file is.
    width = max((len(r) for r in rows), default=len(COLUMNS[:4]))
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS[:width])
    # An empty field is the column's default, as in a file: rows may be of either width.
    writer.writerows([*r, *[""] * (width - len(r))] for r in rows)
    return parse_problem(text.getvalue(), ROWS)
