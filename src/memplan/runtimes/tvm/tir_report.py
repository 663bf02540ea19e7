"""Format `memplan check KERNELS.py` (TVM's records, so it lives with them): per
PrimFunc, the frame of TVM 0.27's build and of memplan's, and each allocation's home
under TVM 0.27 and under memplan's build."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...report.census_report import CHECK_SCHEMA, CHECK_SCHEMA_VERSION
from ...report.diagnostics import diagnostic_json, format_diagnostics
from .stack_policy import FramePlan

if TYPE_CHECKING:
    from .frame_check import TirCheck


def format_tir_check(check: TirCheck) -> str:
    """The tables (stdout); the diagnostics are `format_tir_diagnostics` (stderr)."""
    parts = [_format_source(check)]
    parts += [_format_plan(p, check) for p in check.plans] or ["no PrimFunc"]
    errors = sum(1 for d in check.diagnostics if d.is_error)
    warnings = sum(1 for d in check.diagnostics if d.severity == "warning")
    parts.append(f"{errors} error(s), {warnings} warning(s) for target '{check.target.name}'")
    return "\n\n".join(parts)


def format_tir_diagnostics(check: TirCheck) -> str:
    """`FILE:LINE:COL: severity: message` lines, as MLIR's tools print them."""
    return format_diagnostics(check.diagnostics, check.path) if check.diagnostics else ""


def _format_source(check: TirCheck) -> str:
    limit = f"max_frame {check.max_frame} B" if check.max_frame is not None else \
        "no addressable stack"
    how = f"not measured ({check.unmeasured})" if check.unmeasured else \
        f"from {check.measured_by}"
    if check.cross_checked_by and not check.unmeasured:
        how += f", cross-checked by {check.cross_checked_by}"
    reserve = f"; memplan's build reserved {check.reserve} B of each frame for what is not a " \
        "buffer" if check.reserve else ""
    return f"{check.target.name}: {limit}; frames {how}{reserve}"


def _frame(n: int | None, measured: bool) -> str:
    return f"{n} B" if n is not None else ("?" if measured else "not measured")


def _llvm(count: int | None, realigned: int) -> str:
    """LLVM's own count beside the assembly's frame, when there is one."""
    if count is None:
        return ""
    return f" (LLVM {count} B" + (f" + {realigned} B realignment)" if realigned else ")")


def _format_plan(plan: FramePlan, check: TirCheck) -> str:
    rows = [("buffer", "dtype", "shape", "bytes", "scope", "TVM 0.27", "memplan")]
    for d in plan.decisions:
        a = d.allocation
        shape = "x".join(map(str, a.shape)) if a.shape is not None else "?"
        rows.append((a.name, a.dtype, shape, str(a.size) if a.size is not None else "?",
                     a.scope, d.tvm.value, d.memplan.value))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))
                      .rstrip() for r in rows)
    frames = check.frames_of(plan.function)
    measured = not check.unmeasured
    built = ""
    if frames is not None and frames.inlined:
        built = "inlined into its callers (no frame of its own); "
    elif frames is not None:
        built = (f"frame TVM 0.27 {_frame(frames.tvm, measured)}"
                 f"{_llvm(frames.tvm_llvm, frames.tvm_realignment)}, memplan "
                 f"{_frame(frames.memplan, measured)}"
                 f"{_llvm(frames.memplan_llvm, frames.memplan_realignment)}; ")
    head = (f"@{plan.function}: {built}stack buffers TVM 0.27 {plan.tvm_frame} B, memplan "
            f"{plan.memplan_frame} B (each rounded up to {plan.policy.alignment})")
    return head + ("\n" + table if plan.decisions else "\n  no allocations")


def tir_check_json(check: TirCheck) -> dict[str, Any]:
    def built(function: str, which: str) -> int | None:
        frames = check.frames_of(function)
        return getattr(frames, which) if frames is not None else None

    return {
        "schema": CHECK_SCHEMA,
        "schema_version": CHECK_SCHEMA_VERSION,
        "file": check.path,
        "target": check.target.name,
        # MLIR's census: a TVMScript module's allocations are in `functions`.
        "allocations": [], "stack_frames": [], "workgroup": [], "workgroup_local": [],
        "access": [], "copies": [],
        "max_frame": check.max_frame,
        "frames_measured_by": check.measured_by,
        "frames_unmeasured": check.unmeasured,
        "reserve": check.reserve,
        "frames_cross_checked_by": check.cross_checked_by,
        "functions": [
            {"function": p.function, "budget": p.budget,
             "tvm_built_frame": built(p.function, "tvm"),
             "memplan_built_frame": built(p.function, "memplan"),
             "tvm_llvm_frame": built(p.function, "tvm_llvm"),
             "memplan_llvm_frame": built(p.function, "memplan_llvm"),
             "realignment": built(p.function, "tvm_realignment") or 0,
             "inlined": built(p.function, "inlined") or False,
             "tvm_frame": p.tvm_frame, "memplan_frame": p.memplan_frame,
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
