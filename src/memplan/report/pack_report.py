"""What `memplan pack` shows: the plan per buffer, and how it compares to the bound."""

from __future__ import annotations

from typing import Any

from ..pack import PackResult
from .table import format_table


def summary_rows(result: PackResult) -> list[tuple[str, object]]:
    capacity = result.problem.capacity
    rows: list[tuple[str, object]] = [
        ("buffers", len(result.problem)),
        ("lower bound", result.lower_bound),
        ("peak", result.peak),
        ("peak / lower bound", f"{result.ratio:.4f}"),
        ("capacity", capacity if capacity is not None else "none"),
        ("fits capacity", "-" if result.fits is None else ("yes" if result.fits else "no")),
        ("strategy", result.strategy),
        ("solve time", f"{result.seconds:.3f} s"),
    ]
    if result.proven_bound is not None:  # the exact search ran: what it proved
        rows.insert(-1, ("exact status", result.status))
        rows.insert(-1, ("proven bound", result.proven_bound))
    if result.cpu_seconds is not None:
        rows.append(("solve CPU", f"{result.cpu_seconds:.3f} s"))
    if result.load_seconds:
        rows.append(("search loaded in", f"{result.load_seconds:.3f} s (not in the solve time)"))
    return rows


def format_pack_text(result: PackResult, show_buffers: bool = True) -> str:
    parts = []
    if show_buffers:
        rows = [
            (b.id, b.start, b.end, b.size, b.alignment, off, off + b.size)
            for b, off in zip(result.problem.buffers, result.solution.offsets, strict=True)
        ]
        parts.append(format_table(
            ("id", "lower", "upper", "size", "align", "offset", "end"), rows))
        parts.append("")
    width = max(len(k) for k, _ in summary_rows(result))
    parts.extend(f"{k.ljust(width)}  {v}" for k, v in summary_rows(result))
    return "\n".join(parts) + "\n"


# `memplan pack --json`: its JSON Schema is report/schemas/pack.schema.json. The version
# goes up when a field changes meaning or goes away (a new field does not change it).
PACK_SCHEMA = "memplan.pack"
PACK_SCHEMA_VERSION = 2  # 2: `status` is the plan's PlanStatus, for every plan


def pack_json(result: PackResult) -> dict[str, Any]:
    return {
        "schema": PACK_SCHEMA,
        "schema_version": PACK_SCHEMA_VERSION,
        "buffers": [
            {"id": b.id, "lower": b.start, "upper": b.end, "size": b.size,
             "alignment": b.alignment, "offset": off}
            for b, off in zip(result.problem.buffers, result.solution.offsets, strict=True)
        ],
        "lower_bound": result.lower_bound,
        "peak": result.peak,
        "ratio": result.ratio,
        "capacity": result.problem.capacity,
        "fits": result.fits,
        "strategy": result.strategy,
        "seconds": result.seconds,
        "cpu_seconds": result.cpu_seconds,
        "status": result.status,
        "proven_bound": result.proven_bound,
    }
