"""Hoist-and-bound: allocations leave their loops; stack allocations get a static size.

Matches every `memref.alloca` and `memref.alloc` inside a sequential loop
(`scf.for`, `affine.for`, `scf.while`), every `memref.alloca` on a loop of
blocks (a `cf.br` back edge: `ir/cfg.py`) or outside the entry block (LLVM
makes those dynamic stack adjustments; IREE refuses them), every dynamic
`memref.alloca`, and every dynamic `memref.alloc` in memory reserved when a
kernel is launched (GPU workgroup memory, IREE's CPU workgroup-local memory):
its size must be static by then, so it is padded to its bound as IREE's
`pad-dynamic-alloc` does (rule 3), or refused when it has none.

Rewrites, in this order of preference:
1. Static shape: the allocation moves to the function entry.
2. Heap, sizes invariant in every enclosing loop: the allocation moves, with the
   side-effect-free ops computing its sizes, to just before the outermost loop.
3. Sizes with a proven bound (range analysis): one static allocation of the
   bound at the function entry; at the old place a view of the dynamic size
   replaces the allocation for every user:
   - a `memref.subview` (offsets 0, strides 1; layout `strided<[bound strides]>`)
     when every user takes any strided layout: `memref.load/store`,
     `affine.load/store`, `vector` transfers/loads/stores, `linalg` ops,
     `memref.copy`, `memref.dim`, and `memref.subview` (whose result type is
     re-inferred, and its users checked the same way);
   - otherwise (a `func.call` whose callee wants `memref<8x?xi32>`, a
     `memref.cast`, a rank-reducing subview, `collapse_shape`, any other op) a
     `memref.reinterpret_cast` to the original identity-layout type with packed
     strides: the type is unchanged, so no user and no callee changes. The
     buffer is fresh (uninitialised) every iteration, so which layout holds its
     elements is invisible; the packed view is a prefix of the bound buffer.
     A `memref.cast` to the original type would not do: it would claim the
     identity layout for memory laid out with the bound's strides.
   For the stack this is preferred to 2: the frame must hold the bound anyway.
4. Stack, unbounded but invariant in some loops: moves before the outermost
   such loop (it no longer grows the stack per iteration), and stays an error.
5. Stack, outside loops and outside the entry block, unbounded, with sizes known
   at the end of the entry block: moves there (its size stays open: an error).
A heap allocation's `memref.dealloc` (one, in the allocation's block) moves to
just after the outermost loop left, and frees the bound buffer.

Refuses (error diagnostic, IR untouched): sizes that vary in the loop and have
no bound; a buffer that leaves its iteration (`analysis/buffer_flow.py`: yielded
by the loop it is made in, returned, passed on by a branch, turned into a new
value; threading it through an inner loop's `iter_args` is not leaving); deallocs
elsewhere than the allocation's block; layout symbol operands. It never moves
an allocation out of a parallel loop (`scf.parallel`, `scf.forall`,
`affine.parallel`): its iterations each need their own buffer.

Hoisting out of a loop that may run zero times allocates where the program
did not; sizes are only moved when their computation cannot fail (divisions
only by a divisor proven non-zero), as MLIR's buffer-loop-hoisting does.
Created ops carry the location of the allocation they replace.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from iree.compiler import ir
from iree.compiler.dialects import arith, memref

from ..analysis.buffer_flow import escape_from
from ..analysis.census import (
    FunctionFacts,
    allocation_ops,
    bound_dims,
    dynamic_size_operands,
    function_facts,
)
from ..analysis.ranges import Assumption
from ..diagnostic import Diagnostic, Note
from ..ir import MlirChunk, source_loc
from ..ir.cfg import cfg_cycle_around
from ..ir.ops import (
    ANY_LAYOUT_USERS,
    DEALLOCATION_OPS,
    MEMREF_ALLOCATION_OPS,
    PARALLEL_LOOP_OPS,
    STACK_ALLOCATION_OPS,
)
from ..ir.types import DYNAMIC, DYNAMIC_STRIDE, element_bytes, memory_space_name, shape_of
from ..ir.walk import allocation_scope, enclosing_loops, functions, users
from ..place.workgroup import reserved_per_launch
from .rewrite_report import RewriteReport


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
    return _Hoist(op, facts, path, _anchor(func), RewriteReport()).decide()


def hoist_and_bound(chunk: MlirChunk, assumptions: Sequence[Assumption] = ()) -> RewriteReport:
    """Rewrite every function of the chunk in place; say what was done and what was refused."""
    report = RewriteReport()
    with chunk.context:
        for func in functions(chunk.module):
            _hoist_function(func, chunk, assumptions, report)
    return report


def _hoist_function(func: ir.Operation, chunk: MlirChunk, assumptions: Sequence[Assumption],
                    report: RewriteReport) -> None:
    facts = function_facts(func, chunk, assumptions)
    anchor = _anchor(func)
    for op in allocation_ops(func):
        if op.name in MEMREF_ALLOCATION_OPS:
            _Hoist(op, facts, chunk.path, anchor, report).run()


def _anchor(region_op: ir.Operation) -> ir.Operation:
    """Where hoisted allocations go in `region_op`'s first block: before its first op that is
    never erased (an allocation may be replaced, so it cannot be the anchor). Allocations
    hoisted one after the other keep their source order."""
    return next(op.operation for op in region_op.regions[0].blocks[0].operations
                if op.operation.name not in MEMREF_ALLOCATION_OPS)


class _Hoist:
    """The rewrite of one allocation op."""

    def __init__(self, op: ir.Operation, facts: FunctionFacts, path: str, anchor: ir.Operation,
                 report: RewriteReport):
        self.op, self.facts, self.path, self.report = op, facts, path, report
        self.loc = source_loc(op, path)
        self.is_stack = op.name in STACK_ALLOCATION_OPS
        self.type = ir.MemRefType(op.results[0].type)
        self.shape = shape_of(self.type)
        # Workgroup memory is sized at launch: like the stack frame, it needs a static size.
        self.per_launch = not self.is_stack and reserved_per_launch(memory_space_name(self.type))
        loops = enclosing_loops(op)
        parallel = [i for i, loop in enumerate(loops) if loop.name in PARALLEL_LOOP_OPS]
        # Only the sequential loops inside the innermost parallel loop may be left.
        self.loops = loops[parallel[-1] + 1:] if parallel else loops
        self.anchor = anchor if not parallel else _anchor(loops[parallel[-1]])
        self.destination = "the function entry" if not parallel else \
            f"the start of the enclosing `{loops[parallel[-1]].name}` body"
        self.sizes = dynamic_size_operands(op)
        self.dealloc: ir.Operation | None = None
        self.scope = allocation_scope(op)
        self.cycle: ir.Operation | None = None
        self.outside_entry = False

    # diagnostics

    def remark(self, message: str, notes: Sequence[Note] = ()) -> None:
        self.report.add_rewritten(Diagnostic("remark", self.loc, message, notes,
                                                  code="hoisted"))

    def error(self, message: str, notes: Sequence[Note] = ()) -> None:
        self.report.add_refused(Diagnostic("error", self.loc, message, notes,
                                                  code="not-hoisted"))

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

    def run(self) -> None:
        plan = self.decide()
        kind = plan.kind
        if kind is HoistKind.REFUSED:
            self.error(plan.reason, plan.notes)
        elif kind is HoistKind.TO_ENTRY:
            self._move_to_entry()
        elif kind is HoistKind.TO_ENTRY_END:
            self._move_to_entry_end(plan.reason)
        elif kind is HoistKind.BIND:
            self._bind(plan.bounds)
        elif kind in (HoistKind.BEFORE_LOOP, HoistKind.PARTIAL):
            assert plan.loop is not None
            self._move_before(plan.loop)
            if kind is HoistKind.PARTIAL:
                self.error(plan.reason, plan.notes)

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

    # the rewrites

    def _move_to_entry(self) -> None:
        self.op.move_before(self.anchor)
        self._move_dealloc(self.op.results[0])
        self.remark(f"hoisted {self.what} ({_bytes(self.type)} bytes) {self._from()}to "
                    f"{self.destination}")

    def _move_to_entry_end(self, reason: str) -> None:
        """Unbounded, but its sizes are known at the end of the entry block: it moves there,
        out of the block that made it a dynamic stack adjustment (its size stays open)."""
        self.op.move_before(self.anchor.block.operations[len(self.anchor.block.operations) - 1])
        self.remark(f"moved {self.what} {self._from()}to the end of the entry block; its size "
                    f"still has no proven bound ({reason})")

    def _from(self) -> str:
        """Where it came from, when not from an `scf`/`affine` loop (with a trailing space)."""
        if self.loops:
            return ""
        if self.cycle is not None:
            return f"out of {self.repeats} "
        return "from a block other than the entry " if self.outside_entry else ""

    def _move_before(self, loop: ir.Operation) -> None:
        for size in self.sizes:
            for op in self.facts.ranges.pure_slice(size, loop) or []:
                op.move_before(loop)
        self.op.move_before(loop)
        self._move_dealloc(self.op.results[0], loop)
        line = source_loc(loop, self.path)
        self.remark(f"hoisted {self.what} with its loop-invariant size out of the loop at line "
                    f"{line.line if line else '?'}")

    def _move_dealloc(self, buffer: ir.Value, outermost: ir.Operation | None = None) -> None:
        if self.dealloc is None:
            return
        outermost = outermost or (self.loops[0] if self.loops else None)
        if outermost is None:
            return
        memref.DeallocOp(buffer, loc=self.dealloc.location, ip=ir.InsertionPoint.after(outermost))
        self.dealloc.erase()

    def _bind(self, bounds: tuple[int | None, ...]) -> None:
        """Static allocation of the bound at the entry; a view of the dynamic size in place."""
        op, loc = self.op, self.op.location
        # A dynamic size bounded by 0 (the loop never runs under the assumptions, or the size
        # is always 0) still needs one element: the verifier rejects a view into an empty
        # buffer (offset 0 is out of bounds of a 0-element dim).
        empty = any(b == 0 and d is None for b, d in zip(bounds, self.shape, strict=True))
        bounds = tuple(1 if b == 0 and d is None else b
                       for b, d in zip(bounds, self.shape, strict=True))
        big_type = ir.MemRefType.get(list(bounds), self.type.element_type,
                                     memory_space=self.type.memory_space, loc=loc)
        kwargs = {}
        if "alignment" in op.attributes:
            kwargs["alignment"] = op.attributes["alignment"]
        create = memref.AllocaOp if self.is_stack else memref.AllocOp
        big = create(big_type, [], [], loc=loc, ip=ir.InsertionPoint(self.anchor),
                     **kwargs).result
        needs_type = _needs_original_type(op.results[0])
        with loc, ir.InsertionPoint(op):
            if needs_type is None:
                view = self._subview(big, big_type)
                how = "a memref.subview"
            else:
                view = self._packed_view(big)
                how = (f"a memref.reinterpret_cast keeping the original type (`{needs_type.name}` "
                       "needs it)")
        old = op.results[0]
        old.replace_all_uses_with(view)
        self._move_dealloc(big)
        if needs_type is None:
            _retype_subviews(view)
        op.erase()
        viewer = "the loop views" if self.loops else f"{self.repeats} views" \
            if self.cycle is not None else "its users, in a block other than the entry, view" \
            if self.outside_entry else "its users view"
        self.remark(f"{self.what} bound to {big_type} ({_bytes(big_type)} bytes) at "
                    f"{self.destination}; {viewer} its dynamic size through {how}"
                    + ("; its size is at most 0 (the loop never runs under the assumptions, "
                       "or allocates nothing), so one element is kept" if empty else ""))

    def _subview(self, big: ir.Value, big_type: ir.MemRefType) -> ir.Value:
        strides, _ = big_type.get_strides_and_offset()
        layout = ir.StridedLayoutAttr.get(0, strides)
        view_type = ir.MemRefType.get(list(self.type.shape), self.type.element_type,
                                      layout=layout, memory_space=self.type.memory_space)
        rank = len(self.shape)
        return memref.SubViewOp(view_type, big, [], self.sizes, [], [0] * rank,
                                list(self.type.shape), [1] * rank).result

    def _packed_view(self, big: ir.Value) -> ir.Value:
        """The original identity-layout type over the bound buffer, rows packed."""
        strides, _ = self.type.get_strides_and_offset()
        stride_values = []
        sizes = iter(self.sizes)
        dims = [d if d is not None else next(sizes) for d in self.shape]
        for i, stride in enumerate(strides):
            if stride != DYNAMIC_STRIDE:
                continue
            static = math.prod(d for d in dims[i + 1:] if isinstance(d, int))
            value = None if static == 1 else arith.ConstantOp(ir.IndexType.get(), static).result
            for d in dims[i + 1:]:
                if not isinstance(d, int):
                    value = d if value is None else arith.MulIOp(value, d).result
            stride_values.append(value)
        return memref.ReinterpretCastOp(self.type, big, [], self.sizes, stride_values, [0],
                                        list(self.type.shape), strides).result


def _bytes(type_: ir.MemRefType) -> int:
    return (element_bytes(type_.element_type) or 0) * math.prod(type_.shape)


def _needs_original_type(buffer: ir.Value) -> ir.Operation | None:
    """The first user that would not accept a strided view in place of the buffer."""
    for user in users(buffer):
        if user.name in ANY_LAYOUT_USERS or user.name.startswith("linalg.") or \
                user.name in DEALLOCATION_OPS:
            continue
        if user.name == "memref.subview" and user.operands[0] == buffer and \
                ir.MemRefType(user.results[0].type).rank == ir.MemRefType(buffer.type).rank:
            inner = _needs_original_type(user.results[0])
            if inner is None:
                continue
            return inner
        return user
    return None


def _retype_subviews(view: ir.Value) -> None:
    """Give subviews of `view` the result type inferred from its (new) strided layout."""
    for user in users(view):
        if user.name != "memref.subview" or user.operands[0] != view:
            continue
        result = user.results[0]
        result.set_type(_subview_type(ir.MemRefType(view.type), user))
        _retype_subviews(result)


def _subview_type(source: ir.MemRefType, subview: ir.Operation) -> ir.MemRefType:
    """`memref.subview`'s inferred result type (not rank-reducing)."""
    offsets = list(ir.DenseI64ArrayAttr(subview.attributes["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(subview.attributes["static_sizes"]))
    steps = list(ir.DenseI64ArrayAttr(subview.attributes["static_strides"]))
    strides, offset = source.get_strides_and_offset()
    dyn = DYNAMIC_STRIDE
    new_strides = [dyn if s == dyn or k == dyn else s * k for s, k in zip(strides, steps,
                                                                         strict=True)]
    new_offset = offset
    for o, s in zip(offsets, strides, strict=True):
        if new_offset == dyn or o == dyn or s == dyn:
            new_offset = dyn
        else:
            new_offset += o * s
    shape = [DYNAMIC if s == ir.ShapedType.get_dynamic_size() else s for s in sizes]
    return ir.MemRefType.get(shape, source.element_type,
                             layout=ir.StridedLayoutAttr.get(new_offset, new_strides),
                             memory_space=source.memory_space, loc=subview.location)
