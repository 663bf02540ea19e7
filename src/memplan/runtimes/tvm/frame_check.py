"""`memplan check KERNELS.py`: each PrimFunc's frame as TVM 0.27 builds it and as
memplan's TIR pipeline builds it, read from the machine code (`built_frames`).

The module is built twice for the target: by TVM's own pipeline and by memplan's
(`tir_pipeline.build_rounds`, the reserve for what is not a buffer found from the
frames). A function whose frame in TVM's own build is over the target's `max_frame` is
an error naming the function; the note gives the frame memplan's build has, what it
keeps on the stack and how to build with it. A frame memplan's build cannot bring within
`max_frame` (buffers the input pins to the stack, or registers and spills alone) is an
error of its own. Where the frames cannot be read (a C target whose compiler is not
installed), the buffers TVM keeps on the stack are compared with `max_frame` instead, and
a warning says the frames were not measured.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ...diagnostic import Diagnostic, Note
from ...errors import InputError
from ...ir import SourceLoc
from ...targets import Target
from .script import load_script
from .stack_policy import FramePlan, Home
from .targets import tvm_target_of


@dataclass(frozen=True)
class FunctionFrames:
    function: str
    tvm: int | None  # bytes in TVM's own build; None: not constant, or unmeasured
    memplan: int | None  # bytes in memplan's pipeline's build
    inlined: bool = False  # no code of its own in TVM's build: in its callers' frames
    # The second source on LLVM targets (`llvm_frames`): LLVM's own count, which leaves out
    # what realignment adds; None: not an LLVM target, or LLVM gave no figure.
    tvm_llvm: int | None = None
    memplan_llvm: int | None = None
    tvm_realignment: int = 0
    memplan_realignment: int = 0

    def disagreements(self) -> list[str]:
        """"TVM 0.27" and/or "memplan" where the assembly's frame less its realignment is not
        LLVM's count."""
        pairs = (("TVM 0.27", self.tvm, self.tvm_realignment, self.tvm_llvm),
                 ("memplan", self.memplan, self.memplan_realignment, self.memplan_llvm))
        return [who for who, asm, realigned, llvm in pairs
                if asm is not None and llvm is not None and asm - realigned != llvm]


@dataclass(frozen=True)
class TirCheck:
    path: str
    target: Target
    plans: tuple[FramePlan, ...]  # the decisions memplan's build applied
    diagnostics: tuple[Diagnostic, ...]
    frames: tuple[FunctionFrames, ...] = ()
    measured_by: str = ""  # where the frames come from
    unmeasured: str | None = None  # why they could not be read, when they could not
    reserve: int = 0  # bytes of each frame memplan's build kept for what is not a buffer
    cross_checked_by: str | None = None  # the second source of the frames, if any

    @property
    def max_frame(self) -> int | None:
        return self.target.stack.max_frame if self.target.stack else None

    def frames_of(self, function: str) -> FunctionFrames | None:
        return next((f for f in self.frames if f.function == function), None)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    def format(self) -> str:
        """The tables `memplan check KERNELS.py` prints on stdout."""
        from .tir_report import format_tir_check

        return format_tir_check(self)

    def format_diagnostics(self) -> str:
        """The diagnostics it prints on stderr (`FILE:LINE:COL: severity: message`)."""
        from .tir_report import format_tir_diagnostics

        return format_tir_diagnostics(self)

    def to_json(self) -> dict[str, Any]:
        """The document `memplan check KERNELS.py --json` prints."""
        from .tir_report import tir_check_json

        return tir_check_json(self)


def function_lines(text: str) -> dict[str, int]:
    """The line of each function definition in a TVMScript text, by name."""
    return {node.name: node.lineno for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.FunctionDef)}


