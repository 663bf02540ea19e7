"""Target descriptions as text and JSON: the list of presets and one target in detail."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..targets import Target
from .table import format_table


def human_bytes(n: int | None) -> str:
    """`32 KiB`, `2 MiB`, `166912 B`: binary units only when they are exact."""
    if n is None:
        return "unbounded"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def space_summary(target: Target) -> str:
    """One cell naming every memory space and its size, in placement order."""
    parts = []
    if target.stack:
        parts.append(f"stack {human_bytes(target.stack.max_frame)}/frame")
    parts += [f"{p.name} {human_bytes(p.capacity)}" for p in target.pools]
    if target.heap:
        parts.append(f"heap {human_bytes(target.heap.capacity)}")
    if target.workgroup:
        parts.append(f"workgroup {human_bytes(target.workgroup.limit_per_kernel)}/kernel")
    return ", ".join(parts)


def format_target_list(targets: list[Target]) -> str:
    rows = [(t.name, ",".join(t.devices), space_summary(t)) for t in targets]
    return format_table(["target", "devices", "memory spaces"], rows) + "\n"


def format_target(target: Target) -> str:
    """One target in detail: every space with its numbers and who can reach it."""
    lines = [f"{target.name}: {target.description}",
             f"devices: {', '.join(target.devices)} (default: {target.default_device})",
             f"source: {target.source}", ""]
    rows: list[tuple[object, ...]] = []
    if target.stack:
        s = target.stack
        limit = f"frame {s.max_frame}"
        if s.max_allocation is not None:
            limit += f", allocation {s.max_allocation}"
        rows.append(("stack", limit, s.alignment, ",".join(s.addressable_by) or "-",
                     s.description))
    else:
        rows.append(("stack", "none (no addressable stack)", "-", "-", ""))
    for p in target.pools:
        rows.append((p.name, f"capacity {p.capacity}", p.alignment, ",".join(p.reachable_by),
                     p.description))
    if target.heap:
        h = target.heap
        capacity = "unbounded" if h.capacity is None else f"capacity {h.capacity}"
        rows.append(("heap", capacity, h.alignment, ",".join(h.reachable_by) or "-",
                     h.description))
    if target.workgroup:
        w = target.workgroup
        rows.append(("workgroup", f"per kernel {w.limit_per_kernel}", w.alignment, "kernel",
                     w.description))
    table = format_table(["space", "bytes", "align", "reachable by", "what"], rows,
                         right_align=[False, False, True, False, False])
    return "\n".join(lines) + "\n" + table + "\n"


def target_json(target: Target) -> dict[str, Any]:
    data = asdict(target)
    data["default_device"] = target.default_device
    return data
