"""Plain-text tables aligned for a terminal."""

from __future__ import annotations

from collections.abc import Sequence


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]],
                 right_align: Sequence[bool] | None = None) -> str:
    """Columns padded to their widest cell; numbers read best right-aligned."""
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    if right_align is None:
        right_align = [all(isinstance(row[i], int | float) for row in rows) and bool(rows)
                       for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        padded = [c.rjust(w) if right else c.ljust(w)
                  for c, w, right in zip(row, widths, right_align, strict=True)]
        lines.append("  ".join(padded).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
