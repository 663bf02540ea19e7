"""What `memplan copies` shows for a stream-level file: IREE's allocations and copies, op by op."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from ..analysis.stream import StreamFunction
from .table import format_table


def _size(value: int | None, symbol: str) -> str:
    return f"{value:,}" if value is not None else f"{symbol} (symbolic)"


def _where(loc: object) -> str:
    return f"{loc.line}:{loc.col}" if loc is not None else "-"  # type: ignore[attr-defined]


def format_stream_listing(listing: Sequence[StreamFunction]) -> str:
    rows = []
    for f in listing:
        found = [(a.location, [f.function, _where(a.location), a.op, a.lifetime_kind.value,
                               _size(a.bytes, a.size_value), f"[{a.live[0]}, {a.live[1]})"])
                 for a in f.allocations]
        found += [(c.location, [f.function, _where(c.location), c.op,
                                "from constant" if c.from_constant else "",
                                _size(c.bytes, c.size_value), ""]) for c in f.copies]
        found.sort(key=lambda item: (item[0].line, item[0].col) if item[0] else (0, 0))
        rows += [row for _, row in found]
    parts = []
    if rows:
        parts.append(format_table(["function", "line:col", "op", "lifetime", "bytes", "live"],
                                  rows, right_align=[False] * 4 + [True, False]))
    totals = [[f.function, len(f.allocations), _total(f.transient_bytes), len(f.copies),
               _total(f.copied_bytes)] for f in listing if f.allocations or f.copies]
    if totals:
        parts.append(format_table(["function", "allocations", "transient bytes", "copies",
                                   "copied bytes"], totals,
                                  right_align=[False, True, True, True, True]))
    if not parts:
        return "no stream allocations or copies\n"
    return "\n\n".join(parts) + "\n"


def _total(value: int | None) -> str:
    return f"{value:,}" if value is not None else "symbolic (bind sizes with --at)"


def stream_json(listing: Sequence[StreamFunction]) -> list[dict[str, Any]]:
    def clean(record: object) -> dict[str, Any]:
        data = asdict(record)  # type: ignore[call-overload]
        if "lifetime_kind" in data:
            data["lifetime_kind"] = data["lifetime_kind"].value
        loc = data.pop("location")
        data["location"] = None if loc is None else {"line": loc["line"], "col": loc["col"]}
        return data

    return [{"function": f.function, "chunk": f.chunk,
             "transient_bytes": f.transient_bytes, "copied_bytes": f.copied_bytes,
             "allocations": [clean(a) for a in f.allocations],
             "copies": [clean(c) for c in f.copies]} for f in listing]