def check_tir(path: str, text: str, target: Target) -> TirCheck:
    import tvm

    from .built_frames import is_c, read_frames
    from .llvm_frames import SOURCE as LLVM_SOURCE
    from .tir_pipeline import build_rounds

    mod = load_script(path, text)
    if isinstance(mod, tvm.tirx.PrimFunc):
        mod = tvm.IRModule({"main": mod})
    tvm_target = tvm.target.Target(tvm_target_of(target))
    try:
        theirs = tvm.tirx.build(mod, target=tvm_target)
    except Exception as err:  # noqa: BLE001 - TVM raises many kinds; one line for any
        raise InputError(path, f"TVM 0.27 cannot build this module for {target.name}: "
                         f"{_first_line(err)}") from None
    try:
        ours = build_rounds(mod, target, name=path)
    except InputError:
        raise
    except Exception as err:  # noqa: BLE001 - TVM's own build passed: memplan's fault
        raise InputError(path, f"memplan's TIR pipeline failed where TVM 0.27's own build "
                         f"did not (a bug in memplan): {_first_line(err)}") from None
    plans = tuple(f.plan for f in ours.frames)
    names = [p.function for p in plans]
    llvm = not is_c(tvm_target)
    read = read_frames(theirs, tvm_target, target, names, path, cross_check=llvm)
    # The second source for memplan's build: its module read again, LLVM's count beside
    # (C targets have one source: GCC is not run twice for nothing).
    mine = read_frames(ours.module, tvm_target, target, names, path, cross_check=True) \
        if llvm else read
    frames = tuple(FunctionFrames(
        f.function, read.frames.get(f.function), f.frame, f.function in read.inlined,
        read.llvm.get(f.function), mine.llvm.get(f.function),
        read.realignment.get(f.function, 0), mine.realignment.get(f.function, 0))
        for f in ours.frames)
    check = TirCheck(path, target, plans, (), frames, ours.measured_by,
                     ours.unmeasured or read.unmeasured, ours.reserve,
                     LLVM_SOURCE if llvm else None)
    lines = function_lines(text)
    diags = [d for p in plans for d in frame_diagnostics(check, p, lines)]
    for f in frames:
        for who in f.disagreements():
            asm, realigned, count = (f.tvm, f.tvm_realignment, f.tvm_llvm) \
                if who == "TVM 0.27" else (f.memplan, f.memplan_realignment, f.memplan_llvm)
            loc = SourceLoc(path, lines[f.function], 1) if f.function in lines else None
            diags.append(Diagnostic(
                "warning", loc, f"@{f.function}: the frame of {who}'s build read from the "
                f"assembly ({asm} B, {realigned} B of it realignment) is not LLVM's own "
                f"count ({count} B): one of the two readings is wrong",
                code="tvm-frame-sources-disagree"))
    for why in {read.llvm_unread, mine.llvm_unread} - {None}:
        diags.append(Diagnostic("warning", None, f"frames not cross-checked: {why}",
                                code="tvm-frame-sources-disagree"))
    if check.unmeasured and check.max_frame is not None:
        diags.insert(0, Diagnostic(
            "warning", None, f"frames not measured ({check.measured_by}: {check.unmeasured}): "
            f"only the buffers on the stack are compared with {target.name}'s "
            f"{check.max_frame}-byte max_frame, not the saved registers and spills",
            code="tvm-frame-unmeasured"))
    return TirCheck(path, target, plans, tuple(diags), frames, check.measured_by,
                    check.unmeasured, check.reserve, check.cross_checked_by)


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    # TVM puts the reason last, after its traceback.
    return (lines[-1] if lines else type(err).__name__)[:200]


def _pipeline_name(target: Target) -> str:
    """How `tir_pipeline` / `build` name this target: the preset, or the file."""
    return target.name if target.source.startswith("<preset") else target.source


