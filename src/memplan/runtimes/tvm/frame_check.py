"""`memplan check KERNELS.py`: each PrimFunc's frame under TVM 0.27 and under memplan.

A function whose buffers TVM 0.27 keeps on the stack exceed the target's frame
budget is an error naming the function (what TVM would build breaks the target);
the note says what memplan's pipeline (`tir_pipeline`) keeps instead. A frame
memplan cannot bring within budget either (buffers the input pins to the stack)
is an error of its own.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ...diagnostic import Diagnostic, Note
from ...ir import SourceLoc
from ...targets import Target
from .script import load_script
from .stack_policy import FramePlan, FramePolicy, Home, plan_module
from .targets import tvm_target_of
from .tir import allocations, lower_to_builtin


@dataclass(frozen=True)
class TirCheck:
    path: str
    target: Target
    plans: tuple[FramePlan, ...]
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    def format(self) -> str:
        """The text `memplan check KERNELS.py` prints."""
        from .tir_report import format_tir_check

        return format_tir_check(self)

    def to_json(self) -> dict[str, Any]:
        """The document `memplan check KERNELS.py --json` prints."""
        from .tir_report import tir_check_json

        return tir_check_json(self)


def function_lines(text: str) -> dict[str, int]:
    """The line of each function definition in a TVMScript text, by name."""
    return {node.name: node.lineno for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.FunctionDef)}


def check_tir(path: str, text: str, target: Target) -> TirCheck:
    mod = load_script(path, text)
    import tvm

    if isinstance(mod, tvm.tirx.PrimFunc):
        mod = tvm.IRModule({"main": mod})
    host = lower_to_builtin(mod, tvm_target_of(target))
    plans = tuple(plan_module(allocations(host), FramePolicy.of(target)))
    lines = function_lines(text)
    diags = tuple(d for p in plans for d in frame_diagnostics(p, target, path, lines))
    return TirCheck(path, target, plans, diags)


def frame_diagnostics(plan: FramePlan, target: Target, path: str,
                      lines: dict[str, int]) -> list[Diagnostic]:
    loc = SourceLoc(path, lines[plan.function], 1) if plan.function in lines else None
    budget = plan.budget or 0
    where = f"{target.name}'s {budget}-byte frame" if target.stack else \
        f"{target.name}, which has no addressable stack"
    out = []
    if plan.tvm_over:
        small = sum(1 for d in plan.decisions if d.tvm is Home.STACK)
        moved = [d.allocation.name for d in plan.decisions
                 if d.tvm is Home.STACK and d.memplan is Home.WORKSPACE]
        notes = []
        if not plan.memplan_over:
            notes.append(Note(loc, f"memplan's TIR pipeline keeps {plan.memplan_frame} bytes on "
                              f"the stack and sends {', '.join(moved)} to the workspace"))
        out.append(Diagnostic(
            "error", loc, f"@{plan.function}: TVM 0.27 keeps {plan.tvm_frame} bytes of buffers "
            f"on the stack ({small} buffer(s), each under its 1024-byte rule), over {where}",
            tuple(notes), code="tvm-frame-over-budget"))
    if plan.memplan_over:
        out.append(Diagnostic(
            "error", loc, f"@{plan.function}: {plan.memplan_frame} bytes of buffers are pinned "
            f"to the stack (disable_lower_builtin or scalable), over {where}",
            code="tvm-frame-pinned-over-budget"))
    return out
