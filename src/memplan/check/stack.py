"""Stack checks: every stack allocation bounded, outside loops, and the frame within budget.

A stack allocation is any `memref.alloca` (or `llvm.alloca`), whatever its memory space:
GPU private memory (`#gpu.address_space<private>`, CUDA local memory, AMD scratch) is a
per-thread stack, freed with its allocation scope like the CPU's, so an alloca in a loop,
outside the entry block, unbounded or returned is the same error in every space (as
IREE's check-ir-before-llvm-conversion and `memplan opt` treat every `memref.alloca`).
Budgets differ by space: the frame and per-allocation limits count the default space and,
where the target gives its stack a size, private memory.

- `stack-in-loop` (error): a `memref.alloca` inside a loop. Its memory is only
  released when the function (or an enclosing `memref.alloca_scope`) returns, so the
  frame grows with every iteration; an alloca in an `alloca_scope` inside the loop is fine.
- `stack-not-in-entry` (error): a `memref.alloca` outside its function's entry block
  (and outside loops): LLVM makes it a dynamic stack adjustment; IREE refuses it.
- `stack-returned` (error): a `memref.alloca` (or a view of it) returned from its function:
  the caller gets memory that was freed on return.
- `stack-unbounded` (error): a `memref.alloca` whose size has no proven bound.
- `stack-allocation-limit` (error): one allocation above the target's
  `stack.max_allocation`; any stack allocation on a target without a stack.
- `stack-frame-limit` (error): the packed peak of a function's simultaneously
  live stack allocations (`memplan.pack.plan` over census lifetimes) above
  `stack.max_frame`, naming the largest contributors.
- `stack-frame-needs-packing` (warning): the packed frame fits, but the allocations summed
  do not: LLVM gives each `alloca` its own slot (no lifetime markers from MLIR), so the
  frame fits only as `memplan opt --place` lays it out, one buffer at packed offsets.
- `heap-in-loop` (warning): a heap allocation made and freed on every iteration.
- `tensor-alloc-in-loop` (warning): a `bufferization.alloc_tensor` in a loop, which
  bufferizes to an allocation per iteration.

The frame counts allocations outside loops with a bound; the others already
have an error of their own and no finite frame.
"""

from __future__ import annotations

from ..analysis.buffer_flow import EscapeKind, escape_from
from ..analysis.census import Allocation
from ..analysis.describe import describe_type
from ..analysis.hoist_plan import HoistKind
from ..diagnostic import Diagnostic, Note
from ..ir import source_loc
from ..ir.ops import STACK_ALLOCATION_OPS
from .budgets import in_frame, is_stack
from .context import CheckContext

TOP_CONTRIBUTORS = 3


def _stack_type(a: Allocation) -> str:
    """The type, with the memory space when it is not the default one."""
    space = f" in {a.memory_space} memory" if a.memory_space is not None else ""
    return describe_type(a) + space


def is_stack_like(a: Allocation) -> bool:
    """An alloca in any memory space: freed only when its allocation scope exits."""
    return a.is_stack


def describe_size(a: Allocation) -> str:
    if a.exact_bytes is not None:
        return f"{a.exact_bytes} bytes"
    if a.bound_bytes is not None:
        return f"at most {a.bound_bytes} bytes"
    return "unbounded"


def check_stack_in_loop(ctx: CheckContext) -> list[Diagnostic]:
    return [
        Diagnostic(_severity(ctx, a), a.location,
                   f"stack allocation of {_stack_type(a)} ({describe_size(a)}) inside a loop: "
                   "it is only freed when @{} returns, so the stack grows on every iteration"
                   .format(a.function),
                   [Note(a.loop_location, "inside this loop"), Note(a.location, _opt_says(ctx, a)),
                    *_iree_gpu_hoists(ctx, a)],
                   code="stack-in-loop")
        for a in ctx.census if is_stack_like(a) and a.scope_loop_depth > 0
    ]


def _severity(ctx: CheckContext, a: Allocation) -> str:
    return "warning" if ctx.gpu_hoists(a) else "error"


def _iree_gpu_hoists(ctx: CheckContext, a: Allocation) -> list[Note]:
    if not ctx.gpu_hoists(a):
        return []
    return [Note(a.location, "a warning, not an error: IREE's GPU pipeline hoists it to the "
                 "entry before lowering, as `memplan opt` does")]


