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

import math
from collections.abc import Sequence

from iree.compiler import ir
from iree.compiler.dialects import arith, memref

from ..analysis.assumptions import Assumption
from ..analysis.census import FunctionFacts, allocation_ops, function_facts
from ..analysis.hoist_plan import HoistDecision, HoistKind, anchor_of
from ..diagnostic import Diagnostic, Note
from ..ir import MlirChunk, source_loc
from ..ir.ops import (
    ANY_LAYOUT_USERS,
    DEALLOCATION_OPS,
    MEMREF_ALLOCATION_OPS,
)
from ..ir.types import DYNAMIC, DYNAMIC_STRIDE, element_bytes
from ..ir.walk import functions, users
from .rewrite_report import RewriteReport


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
    anchor = anchor_of(func)
    for op in allocation_ops(func):
        if op.name in MEMREF_ALLOCATION_OPS:
            _Hoist(op, facts, chunk.path, anchor, report).run()


class _Hoist(HoistDecision):
    """The rewrite of one allocation op, as its decision says."""

    def __init__(self, op: ir.Operation, facts: FunctionFacts, path: str, anchor: ir.Operation,
                 report: RewriteReport):
        super().__init__(op, facts, path, anchor)
        self.report = report

    # diagnostics

    def remark(self, message: str, notes: Sequence[Note] = ()) -> None:
        self.report.add_rewritten(Diagnostic("remark", self.loc, message, notes,
                                                  code="hoisted"))

    def error(self, message: str, notes: Sequence[Note] = ()) -> None:
        self.report.add_refused(Diagnostic("error", self.loc, message, notes,
                                                  code="not-hoisted"))

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
