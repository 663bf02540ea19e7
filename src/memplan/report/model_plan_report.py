"""What `memplan plan MODEL` shows: the arena plan beside the bound and the runtime's own."""

from __future__ import annotations

from typing import Any

from ..plan_models import ModelPlan, RuntimeCheck
from .table import format_table

_RUNTIME_NAME = {"tflite": "TFLM greedy", "onnx": None}


def summary_rows(plan: ModelPlan) -> list[tuple[str, object]]:
    result = plan.plan.result
    shared = sum(1 for t in plan.tensors if t.shares_with is not None)
    rows: list[tuple[str, object]] = [
        ("model", plan.path),
        ("tensors planned", sum(1 for t in plan.tensors if t.key in plan.details)),
        ("scratch buffers", sum(1 for t in plan.tensors if t.key not in plan.details)),
        ("shared in place", shared),
        ("lower bound", plan.plan.lower_bound),
        ("memplan peak", plan.plan.peak),
        ("peak / lower bound", f"{result.ratio:.4f}"),
    ]
    if result.status is not None:
        rows += [("exact status", result.status), ("proven bound", result.proven_bound)]
    name = _RUNTIME_NAME.get(plan.format)
    if plan.runtime is not None and name:
        rows += [(f"{name} peak", plan.runtime.peak),
                 (f"{name} lower bound", plan.runtime_bound),
                 ("saved against runtime", plan.runtime.peak - plan.plan.peak)]
    if plan.target is not None and plan.target.pools:
        pool = plan.target.pools[0]
        fits = "yes" if plan.plan.peak <= pool.capacity else "no"
        rows.append((f"fits {pool.name} ({pool.capacity} B)", fits))
    if plan.output:
        rows.append(("written", plan.output))
    rows.append(("solve time", f"{result.seconds:.3f} s"))
    return rows


def check_rows(check: RuntimeCheck) -> list[tuple[str, object]]:
    return [
        ("TFLM smallest arena, own plan", check.original_arena),
        ("TFLM smallest arena, memplan's", check.planned_arena),
        ("TFLM head / tail, own plan", f"{check.original_use.head} / {check.original_use.tail}"),
        ("TFLM head / tail, memplan's", f"{check.planned_use.head} / {check.planned_use.tail}"),
        ("outputs identical", "yes" if check.identical else "NO"),
    ]


def format_model_plan_text(plan: ModelPlan, check: RuntimeCheck | None = None,
                           show_tensors: bool = True) -> str:
    parts = []
    offsets = plan.plan.offsets
    if show_tensors:
        rows = []
        for t in sorted(plan.tensors, key=lambda t: (offsets[t.key], t.start)):
            info = plan.details.get(t.key, {})
            rows.append((t.key, _short(t.name), info.get("dtype", ""),
                         "x".join(map(str, info.get("shape", []))), t.size, t.start, t.end,
                         offsets[t.key], "-" if t.shares_with is None else t.shares_with))
        parts.append(format_table(
            ("tensor", "name", "type", "shape", "size", "from", "to", "offset", "shares"),
            rows, right_align=[True, False, False, False, True, True, True, True, True]))
        parts.append("")
    summary = summary_rows(plan) + (check_rows(check) if check else [])
    width = max(len(k) for k, _ in summary)
    parts.extend(f"{k.ljust(width)}  {v}" for k, v in summary)
    if plan.split is not None:
        parts += ["", _split_text(plan)]
    parts += ["", *(f"note: {n}" for n in plan.notes)]
    return "\n".join(parts) + "\n"


def _split_text(plan: ModelPlan) -> str:
    split = plan.split
    lines = [f"the planned tensors ({plan.plan.peak} B) exceed {plan.target.pools[0].name}: "
             "tensors by pool, for an allocator with one region per pool (TFLM cannot "
             "split tensors across memories; offsets in --json)"]
    for use in split.placement.usage:
        lines.append(f"  {use.label}: peak {use.peak} B of {use.capacity} B, "
                     f"{use.buffers} buffer(s)")
    unplaced = [g for g, d in zip(split.groups, split.placement.decisions, strict=True)
                if not d.placed]
    if unplaced:
        lines.append(f"  {len(unplaced)} tensor group(s) fit no pool")
    if plan.output:
        lines.append(f"  {plan.output} holds the one-arena plan: TFLM's arena then goes in a "
                     "pool that holds all of it")
    return "\n".join(lines)


def model_plan_json(plan: ModelPlan, check: RuntimeCheck | None = None) -> dict[str, Any]:
    offsets = plan.plan.offsets
    out: dict[str, Any] = {
        "model": plan.path,
        "format": plan.format,
        "alignment": plan.alignment,
        "tensors": [
            {"key": t.key, "name": t.name, "size": t.size, "start": t.start, "end": t.end,
             "offset": offsets[t.key], "shares_with": t.shares_with, **plan.details.get(t.key, {})}
            for t in plan.tensors
        ],
        "lower_bound": plan.plan.lower_bound,
        "peak": plan.plan.peak,
        "status": plan.plan.result.status,
        "proven_bound": plan.plan.result.proven_bound,
        "runtime_peak": plan.runtime.peak if plan.runtime else None,
        "runtime_lower_bound": plan.runtime_bound,
        "written": plan.output,
        "notes": list(plan.notes),
    }
    if plan.split is not None:
        pools: dict[str, list[dict[str, Any]]] = {}
        for group, decision in zip(plan.split.groups, plan.split.placement.decisions,
                                   strict=True):
            for t in group:
                pools.setdefault(decision.space or "none", []).append(
                    {"key": t.key, "name": t.name, "offset": decision.offset})
        out["pools"] = {
            "usage": [{"pool": u.space, "peak": u.peak, "capacity": u.capacity,
                       "lower_bound": u.lower_bound} for u in plan.split.placement.usage],
            "tensors": pools,
        }
    if check is not None:
        out["tflm"] = {
            "smallest_arena_own_plan": check.original_arena,
            "smallest_arena_memplan": check.planned_arena,
            "head_own_plan": check.original_use.head, "tail_own_plan": check.original_use.tail,
            "head_memplan": check.planned_use.head, "tail_memplan": check.planned_use.tail,
            "outputs_identical": check.identical,
        }
    return out


def _short(name: str, width: int = 40) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]