def _opt_says(ctx: CheckContext, a: Allocation) -> str:
    """What `memplan opt` does with it, from the same decision opt takes."""
    plan = ctx.hoist_plan(a)
    if plan is None:
        return "`memplan opt` does not rewrite it"
    kind = plan.kind
    if kind is HoistKind.NOTHING:  # already where opt puts it: the start of a parallel body
        return "`memplan opt` leaves it where it is: each iteration of a parallel loop needs " \
            "its own buffer"
    if kind is HoistKind.TO_ENTRY:
        return "`memplan opt` hoists it to the function entry"
    if kind is HoistKind.BIND:
        return "`memplan opt` hoists it to the function entry with a static size"
    if kind is HoistKind.BEFORE_LOOP:
        return "`memplan opt` moves it out of its loops"
    if kind is HoistKind.PARTIAL:
        return f"`memplan opt` cannot bound it: {plan.reason}"
    return f"`memplan opt` cannot hoist it: {plan.reason}"


def check_stack_outside_entry(ctx: CheckContext) -> list[Diagnostic]:
    """IREE's rule (check-ir-before-llvm-conversion): LLVM makes a stack allocation outside
    the entry block a dynamic stack adjustment, outside the static frame."""
    return [
        Diagnostic(_severity(ctx, a), a.location,
                   f"stack allocation of {_stack_type(a)} ({describe_size(a)}) outside the "
                   f"entry block of @{a.function}: LLVM turns it into a dynamic stack "
                   "adjustment, outside the function's static frame",
                   [Note(a.location, "`memplan opt` moves it to the function entry"
                         + (" with a static size" if a.exact_bytes is None and
                            a.bound_bytes is not None else ""))
                    if a.bytes_or_bound is not None else
                    Note(a.location, "with no proven size bound, `memplan opt` cannot give it a "
                         "static size"), *_iree_gpu_hoists(ctx, a)],
                   code="stack-not-in-entry")
        for a in ctx.census
        if is_stack_like(a) and a.outside_entry_block and a.scope_loop_depth == 0
    ]


def check_stack_returned(ctx: CheckContext) -> list[Diagnostic]:
    """A stack buffer (or a view of it) returned from its function: its memory is gone when the
    caller gets it."""
    diags = []
    for a in ctx.census:
        if not is_stack_like(a) or a.op is None or a.op.name not in STACK_ALLOCATION_OPS:
            continue
        escape = escape_from(a.op.results[0], ())
        if escape is None or escape.kind is not EscapeKind.RETURNED:
            continue
        diags.append(Diagnostic(
            "error", a.location, f"stack allocation of {_stack_type(a)} is returned from "
            f"@{a.function}: its memory is freed when @{a.function} returns, so the caller gets "
            "a dangling buffer", [Note(source_loc(escape.op, _path_of(ctx, a)), "returned here")],
            code="stack-returned"))
    return diags


def _path_of(ctx: CheckContext, a: Allocation) -> str:
    """The name the allocation's chunk was parsed under (it knows the chunk's first line)."""
    return next((c.path for c in ctx.chunks if c.index == a.chunk), ctx.path)


def check_unbounded_stack(ctx: CheckContext) -> list[Diagnostic]:
    return [
        Diagnostic("error", a.location,
                   f"stack allocation of {_stack_type(a)} has no proven size bound",
                   [Note(a.location, a.unbounded_reason or "unknown size")],
                   code="stack-unbounded")
        for a in ctx.census if is_stack_like(a) and a.bytes_or_bound is None
    ]


def check_allocation_limit(ctx: CheckContext) -> list[Diagnostic]:
    diags = []
    for a in ctx.census:
        if not (a.is_stack and in_frame(a)):
            continue
        stack = ctx.target_for(a).target.stack
        if stack is None and not is_stack(a):
            continue  # private memory on a target without a modelled stack: no budget
        if stack is None:
            diags.append(Diagnostic(
                "error", a.location, f"stack allocation of {describe_type(a)} on target "
                f"'{ctx.target.name}', which has no addressable stack",
                code="stack-allocation-limit"))
        elif stack.max_allocation is not None and (a.bytes_or_bound or 0) > stack.max_allocation:
            diags.append(Diagnostic(
                "error", a.location, f"stack allocation of {describe_type(a)} "
                f"({describe_size(a)}) exceeds the per-allocation limit of {stack.max_allocation} "
                f"bytes of target '{ctx.target.name}'", _place_hint(ctx, a.location, "it"),
                code="stack-allocation-limit"))
    return diags


