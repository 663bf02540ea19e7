"""What hoist-and-bound will do with an allocation, decided without touching the IR.

`plan_hoist` answers for `check` (its notes say what `memplan opt` does) and
`transforms/hoist.py` carries the same decision out, so both say the same. The module
docstring of `transforms/hoist.py` gives the rules: what moves where, what is bound, and
what is refused and why.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from iree.compiler import ir

from ..diagnostic import Note
from ..ir import source_loc
from ..ir.cfg import cfg_cycle_around
from ..ir.ops import (
    DEALLOCATION_OPS,
    MEMREF_ALLOCATION_OPS,
    PARALLEL_LOOP_OPS,
    STACK_ALLOCATION_OPS,
)
from ..ir.types import memory_space_name, reserved_per_launch, shape_of
from ..ir.walk import allocation_scope, enclosing_loops, users
from .buffer_flow import escape_from
from .census import FunctionFacts, bound_dims, dynamic_size_operands


class HoistKind(enum.Enum):
    NOTHING = "nothing to do"
    TO_ENTRY = "moves to the entry"
    TO_ENTRY_END = "moves to the end of the entry block, its size still unbounded"
    BEFORE_LOOP = "moves before a loop its size does not change in"
    BIND = "becomes a static allocation of its bound at the entry, viewed where it was"
    PARTIAL = "moves before a loop its size does not change in, and stays unbounded"
    REFUSED = "stays where it is"


@dataclass(frozen=True)
class HoistPlan:
    """What hoist-and-bound does with one allocation, decided before the IR changes."""

    kind: HoistKind
    reason: str = ""  # REFUSED, PARTIAL: the error, naming the IR that is there
    notes: tuple[Note, ...] = ()
    loop: ir.Operation | None = None  # BEFORE_LOOP, PARTIAL: the loop it moves before
    bounds: tuple[int | None, ...] = ()  # BIND: the static shape

    @property
    def fixes_repetition(self) -> bool:
        """After it, the allocation no longer runs once per iteration of a loop."""
        return self.kind in (HoistKind.TO_ENTRY, HoistKind.BIND) or (
            self.kind is HoistKind.BEFORE_LOOP)


def plan_hoist(op: ir.Operation, facts: FunctionFacts, path: str) -> HoistPlan:
    """What `memplan opt` will do with `op` (an allocation of `facts.func`): for `check`'s
    notes, so both say the same."""
    func = facts.func
    return HoistDecision(op, facts, path, anchor_of(func)).decide()


def anchor_of(region_op: ir.Operation) -> ir.Operation:
    """Where hoisted allocations go in `region_op`'s first block: before its first op that is
    never erased (an allocation may be replaced, so it cannot be the anchor). Allocations
    hoisted one after the other keep their source order."""
    return next(op.operation for op in region_op.regions[0].blocks[0].operations
                if op.operation.name not in MEMREF_ALLOCATION_OPS)


# `scf.forall` mappings that hand its iterations to GPU threads or workgroups.
_GPU_MAPPINGS = ("#gpu.thread<", "#gpu.warp<", "#gpu.warpgroup<", "#gpu.lane<", "#gpu.block<",
                 "#iree_codegen.workgroup_mapping<", "#iree_gpu.lane_id<")


def _mapped_to_gpu(loop: ir.Operation) -> bool:
    """An `scf.forall` whose iterations GPU threads (or workgroups) share out: each thread
    runs its share in turn with private memory of its own, so one private buffer per thread
    serves every iteration it runs. IREE's GPU pipeline distributes such loops to per-thread
    `scf.for`s and then hoists their private allocas to the entry (mobilenet_v2's sm_80
    dispatches, docs/runtimes/iree.md)."""
    if loop.name != "scf.forall" or "mapping" not in loop.attributes:
        return False
    mapping = ir.ArrayAttr(loop.attributes["mapping"])
    return len(mapping) > 0 and all(str(m).startswith(_GPU_MAPPINGS) for m in mapping)


class HoistDecision:
    """What hoist-and-bound does with one allocation op, decided before the IR changes
    (`transforms/hoist.py` carries it out)."""

    def __init__(self, op: ir.Operation, facts: FunctionFacts, path: str, anchor: ir.Operation):
        self.op, self.facts, self.path = op, facts, path
        self.loc = source_loc(op, path)
        self.is_stack = op.name in STACK_ALLOCATION_OPS
        self.type = ir.MemRefType(op.results[0].type)
        self.shape = shape_of(self.type)
        # Workgroup memory is sized at launch: like the stack frame, it needs a static size.
        self.per_launch = not self.is_stack and reserved_per_launch(memory_space_name(self.type))
        loops = enclosing_loops(op)
        private = self.is_stack and memory_space_name(self.type) == "private"
        parallel = [i for i, loop in enumerate(loops) if loop.name in PARALLEL_LOOP_OPS
                    and not (private and _mapped_to_gpu(loop))]
        # Only the sequential loops inside the innermost parallel loop may be left.
        self.loops = loops[parallel[-1] + 1:] if parallel else loops
        self.anchor = anchor if not parallel else anchor_of(loops[parallel[-1]])
        self.destination = "the function entry" if not parallel else \
            f"the start of the enclosing `{loops[parallel[-1]].name}` body"
        self.sizes = dynamic_size_operands(op)
        self.dealloc: ir.Operation | None = None
        self.scope = allocation_scope(op)
        self.cycle: ir.Operation | None = None
        self.outside_entry = False

    @property
    def what(self) -> str:
        kind = "stack" if self.is_stack else "workgroup" if self.per_launch else "heap"
        return f"{kind} allocation of {self.type}"

    # the decision

    def decide(self) -> HoistPlan:
        """What the rewrite will do, without touching the IR."""
        op = self.op
        # A stack allocation on a CFG cycle (a `cf.br` back edge) runs once per trip too.
        self.cycle = cfg_cycle_around(op, self.scope) if self.is_stack and not self.loops \
            else None
        static_size = self.is_stack or self.per_launch
        # IREE lays out workgroup-local memory only from the entry block, as LLVM keeps only
        # entry-block allocas in the static frame.
        outside_entry = self.outside_entry = static_size and op.block != self.anchor.block
        if not self.loops and self.cycle is None and not (static_size and self.sizes) \
                and not outside_entry:
            return HoistPlan(HoistKind.NOTHING)  # at the entry, and static or on the heap
        if len(op.operands) > len(self.sizes):
            return self._refuse(f"{self.what} has layout symbol operands; not hoisted")
        if self.loops or self.cycle is not None:
            escape = escape_from(op.results[0], self.loops)
            if escape is not None:
                return self._refuse(f"{self.what} is not hoisted out of {self.repeats}: the "
                                    f"buffer {escape.describe()}",
                                    [Note(source_loc(escape.op, self.path), "here")])
        deallocs = [u for u in users(op.results[0]) if u.name in DEALLOCATION_OPS]
        if len(deallocs) > 1 or (deallocs and deallocs[0].block != op.block):
            return self._refuse(f"{self.what} is not hoisted: it is freed outside its own block")
        self.dealloc = deallocs[0] if deallocs else None

        if not self.sizes:
            return HoistPlan(HoistKind.TO_ENTRY)
        bounds, reason = bound_dims(self.shape, self.sizes, self.facts.ranges)
        if not self.loops:
            if reason is None:
                return HoistPlan(HoistKind.BIND, bounds=bounds)
            if self.cycle is None and outside_entry and self._sizes_ready_at_entry_end():
                return HoistPlan(HoistKind.TO_ENTRY_END, reason=reason)
            where = "outside the entry block" if outside_entry else "at the entry"
            if self.cycle is not None:
                where = f"in {self.repeats}"
            return self._refuse(f"{self.what} {where} has no proven size bound; left where it "
                                "is", [Note(self.loc, reason)])
        invariant = self._outermost_invariant_loop()
        if not self.is_stack and invariant is not None and invariant == self.loops[0]:
            return HoistPlan(HoistKind.BEFORE_LOOP, loop=invariant)
        if reason is None:
            return HoistPlan(HoistKind.BIND, bounds=bounds)
        if invariant is not None:
            if self.is_stack or invariant != self.loops[0]:
                line = source_loc(invariant, self.path)
                return HoistPlan(HoistKind.PARTIAL, loop=invariant, reason=(
                    f"{self.what} has no proven size bound; it was moved out of the "
                    f"`{invariant.name}` at line {line.line if line else '?'} (its size does "
                    "not change there), no further"), notes=(Note(self.loc, reason),))
            return HoistPlan(HoistKind.BEFORE_LOOP, loop=invariant)
        return self._refuse(f"{self.what} is not hoisted: its size changes in {self.repeats} "
                            "and has no proven bound", [Note(self.loc, reason)])

    def _refuse(self, message: str, notes: Sequence[Note] = ()) -> HoistPlan:
        return HoistPlan(HoistKind.REFUSED, reason=message, notes=tuple(notes))

    @property
    def repeats(self) -> str:
        """What makes the allocation run more than once, as the IR says it."""
        if self.loops:
            line = source_loc(self.loops[-1], self.path)
            return f"the `{self.loops[-1].name}` at line {line.line if line else '?'}"
        if self.cycle is not None:
            line = source_loc(self.cycle, self.path)
            return f"the loop of blocks closed by `{self.cycle.name}` at line " \
                f"{line.line if line else '?'}"
        return "its block"

    def _sizes_ready_at_entry_end(self) -> bool:
        """Every size is a function argument or computed in the entry block."""
        entry = self.anchor.block
        for size in self.sizes:
            owner = size.owner
            block = owner if isinstance(owner, ir.Block) else owner.operation.block
            if block != entry:
                return False
        return True

    def _outermost_invariant_loop(self) -> ir.Operation | None:
        ranges = self.facts.ranges
        for loop in self.loops:
            if all(ranges.pure_slice(size, loop) is not None for size in self.sizes):
                return loop
        return None
