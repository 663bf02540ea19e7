"""Format `memplan check KERNELS.py` (TVM's records, so it lives with them): per
PrimFunc, each allocation's home under TVM 0.27 and under memplan, and the frames."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...report.diagnostics import diagnostic_json, format_diagnostics
from .stack_policy import FramePlan

if TYPE_CHECKING:
    from .frame_check import TirCheck


def format_tir_check(check: TirCheck) -> str:
    parts = [_format_plan(p) for p in check.plans] or ["no PrimFunc"]
    if check.diagnostics:
        parts.append(format_diagnostics(check.diagnostics, check.path))
    errors = sum(1 for d in check.diagnostics if d.is_error)
    parts.append(f"{errors} error(s) for target '{check.target.name}'")
    return "\n\n".join(parts)


def _format_plan(plan: FramePlan) -> str:
    rows = [("buffer", "dtype", "shape", "bytes", "scope", "TVM 0.27", "memplan")]
    for d in plan.decisions:
        a = d.allocation
        shape = "x".join(map(str, a.shape)) if a.shape is not None else "?"
        rows.append((a.name, a.dtype, shape, str(a.size) if a.size is not None else "?",
                     a.scope, d.tvm.value, d.memplan.value))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))
                      .rstrip() for r in rows)
    budget = "no addressable stack" if plan.budget is None else f"budget {plan.budget}"
    head = (f"@{plan.function}: stack buffers TVM 0.27 {plan.tvm_frame} bytes, memplan "
            f"{plan.memplan_frame} bytes ({budget}, each rounded up to "
            f"{plan.policy.alignment})")
    return head + ("\n" + table if plan.decisions else "\n  no allocations")


def tir_check_json(check: TirCheck) -> dict[str, Any]:
    return {
        "file": check.path,
        "target": check.target.name,
        "functions": [
            {"function": p.function, "budget": p.budget, "tvm_frame": p.tvm_frame,
             "memplan_frame": p.memplan_frame,
             "allocations": [
                 {"name": d.allocation.name, "dtype": d.allocation.dtype,
                  "shape": list(d.allocation.shape) if d.allocation.shape is not None else None,
                  "bytes": d.allocation.size, "scope": d.allocation.scope,
                  "tvm": d.tvm.value, "memplan": d.memplan.value}
                 for d in p.decisions]}
            for p in check.plans],
        "diagnostics": [diagnostic_json(d) for d in check.diagnostics],
        "errors": sum(1 for d in check.diagnostics if d.is_error),
    }
