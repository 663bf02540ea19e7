"""What `memplan plan MODEL.pt2` shows: per arena the bound, memplan's size and
ExecuTorch's, then memplan's plan per tensor and the tensors that spilled."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .table import format_table

if TYPE_CHECKING:  # formatting needs no torch: the types are for annotations only
    from ..models.executorch_program import Lowered, ModelPlan


def format_model_text(plan: ModelPlan, path: str, *, show_tensors: bool = True) -> str:
    ours, theirs = plan.memplan, plan.executorch
    theirs_name = theirs.planner.value if theirs else (
        "executorch banked_greedy" if plan.pools else "executorch greedy")
    parts = [f"{path}: {sum(not t.aliased for t in ours.tensors)} planned tensors", ""]
    rows = []
    for arena in ours.arenas:
        rows.append([
            arena.name, arena.mem_id, arena.tensors, arena.lower_bound,
            _size(ours, arena.mem_id), _size(theirs, arena.mem_id) if theirs else "refused",
            arena.proof.value, arena.capacity])
    parts.append(format_table(
        ["arena", "mem_id", "tensors", "lower bound", "memplan", theirs_name, "memplan status",
         "capacity"], rows))
    parts.append("")
    if theirs is not None:
        ratio = theirs.total / ours.total if ours.total else 1.0
        parts.append(f"total: memplan {ours.total:,} B, {theirs_name} {theirs.total:,} B "
                     f"({ratio:.3f}x memplan's)")
    else:
        parts.append(f"total: memplan {ours.total:,} B; {theirs_name} refused: "
                     f"{plan.executorch_error}")
    if show_tensors:
        parts += ["", format_table(
            ["op", "shape", "dtype", "bytes", "lifetime", "mem_id", "offset"],
            [[t.op + (" (alias)" if t.aliased else ""), "x".join(map(str, t.shape)) or "scalar",
              t.dtype, t.bytes, f"{t.lifetime[0]}-{t.lifetime[1]}", t.mem_id, t.offset]
             for t in ours.tensors])]
    if ours.spills:
        parts += ["", f"{len(ours.spills)} tensors spilled from the first pool:"]
        parts.append(format_table(
            ["shape", "dtype", "bytes", "lifetime", "to", "why"],
            [["x".join(map(str, s.shape)) or "scalar", s.dtype, s.bytes,
              f"{s.lifetime[0]}-{s.lifetime[1]}", s.pool,
              "; ".join(f"{space}: {why}" for space, why in s.reasons)]
             for s in ours.spills]))
    return "\n".join(parts) + "\n"


def model_json(plan: ModelPlan, path: str) -> dict[str, Any]:
    ours, theirs = plan.memplan, plan.executorch
    return {
        "file": path,
        "arenas": [
            {"name": a.name, "mem_id": a.mem_id, "tensors": a.tensors,
             "lower_bound": a.lower_bound, "memplan": _size(ours, a.mem_id),
             "executorch": _size(theirs, a.mem_id) if theirs else None,
             "status": a.proof.name.lower(), "capacity": a.capacity,
             "reserved": a.reserved, "seconds": a.seconds}
            for a in ours.arenas],
        "memplan_total": ours.total,
        "executorch_planner": theirs.planner.value if theirs else None,
        "executorch_total": theirs.total if theirs else None,
        "executorch_error": plan.executorch_error,
        "tensors": [
            {"op": t.op, "shape": list(t.shape), "dtype": t.dtype, "bytes": t.bytes,
             "lifetime": list(t.lifetime), "mem_id": t.mem_id, "offset": t.offset,
             "aliased": t.aliased}
            for t in ours.tensors],
        "spills": [
            {"shape": list(s.shape), "dtype": s.dtype, "bytes": s.bytes,
             "lifetime": list(s.lifetime), "pool": s.pool,
             "reasons": [{"pool": p, "why": w} for p, w in s.reasons]}
            for s in ours.spills],
    }


def _size(lowered: Lowered | None, mem_id: int) -> int | None:
    if lowered is None:
        return None
    sizes = lowered.arena_sizes
    return sizes[mem_id] if mem_id < len(sizes) else 0
