"""What `memplan plan MODEL` shows, for every front end: per arena the lower bound,
memplan's size and the runtime's own, then the tensors, the spills, the execution check
and the notes; as text, and as one JSON document (`plan_json`, schema in
`schemas/plan.schema.json`, documented in docs/json-schema.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .table import format_table

if TYPE_CHECKING:
    from ..plan.contract import RunCheck
    from ..plan.driver import ModelPlan

SCHEMA_VERSION = 1
# --check-run when the runtime's own output was kept (`ModelPlan.own`): running it against
# the runtime's own compile would compare a model with itself.
NOT_RUN = ("not run: the runtime's own output was kept, so nothing of memplan's differs "
           "from what it would be compared with")


def runtime_planner(plan: ModelPlan) -> str | None:
    """The runtime's own planner, as its column is headed."""
    for arena in plan.view.arenas:
        if arena.runtime is not None:
            return arena.runtime.planner
    return None


def format_plan_text(plan: ModelPlan, *, check: RunCheck | None = None,
                     check_error: str | None = None, written: str | None = None,
                     show_tensors: bool = True, asked_run: bool = False) -> str:
    parts: list[str] = []
    if show_tensors:
        parts += [_tensor_table(plan), ""]
    theirs = runtime_planner(plan)
    refused = next((a.runtime_error for a in plan.view.arenas if a.runtime_error), None)
    # The floor of any order, where the front end lists its operators.
    floors = {f.arena: f.bytes for f in plan.floors}
    floor = ["floor"] if floors else []
    rows = [[a.name, len(a.buffers), *([floors.get(a.name, "-")] if floors else []),
             a.lower_bound, a.size,
             a.runtime if a.runtime is not None else ("refused" if refused else "-"),
             a.proof.value, "-" if a.capacity is None else a.capacity] for a in plan.arenas]
    parts.append(format_table(["arena", "tensors", *floor, "lower bound", "memplan",
                               theirs or "runtime", "status", "capacity"], rows))
    parts.append("")
    summary: list[tuple[str, object]] = [("model", plan.view.path),
                                         ("runtime", plan.runtime)]
    summary.append(("memplan total", f"{plan.total:,} B (lower bound {plan.lower_bound:,} B"
                    + (f", floor of any order {plan.floor:,} B" if plan.floor is not None
                       else "") + ")"))
    if plan.original_lower_bound is not None:
        summary.append(("lower bound as given", f"{plan.original_lower_bound:,} B "
                        "(before --rewrite)"))
    for r in plan.rewrites:
        if r.kept:
            summary.append((f"rewrite {r.kind.value}", f"kept: bound {r.bound_before:,} -> "
                            f"{r.bound_after:,} B; " + "; ".join(r.what[:3])
                            + (f"; and {len(r.what) - 3} more" if len(r.what) > 3 else "")))
        else:
            summary.append((f"rewrite {r.kind.value}", f"not kept: {r.reason}"))
    if plan.runtime_total is not None and theirs:
        ratio = plan.runtime_total / plan.total if plan.total else 1.0
        summary.append((f"{theirs} total", f"{plan.runtime_total:,} B ({ratio:.3f}x memplan's)"))
    elif refused:
        summary.append((f"{theirs or 'the runtime'}", f"refused: {refused}"))
    split = sorted({a.assignment for a in plan.arenas if a.assignment})
    if split:
        summary.append(("split over the pools", ", ".join(split)))
    kept = sorted({a.chosen for a in plan.arenas if a.chosen != "memplan"})
    if plan.own is not None:
        summary.append(("plan kept", plan.own))
    elif kept:
        summary.append(("plan kept", ", ".join(kept) + " (no larger than memplan's search)"))
    if plan.target is not None:
        summary.append(("target", plan.target.name))
    if written:
        summary.append(("written", written))
    summary.append(("solve time", f"{sum(a.seconds for a in plan.arenas):.3f} s"))
    summary += _check_rows(check, check_error)
    if check is None and check_error is None and plan.own is not None and asked_run:
        summary.append(("execution check", NOT_RUN))
    width = max(len(k) for k, _ in summary)
    parts.extend(f"{k.ljust(width)}  {v}" for k, v in summary)
    spills = [s for a in plan.arenas for s in a.spills]
    if spills:
        parts += ["", f"{len(spills)} tensor(s) spilled from a faster pool:", format_table(
            ["tensor", "name", "bytes", "from", "to", "pool", "why"],
            [[s.buffer.key, _short(s.buffer.name), s.buffer.size, s.buffer.start,
              s.buffer.end, s.space, "; ".join(f"{p}: {why}" for p, why in s.reasons)]
             for s in spills])]
    if plan.split is not None:
        parts += ["", _split_text(plan, written)]
    if plan.notes:
        parts += ["", *(f"note: {n}" for n in plan.notes)]
    return "\n".join(parts) + "\n"


def _tensor_table(plan: ModelPlan) -> str:
    several = len(plan.arenas) > 1
    rows = []
    for arena in plan.arenas:
        for b in sorted(arena.buffers, key=lambda b: (arena.offsets[b.key], b.start)):
            info = plan.view.details.get(b.key, {})
            rows.append([b.key, _short(b.name), info.get("dtype", ""),
                         "x".join(map(str, info.get("shape", []))), b.size, b.start, b.end,
                         *([arena.name] if several else []), arena.offsets[b.key],
                         "-" if b.shares_with is None else b.shares_with])
    headers = ["tensor", "name", "type", "shape", "size", "from", "to",
               *(["arena"] if several else []), "offset", "shares"]
    right = [True, False, False, False, True, True, True, *([False] if several else []),
             True, True]
    return format_table(headers, rows, right_align=right)


