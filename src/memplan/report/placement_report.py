"""A placement as text (one row per allocation, then per-space totals) and as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..place import Assignment, Placement, SpaceUse
from .table import format_table


def format_placement_text(placements: Sequence[Placement], path: str) -> str:
    """Every allocation with its space, offset and reason; then each space's peak."""
    decisions = [d for p in placements for d in p.decisions]
    rows = [(d.allocation.function, _where(d), d.allocation.bytes_or_bound, _devices(d),
             d.space or "NONE", d.offset, d.reason) for d in decisions]
    out = [format_table(["function", "loc", "bytes", "used by", "space", "offset", "reason"],
                        rows, right_align=[False, False, True, False, False, True, False])]
    usage = [u for p in placements for u in p.usage]
    if usage:
        out.append("")
        out.append(format_table(["space", "buffers", "peak", "lower bound", "capacity", "use"],
                                [_usage_row(u) for u in usage]))
    if not decisions:
        out = [f"{path}: no allocations"]
    return "\n".join(out) + "\n"


def placement_json(placements: Sequence[Placement], path: str) -> dict[str, Any]:
    return {
        "file": path,
        "target": placements[0].target.name if placements else None,
        "allocations": [_decision_json(d) for p in placements for d in p.decisions],
        "spaces": [_usage_json(u) for p in placements for u in p.usage],
        "unplaced": sum(len(p.unplaced) for p in placements),
    }


def _where(d: Assignment) -> str:
    loc = d.allocation.location
    return f"{loc.line}:{loc.col}" if loc else "-"


def _devices(d: Assignment) -> str:
    return ",".join(d.devices) or "-"


def _usage_row(u: SpaceUse) -> tuple[object, ...]:
    use = "-" if not u.capacity else f"{100 * u.peak / u.capacity:.1f}%"
    return (u.label, u.buffers, u.peak, u.lower_bound,
            "unbounded" if u.capacity is None else u.capacity, use)


def _decision_json(d: Assignment) -> dict[str, Any]:
    a = d.allocation
    loc = a.location
    return {
        "function": a.function,
        "op": a.op_name,
        "location": None if loc is None else {"file": loc.path, "line": loc.line, "col": loc.col},
        "bytes": a.bytes_or_bound,
        "devices": list(d.devices),
        "space": d.space,
        "offset": d.offset,
        "reason": d.reason,
        "refusals": [{"space": s, "reason": why} for s, why in d.refusals],
    }


def _usage_json(u: SpaceUse) -> dict[str, Any]:
    return {"space": u.space, "function": u.function, "buffers": u.buffers, "peak": u.peak,
            "lower_bound": u.lower_bound, "capacity": u.capacity}