def frame_diagnostics(check: TirCheck, plan: FramePlan,
                      lines: dict[str, int]) -> list[Diagnostic]:
    target = check.target
    loc = SourceLoc(check.path, lines[plan.function], 1) if plan.function in lines else None
    frames = check.frames_of(plan.function) or FunctionFrames(plan.function, None, None)
    max_frame = check.max_frame
    on_stack = [d for d in plan.decisions if d.tvm is Home.STACK]
    buffers = sum(d.allocation.size or 0 for d in on_stack)
    kept = [d for d in plan.decisions if d.memplan is Home.STACK]
    moved = [d.allocation.name for d in plan.decisions if d.memplan is Home.WORKSPACE
             and d.tvm is Home.STACK]
    if max_frame is None:  # no addressable stack: any buffer TVM keeps there is an error
        if not on_stack:
            return []
        return [Diagnostic(
            "error", loc, f"@{plan.function}: TVM 0.27 keeps {buffers} bytes of buffers on the "
            f"stack ({len(on_stack)} buffer(s), each under its 1024-byte rule), and "
            f"{target.name} has no addressable stack",
            (Note(loc, "memplan's TIR pipeline sends every buffer to the workspace: "
                  + _how_to_build(check)),), code="tvm-frame-over-budget")]
    rule = f"{len(on_stack)} buffer(s), each under its 1024-byte rule"
    if check.unmeasured:
        tvm_frame = buffers
        tvm_text = f"keeps {buffers} bytes of buffers on the stack ({rule})"
    elif frames.tvm is None and frames.inlined:
        return []  # its buffers are in its callers' frames, checked there
    elif frames.tvm is None:
        return [Diagnostic(
            "warning", loc, f"@{plan.function}: TVM 0.27's build moves the stack pointer by "
            f"an amount known only at run time: its frame has no bound",
            code="tvm-frame-dynamic")]
    else:
        tvm_frame = frames.tvm
        tvm_text = f"builds a {frames.tvm}-byte frame"
    out = []
    memplan_over = frames.memplan is not None and frames.memplan > max_frame \
        or plan.memplan_frame > max_frame
    if tvm_frame > max_frame:
        notes = []
        if not memplan_over:
            what = f"builds a {frames.memplan}-byte frame: it " if frames.memplan is not None \
                else ""
            keeps = ", ".join(f"{d.allocation.name} ({d.allocation.size} B)" for d in kept)
            keeps = f"keeps {keeps} on the stack" if kept else "keeps no buffer on the stack"
            sends = f" and sends {', '.join(moved)} to the workspace" if moved else ""
            notes.append(Note(loc, f"memplan's TIR pipeline {what}{keeps}{sends}; "
                              f"{_how_to_build(check)}"))
        inlined = [f.function for f in check.frames if f.inlined]
        rest = "saved registers, spills and alignment" + (
            ", and the buffers of any of " + ", ".join(f"@{f}" for f in inlined)
            + " (inlined into their callers) it calls" if inlined else "")
        detail = "" if check.unmeasured else (
            f": {buffers} bytes of it are the {len(on_stack)} buffer(s) it keeps on the stack "
            f"(each under its 1024-byte rule), the rest {rest}")
        out.append(Diagnostic(
            "error", loc, f"@{plan.function}: TVM 0.27 {tvm_text}, over {target.name}'s "
            f"{max_frame}-byte max_frame{detail}", tuple(notes), code="tvm-frame-over-budget"))
    if memplan_over:
        pinned = sum(d.allocation.size or 0 for d in plan.decisions
                     if d.allocation.pinned or d.allocation.scalable)
        built = f"a {frames.memplan}-byte frame" if frames.memplan is not None else \
            f"{plan.memplan_frame} bytes of buffers on the stack"
        out.append(Diagnostic(
            "error", loc, f"@{plan.function}: memplan's TIR pipeline still builds {built}, over "
            f"{target.name}'s {max_frame}-byte max_frame: it keeps {plan.memplan_frame} bytes "
            f"of buffers on the stack, {pinned} of them pinned there by the input "
            f"(disable_lower_builtin, scalable, or in a private helper, which has no "
            f"workspace)", code="tvm-frame-pinned-over-budget"))
    return out


def _how_to_build(check: TirCheck) -> str:
    name = _pipeline_name(check.target)
    reserve = f", reserve={check.reserve}" if check.reserve else ""
    return (f'build with memplan.tvm.build(mod, "{name}"), or tvm.compile(mod, target, '
            f'tir_pipeline=memplan.tvm.tir_pipeline("{name}"{reserve}))')