def _check_rows(check: RunCheck | None, error: str | None) -> list[tuple[str, object]]:
    if error is not None:
        return [("execution check", f"FAILED: {error}")]
    if check is None:
        return []
    rows: list[tuple[str, object]] = [
        ("execution check", f"outputs {'identical' if check.identical else 'DIFFER'} "
         f"({check.runtime}, the input's plan and memplan's, same random inputs)")]
    if check.original.arena is not None:
        rows += [("smallest arena, own plan", check.original.arena),
                 ("smallest arena, memplan's", check.planned.arena)]
    for name in check.original.extra:
        rows.append((f"{name}, own plan / memplan's",
                     f"{check.original.extra[name]} / {check.planned.extra.get(name)}"))
    return rows


def _split_text(plan: ModelPlan, written: str | None) -> str:
    split = plan.split
    first = plan.target.pools[0].name
    lines = [f"the planned tensors ({plan.total} B) exceed {first}: tensors by pool, for an "
             f"allocator with one region per pool ({plan.runtime} cannot split tensors across "
             "memories; offsets in --json)"]
    for use in split.placement.usage:
        lines.append(f"  {use.label}: peak {use.peak} B of {use.capacity} B, "
                     f"{use.buffers} buffer(s)")
    unplaced = [g for g, d in zip(split.groups, split.placement.decisions, strict=True)
                if not d.placed]
    if unplaced:
        lines.append(f"  {len(unplaced)} tensor group(s) fit no pool")
    if written:
        lines.append(f"  {written} holds the one-arena plan: the arena then goes in a pool "
                     "that holds all of it")
    return "\n".join(lines)


def plan_json(plan: ModelPlan, *, check: RunCheck | None = None,
              check_error: str | None = None, written: str | None = None,
              asked_run: bool = False) -> dict[str, Any]:
    """The one JSON document of `memplan plan`, whatever the front end (`asked_run`:
    --check-run was given, so a check not run says why in the notes)."""
    theirs = runtime_planner(plan)
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "model": plan.view.path,
        "front_end": plan.front_end,
        "runtime": plan.runtime,
        "runtime_planner": theirs,
        "runtime_error": next((a.runtime_error for a in plan.view.arenas if a.runtime_error),
                              None),
        "target": plan.target.name if plan.target is not None else None,
        "arenas": [
            {"name": a.name, "lower_bound": a.lower_bound, "memplan": a.size,
             "runtime": a.runtime, "status": a.proof.value, "chosen": a.chosen,
             "capacity": a.capacity, "reserved": a.reserved, "tensors": len(a.buffers),
             "seconds": round(a.seconds, 6), "floor": _floor_json(plan, a.name),
             **({"assignment": a.assignment} if a.assignment else {})}
            for a in plan.arenas],
        "total": {"lower_bound": plan.lower_bound, "memplan": plan.total,
                  "runtime": plan.runtime_total, "floor": plan.floor},
        "original_lower_bound": plan.original_lower_bound,
        "rewrites": [
            {"rewrite": r.kind.value, "kept": r.kept, "lower_bound_before": r.bound_before,
             "lower_bound_after": r.bound_after, "what": list(r.what), "reason": r.reason,
             "macs_before": r.macs_before, "macs_after": r.macs_after,
             "mac_overhead": r.mac_overhead}
            for r in plan.rewrites],
        "tensors": [
            {"key": b.key, "name": b.name, "arena": a.name, "size": b.size, "start": b.start,
             "end": b.end, "offset": a.offsets[b.key], "shares_with": b.shares_with,
             **{k: v for k, v in plan.view.details.get(b.key, {}).items()
                if k in ("dtype", "shape", "bytes", "op")}}
            for a in plan.arenas for b in a.buffers],
        "spills": [
            {"key": s.buffer.key, "name": s.buffer.name, "size": s.buffer.size,
             "pool": s.space, "reasons": [{"pool": p, "why": w} for p, w in s.reasons]}
            for a in plan.arenas for s in a.spills],
        "pools": None,
        "written": written,
        "notes": [*plan.notes, *([plan.own] if plan.own is not None else [])],
        "check": None,
    }
    if plan.split is not None:
        pools: dict[str, list[dict[str, Any]]] = {}
        for group, decision in zip(plan.split.groups, plan.split.placement.decisions,
                                   strict=True):
            for b in group:
                pools.setdefault(decision.space or "none", []).append(
                    {"key": b.key, "name": b.name, "offset": decision.offset})
        out["pools"] = {
            "usage": [{"pool": u.space, "peak": u.peak, "capacity": u.capacity,
                       "lower_bound": u.lower_bound} for u in plan.split.placement.usage],
            "tensors": pools,
        }
    if check is None and check_error is None and plan.own is not None and asked_run:
        out["check"] = {"ran": False, "identical": None, "runtime": plan.runtime,
                        "arenas": None, "error": None}
        out["notes"].append(NOT_RUN)
    if check is not None or check_error is not None:
        out["check"] = {
            "ran": check is not None,
            "identical": check.identical if check is not None else None,
            "runtime": check.runtime if check is not None else plan.runtime,
            "arenas": None if check is None else {
                "original": check.original.arena, "memplan": check.planned.arena,
                "original_detail": dict(check.original.extra),
                "memplan_detail": dict(check.planned.extra)},
            "error": check_error,
        }
    return out


def _floor_json(plan: ModelPlan, arena: str) -> dict[str, Any] | None:
    floor = next((f for f in plan.floors if f.arena == arena), None)
    if floor is None or floor.operator is None:
        return None
    return {"bytes": floor.bytes, "operator": floor.operator.name,
            "lowered_by": list(floor.operator.lowered_by),
            "held": [{"name": n, "bytes": b} for n, b in floor.held]}


def _short(name: str, width: int = 40) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]