def _place_hint(ctx: CheckContext, location, what: str) -> list[Note]:
    """Where the target has memory besides the stack, placement is the fix: say so."""
    if not ctx.target.pools:
        return []
    pools = ", ".join(p.name for p in ctx.target.pools)
    return [Note(location, f"`memplan opt --place` (or `memplan place`) moves {what} to the "
                 f"target's pools ({pools}) with a static offset")]


def check_frame_limit(ctx: CheckContext) -> list[Diagnostic]:
    diags = []
    for frame in ctx.frames:
        if frame.fits or frame.limit is None:
            continue
        limit = frame.limit
        whose = frame.limit_source or f"target '{ctx.target.name}'"
        largest = sorted(frame.allocations,
                         key=lambda a: -(a.bytes_or_bound or 0))[:TOP_CONTRIBUTORS]
        notes = [Note(a.location, f"{describe_type(a)} contributes {describe_size(a)}")
                 for a in largest]
        notes += _place_hint(ctx, largest[0].location, "what does not fit in the frame")
        diags.append(Diagnostic(
            "error", largest[0].location,
            f"stack frame of @{frame.function} needs {frame.peak} bytes (live allocations "
            f"packed; {frame.sum_bytes} bytes unpacked), over the {limit}-byte frame limit of "
            f"{whose}", notes, code="stack-frame-limit"))
    return diags


def check_frame_packing(ctx: CheckContext) -> list[Diagnostic]:
    diags = []
    for frame in ctx.frames:
        if not frame.fits or frame.limit is None or frame.sum_bytes <= frame.limit:
            continue
        whose = frame.limit_source or f"target '{ctx.target.name}'"
        first = min(frame.allocations, key=lambda a: a.lifetime)
        diags.append(Diagnostic(
            "warning", first.location,
            f"stack frame of @{frame.function} fits in {frame.peak} bytes only when "
            f"allocations that are never live together share bytes: summed they need "
            f"{frame.sum_bytes}, over the {frame.limit}-byte frame limit of {whose}",
            [Note(first.location, "`memplan opt --place` lays the frame out as one buffer at "
                  "these offsets; separate allocas each get their own slot (IREE's check "
                  "counts the sum)")], code="stack-frame-needs-packing"))
    return diags


def check_heap_in_loop(ctx: CheckContext) -> list[Diagnostic]:
    diags = []
    for a in ctx.census:
        if a.op_name != "memref.alloc" or a.memory_space is not None or a.loop_depth == 0:
            continue
        notes = [Note(a.loop_location, "inside this loop")]
        if a.unbounded_reason:
            notes.append(Note(a.location, a.unbounded_reason))
        diags.append(Diagnostic(
            "warning", a.location, f"heap allocation of {describe_type(a)} ({describe_size(a)}) "
            "inside a loop is made on every iteration", notes, code="heap-in-loop"))
    return diags


def check_tensor_allocation_in_loop(ctx: CheckContext) -> list[Diagnostic]:
    """Seed 000 starts here: an `alloc_tensor` in a loop bufferizes to an allocation per
    iteration (IREE promotes it to the stack)."""
    return [
        Diagnostic("warning", a.location,
                   f"tensor allocation {describe_type(a)} ({describe_size(a)}) inside a loop "
                   "bufferizes to one allocation per iteration",
                   [Note(a.loop_location, "inside this loop")], code="tensor-alloc-in-loop")
        for a in ctx.census if a.op_name == "bufferization.alloc_tensor" and a.loop_depth > 0
    ]


STACK_CHECKS = [
    check_stack_in_loop, check_stack_outside_entry, check_stack_returned, check_unbounded_stack,
    check_allocation_limit, check_frame_limit, check_frame_packing,
    check_heap_in_loop, check_tensor_allocation_in_loop,
]
