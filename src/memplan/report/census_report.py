"""What `memplan check` shows: the allocation census, stack frames and diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..analysis.census import Allocation
from ..analysis.describe import describe_type
from ..check.budgets import Budget
from .diagnostics import Diagnostic, diagnostic_json
from .table import format_table


def _where(a: Allocation) -> str:
    return f"{a.location.line}:{a.location.col}" if a.location else "-"


def _bytes(a: Allocation) -> str:
    if a.exact_bytes is not None:
        return str(a.exact_bytes)
    if a.bound_bytes is not None:
        return f"<= {a.bound_bytes}"
    return "unbounded"


def format_census(census: Sequence[Allocation]) -> str:
    rows = [
        (a.function, _where(a), a.op_name, describe_type(a), a.memory_space or "default",
         a.loop_depth, _bytes(a), f"[{a.lifetime[0]}, {a.lifetime[1]})")
        for a in census
    ]
    return format_table(
        ("function", "line:col", "op", "type", "space", "loops", "bytes", "lifetime"), rows,
        right_align=(False, False, False, False, False, True, True, False))


def format_frames(frames: Sequence[Budget]) -> str:
    lines = []
    for f in frames:
        where = f" (// ----- chunk {f.chunk + 1})" if f.chunk else ""
        count = len(f.allocations)
        budget = f" of {f.limit}" if f.limit is not None else ""
        packed = (f"{count} allocation{'' if count == 1 else 's'} packed, {f.sum_bytes} "
                  "unpacked")
        if f.limit is not None and f.limit_source:
            packed = f"limit: {f.limit_source}; {packed}"
        if f.padding:
            packed += (f"; packed is larger by {f.padding} bytes of alignment padding: each "
                       f"buffer starts at a multiple of {f.alignment} bytes")
        if f.excluded:
            rest = f"; the other {packed} into {f.peak} bytes" if count else ""
            lines.append(f"stack frame @{f.function}{where}: no bound ({len(f.excluded)} stack "
                         f"allocation{'' if len(f.excluded) == 1 else 's'} in a loop or "
                         f"unbounded{rest})")
        else:
            lines.append(f"stack frame @{f.function}{where}: {f.peak}{budget} bytes ({packed})")
    return "\n".join(lines)


def allocation_json(a: Allocation) -> dict[str, Any]:
    return {
        "op": a.op_name, "function": a.function, "chunk": a.chunk,
        "location": None if a.location is None else {
            "file": a.location.path, "line": a.location.line, "col": a.location.col},
        "element_type": a.element_type, "shape": list(a.shape),
        "exact_bytes": a.exact_bytes, "bound_bytes": a.bound_bytes,
        "unbounded_reason": a.unbounded_reason, "memory_space": a.memory_space,
        "loop_depth": a.loop_depth, "lifetime": list(a.lifetime), "alignment": a.alignment,
    }


# `memplan check --json`: schemas/check.schema.json, docs/json-schema.md.
CHECK_SCHEMA = "memplan.check"
CHECK_SCHEMA_VERSION = 1


def check_json(path: str, target: str, census: Sequence[Allocation],
               frames: Sequence[Budget], diags: Sequence[Diagnostic]) -> dict[str, Any]:
    return {
        "schema": CHECK_SCHEMA,
        "schema_version": CHECK_SCHEMA_VERSION,
        "file": path,
        "target": target,
        "allocations": [allocation_json(a) for a in census],
        "stack_frames": [
            {"function": f.function, "chunk": f.chunk, "bounded": not f.excluded,
             "bytes": f.peak,
             "unpacked_bytes": f.sum_bytes, "padding_bytes": f.padding,
             "counted": len(f.allocations), "not_counted": len(f.excluded),
             "limit": f.limit, "limit_source": f.limit_source or f"target '{target}'"}
            for f in frames
        ],
        "diagnostics": [diagnostic_json(d) for d in diags],
        "errors": sum(1 for d in diags if d.is_error),
    }


def format_kernel_budgets(kernels: Sequence[Budget]) -> str:
    """One line per kernel: packed peak against the limit, like the stack frame summary."""
    return "\n".join(
        f"workgroup memory @{k.function}: {k.peak} of {k.limit} bytes ("
        + (f"limit: {k.limit_source}; " if k.limit_source else "")
        + f"{len(k.allocations)} allocation(s) packed, {k.sum_bytes} unpacked)"
        for k in kernels)


def kernel_json(kernel: Budget) -> dict[str, object]:
    return {"function": kernel.function, "chunk": kernel.chunk, "peak": kernel.peak,
            "lower_bound": kernel.packed.lower_bound, "unpacked": kernel.sum_bytes,
            "limit": kernel.limit, "limit_source": kernel.limit_source or "target",
            "allocations": len(kernel.allocations)}
