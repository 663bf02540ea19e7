"""When a buffer's memory is in use: from its first use to its last, through every alias.

A fresh allocation holds nothing until it is first written, so its memory is needed
from its first use, not from the op that allocates it: two buffers whose uses never
interleave may share bytes even when both are allocated at the top of a kernel (IREE's
`gpu-reuse-shared-memory-allocs` measures liveness the same way, from first to last use).

Positions are those of the function's pre-order op walk (`OpOrder`); a use nested in an
op of the allocation's block (a loop, an `scf.if`) counts as that whole op, since the
loop comes back to it. The buffer is followed through every value that may be its
memory:
- views (`memref.subview`, `memref.cast`, `expand_shape`, `tensor.extract_slice`, ... of
  operand 0) and `arith.select`: another name for it, not a use of it;
- a destination-passing op (`linalg`, `tensor.insert_slice`, ...): a use; its results are
  the buffer only when the buffer is its destination (what it reads it does not return);
- a loop it is handed to as an iteration argument, and a region terminator yielding it
  (`scf.yield`, `scf.condition`): the op's results and its regions' arguments;
- any other op using it: a use, and its shaped results are followed too (a tensor made
  from it, a call's result may be the same memory).
A buffer that reaches a branch (`cf.br`: a block argument carries it elsewhere in a
CFG, maybe round a cycle) is live for the whole function; a use outside its block is
counted as the op enclosing both (the loop it was made in, for one yielded out of it),
and one yielded to the next iteration of a loop it is made in lives for the whole loop.
"""

from __future__ import annotations

from iree.compiler import ir

from ..ir.ops import FUNCTION_OPS, MEMREF_VIEW_OPS, TENSOR_VIEW_OPS
from ..ir.tensor_ops import destination_operands, is_linalg_structured
from ..ir.walk import OpOrder, ancestor_in_block, is_inside, parent_op

_BRANCHES = frozenset({"cf.br", "cf.cond_br", "cf.switch", "llvm.br", "llvm.cond_br"})
_REGION_TERMINATORS = frozenset({"scf.yield", "scf.condition", "affine.yield", "scf.reduce",
                                 "scf.reduce.return", "scf.forall.in_parallel"})


_BUFFER_TYPES = (ir.MemRefType, ir.UnrankedMemRefType, ir.RankedTensorType,
                 ir.UnrankedTensorType)


def _shaped(value: ir.Value) -> bool:
    """A value that may hold memory: a memref, a tensor (bufferized in place), an LLVM
    pointer; not a vector (a value in registers, whatever it was read from)."""
    type_ = value.type
    return isinstance(type_, _BUFFER_TYPES) or str(type_).startswith("!llvm.ptr")


def _is_alias_only(user: ir.Operation, index: int) -> bool:
    """`user` only names the memory again: it neither reads nor writes it."""
    name = user.name
    return (index == 0 and (name in MEMREF_VIEW_OPS or name in TENSOR_VIEW_OPS)) or \
        (name == "arith.select" and index in (1, 2))


def _region_values(op: ir.Operation) -> list[ir.Value]:
    """An op's shaped results and the shaped arguments of its regions' blocks."""
    found = [r for r in op.results if _shaped(r)]
    for region in op.regions:
        for block in region.blocks:
            found += [a for a in block.arguments if _shaped(a)]
    return found


def use_lifetime(buffer: ir.Value, op: ir.Operation, order: OpOrder) -> tuple[int, int]:
    """Half-open `[first use, last use + 1)` of the memory `op` allocates as `buffer`;
    `[op, op + 1)` for a buffer nothing uses."""
    whole = (0, len(order.position))
    start: int | None = None
    end = 0
    pending, seen = [buffer], {buffer}

    def follow(values: list[ir.Value]) -> None:
        for v in values:
            if v not in seen:
                seen.add(v)
                pending.append(v)

    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.owner.operation
            name = user.name
            if _is_alias_only(user, use.operand_number):
                follow(list(user.results))
                continue
            if name in _BRANCHES:
                return whole
            if name in _REGION_TERMINATORS:
                parent = parent_op(user)
                if parent is not None and parent.name not in FUNCTION_OPS:
                    follow(_region_values(parent))
                    if is_inside(op, parent):  # carried to the next iteration of its loop
                        start = order.position[parent] if start is None else \
                            min(start, order.position[parent])
                        end = max(end, order.end_of(parent))
            elif (dests := destination_operands(user)) or is_linalg_structured(user):
                if use.operand_number in dests:
                    follow([r for r in user.results if _shaped(r)])
            elif user.regions:  # a loop's iteration argument, an op with a body
                follow(_region_values(user))
            else:
                follow([r for r in user.results if _shaped(r)])
            span = _span(user, op, order)
            if span is None:
                return whole
            start = span[0] if start is None else min(start, span[0])
            end = max(end, span[1])
    if start is None:
        first = order.position[op]
        return first, first + 1
    return start, end


def _span(user: ir.Operation, op: ir.Operation, order: OpOrder) -> tuple[int, int] | None:
    """The positions `user` occupies as seen from `op`'s block: the op of that block it is
    nested in; for a user outside it, the op enclosing both, from `op`'s side (None: only
    the function encloses both)."""
    home = op
    while True:
        top = ancestor_in_block(user, home.block)
        if top is not None:
            if home is op:
                return order.position[top], order.end_of(top)
            return order.position[home], max(order.end_of(top), order.end_of(home))
        home = parent_op(home)
        if home is None or home.name in FUNCTION_OPS:
            return None
