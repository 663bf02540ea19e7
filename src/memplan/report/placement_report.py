"""A placement as text (one row per allocation, then per-space totals) and as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..analysis.census import Allocation
from ..place import Assignment, SpaceUse
from .table import format_table

if TYPE_CHECKING:
    from ..frontends.mlir_census import MlirPlacement


def format_placement_text(placements: Sequence[MlirPlacement], path: str) -> str:
    """Every allocation with its space, offset and reason; then each space's peak."""
    decisions = [da for p in placements for da in p.with_allocations()]
    rows = [(a.function, _where(a), a.bytes_or_bound, _devices(d),
             d.space or "NONE", d.offset, d.reason) for d, a in decisions]
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


def placement_json(placements: Sequence[MlirPlacement], path: str) -> dict[str, Any]:
    return {
        "file": path,
        "target": placements[0].target.name if placements else None,
        "allocations": [_decision_json(d, a) for p in placements for d, a in p.with_allocations()],
        "spaces": [_usage_json(u) for p in placements for u in p.usage],
        "unplaced": sum(len(p.unplaced) for p in placements),
    }


def _where(a: Allocation) -> str:
    loc = a.location
    return f"{loc.line}:{loc.col}" if loc else "-"


def _devices(d: Assignment) -> str:
    return ",".join(d.devices) or "-"


def _usage_row(u: SpaceUse) -> tuple[object, ...]:
    use = "-" if not u.capacity else f"{100 * u.peak / u.capacity:.1f}%"
    return (u.label, u.buffers, u.peak, u.lower_bound,
            "unbounded" if u.capacity is None else u.capacity, use)


def _decision_json(d: Assignment, a: Allocation) -> dict[str, Any]:
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
