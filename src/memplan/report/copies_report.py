"""Copy accounting before and after the tensor rewrites, beside IREE's own figures.

One row per function and stage: memplan's estimate of transient and copied bytes
(analysis/copies.py) and, when asked, what `iree-compile --compile-to=stream`
allocates and copies for the same module. The command fills the rows; this
module only formats them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum

from .table import format_table


class Stage(StrEnum):
    """Which program a row measures: the input, or the input after the tensor rewrites."""

    BEFORE = "before"
    AFTER = "after"


@dataclass
class CopyRow:
    function: str
    stage: Stage
    transient: int | None  # None: a size memplan cannot evaluate
    copied: int | None
    bound: bool  # a dynamic size was taken at its shape's maximum
    iree_transient: int | None = None
    iree_copied: int | None = None
    iree_constant_copied: int | None = None
    iree_memcpy_dispatches: int | None = None
    iree_error: str | None = None


def format_copy_table(rows: list[CopyRow], iree: bool = True) -> str:
    headers = ["function", "stage", "transient B", "copied B"]
    if iree:
        headers += ["IREE transient B", "IREE copied B", "IREE copied from const B"]
    body = []
    for r in rows:
        mark = "*" if r.bound else ""
        line: list[object] = [r.function, r.stage, _n(r.transient, None) + mark,
                              _n(r.copied, None) + mark]
        if iree:
            line += [_n(r.iree_transient, r.iree_error), _n(r.iree_copied, r.iree_error),
                     _n(r.iree_constant_copied, r.iree_error)]
        body.append(line)
    text = format_table(headers, body, right_align=[False, False] + [True] * (len(headers) - 2))
    if any(r.bound for r in rows):
        text += "\n* a dynamic size was taken at the maximum its shape allows (use --at)"
    shown = [(r.transient, r.copied) + ((r.iree_transient, r.iree_copied)
                                         if iree and not r.iree_error else ()) for r in rows]
    if any(v is None for values in shown for v in values):
        text += "\n? a size that depends on a value not given (use --at); not counted as 0"
    errors = sorted({r.iree_error for r in rows if r.iree_error})
    return text + "".join(f"\n{e}" for e in errors) + "\n"


def _n(value: int | None, error: str | None) -> str:
    if error:
        return "fails"
    return "?" if value is None else f"{value:,}"


def copy_json(rows: list[CopyRow]) -> list[dict[str, object]]:
    # `asdict` would deep-copy every value of thousands of rows of plain scalars.
    names = [f.name for f in fields(CopyRow)]
    return [{name: getattr(r, name) for name in names} for r in rows]
