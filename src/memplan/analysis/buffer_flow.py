"""Where a buffer goes: does it leave the iteration that made it?

A buffer made inside a loop may be replaced by one buffer made before the loop
only if no iteration can see another iteration's buffer. It follows the buffer
through every value that is the same memory:
- views (`memref.subview`, `memref.cast`, ...) of it;
- loops it is threaded through as an iteration argument (`scf.for
  iter_args(%acc = %buf)`): the region argument and the loop's result;
- `scf.yield` of an op nested inside the iteration (an inner loop, `scf.if`,
  `scf.execute_region`, `scf.index_switch`): that op's result.
It leaves the iteration when it reaches the `scf.yield` (or `affine.yield`) of a
loop being left (the next iteration or the loop's result gets it), a
`func.return`, a branch (`cf.br`, `cf.cond_br`: a block argument may carry it
round a CFG loop), or an op that makes a new buffer or tensor from it (which
may be kept). Calls and ordinary reads and writes use it in place.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from iree.compiler import ir

from ..ir.ops import LOOP_OPS, MEMREF_VIEW_OPS

# Ops whose `scf.yield` hands the yielded value to the op's result.
_YIELDING_PARENTS = frozenset({"scf.if", "scf.execute_region", "scf.index_switch",
                               "scf.for", "affine.if"})
_ITER_ARG_LOOPS = frozenset({"scf.for", "affine.for"})
# Terminators handing values to their parent op (`scf.condition`: to a while's results).
_YIELDS = frozenset({"scf.yield", "affine.yield", "scf.condition"})
_BRANCHES = frozenset({"cf.br", "cf.cond_br", "cf.switch"})
_RETURNS = frozenset({"func.return", "gpu.return", "util.return", "llvm.return"})


class EscapeKind(enum.Enum):
    NEXT_ITERATION = "is yielded by the loop it is made in, to its next iteration or result"
    RETURNED = "is returned from the function"
    BRANCH = "is passed to another block by a branch"
    NEW_VALUE = "is turned into a new value that may outlive the iteration"
    UNKNOWN_REGION = "is yielded to an op memplan does not follow"


@dataclass(frozen=True)
class Escape:
    kind: EscapeKind
    op: ir.Operation  # the op through which it leaves
    loop: ir.Operation | None = None  # for NEXT_ITERATION: the loop it is yielded by

    def describe(self) -> str:
        if self.kind is EscapeKind.NEXT_ITERATION:
            return "is yielded by the loop it is made in (`scf.yield`), so the next iteration " \
                "or the loop's result holds it"
        if self.kind is EscapeKind.NEW_VALUE:
            return f"is turned into a new value by `{self.op.name}`, which may outlive the " \
                "iteration"
        if self.kind is EscapeKind.UNKNOWN_REGION:
            return f"is yielded to `{self.op.name}`, whose results memplan does not follow"
        return f"{self.kind.value} (`{self.op.name}`)"


def escape_from(buffer: ir.Value, leaving: Iterable[ir.Operation]) -> Escape | None:
    """How the buffer leaves the iterations of the loops in `leaving`, if it does. With no
    loop to leave, only returns, branches and new values count (no iteration to leave)."""
    return _follow(buffer, tuple(leaving))


def _follow(buffer: ir.Value, leaving: tuple[ir.Operation, ...]) -> Escape | None:
    pending, seen = [buffer], {buffer}

    def alias(values: Iterable[ir.Value]) -> None:
        for v in values:
            if v not in seen:
                seen.add(v)
                pending.append(v)

    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.owner.operation
            index = use.operand_number
            name = user.name
            if name in MEMREF_VIEW_OPS and index == 0:
                alias(user.results)
            elif name in _ITER_ARG_LOOPS and _is_init(user, index):
                position = _init_position(user, index)
                body = user.regions[0].blocks[0]
                alias([list(body.arguments)[1 + position], user.results[position]])
            elif name in _YIELDS:
                parent = user.parent.operation if user.parent is not None else None
                if parent is None:
                    return Escape(EscapeKind.UNKNOWN_REGION, user)
                if parent in leaving:
                    return Escape(EscapeKind.NEXT_ITERATION, user, parent)
                if parent.name in _YIELDING_PARENTS and name != "scf.condition":
                    alias([parent.results[index]])
                    if parent.name in _ITER_ARG_LOOPS:  # and the loop's next iteration
                        alias([list(parent.regions[0].blocks[0].arguments)[1 + index]])
                elif parent.name in LOOP_OPS:
                    return Escape(EscapeKind.UNKNOWN_REGION, parent)
            elif name in _RETURNS:
                return Escape(EscapeKind.RETURNED, user)
            elif name in _BRANCHES:
                return Escape(EscapeKind.BRANCH, user)
            elif name in LOOP_OPS:  # an init of a loop whose iteration arguments we don't map
                return Escape(EscapeKind.UNKNOWN_REGION, user)
            elif name not in MEMREF_VIEW_OPS and any(
                    isinstance(r.type, ir.MemRefType | ir.RankedTensorType)
                    for r in user.results):
                return Escape(EscapeKind.NEW_VALUE, user)
    return None


def _is_init(loop: ir.Operation, index: int) -> bool:
    return index >= _first_init(loop)


def _init_position(loop: ir.Operation, index: int) -> int:
    return index - _first_init(loop)


def _first_init(loop: ir.Operation) -> int:
    if loop.name == "scf.for":
        return 3
    # affine.for: bound operands first; its inits are the last len(results) operands.
    return len(loop.operands) - len(loop.results)
