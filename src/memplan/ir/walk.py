"""Structural helpers over the bindings: functions, op order, loops, values.

Everything that knows how the Python bindings spell a block argument, an op's
parent or a symbol lives here, so the analyses read like MLIR passes. Walks are
iterative: IR nested thousands of ops deep must not exhaust Python's stack.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from iree.compiler import ir

from .ops import ALLOCATION_SCOPE_OPS, EXECUTABLE_OPS, FUNCTION_OPS, LOOP_OPS


def children(op: ir.Operation | ir.OpView) -> Iterator[ir.Operation]:
    """The ops directly inside `op`'s regions, in order."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation


def walk(op: ir.Operation | ir.OpView) -> list[ir.Operation]:
    """Ops nested in `op` (not `op` itself), in pre-order: the order they print.

    Collected by MLIR's own (C++) walk before anything is returned, so callers may
    rewrite the IR while they go through the list, and a walk costs one Python call per op.
    """
    found: list[ir.Operation] = []
    append = found.append  # the callback runs once per op: no lookups in it

    def visit(inner: ir.Operation) -> ir.WalkResult:
        append(inner)
        return _ADVANCE

    op.operation.walk(visit, walk_order=_PRE_ORDER)
    return found[1:]  # the first is `op` itself


_ADVANCE, _PRE_ORDER = ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER


def has_body(op: ir.Operation) -> bool:
    return bool(op.regions) and len(op.regions[0].blocks) > 0


def functions(module: ir.Module | ir.Operation) -> list[ir.Operation]:
    """Every function with a body, in module order, looking into nested modules (and other
    symbol tables such as IREE executables) but not into functions."""
    root = module.operation
    found: list[ir.Operation] = []
    stack = [children(root)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif child.name in FUNCTION_OPS:
            if has_body(child):
                found.append(child)
        else:
            stack.append(children(child))
    return found


@dataclass(frozen=True)
class FunctionOps:
    """A function and the ops nested in it (`walk` order) with their names, collected once.

    Analyses that only read the IR share it and pick ops by name, instead of each walking
    the function and asking every op its name again (the bindings' per-op calls are what a
    large file costs). It describes the function as it was: rewriting it makes it stale.
    """

    func: ir.Operation
    ops: list[ir.Operation]
    names: list[str]

    def named(self, kinds: Collection[str]) -> list[ir.Operation]:
        """Its ops whose name is in `kinds`, in walk order."""
        by_name = self._positions
        if len(kinds) < len(by_name):
            groups = [by_name[kind] for kind in kinds if kind in by_name]
        else:
            groups = [where for name, where in by_name.items() if name in kinds]
        if not groups:
            return []
        where = groups[0] if len(groups) == 1 else sorted(i for g in groups for i in g)
        return [self.ops[i] for i in where]

    @cached_property
    def _positions(self) -> dict[str, list[int]]:
        """Each op name's positions in `ops`, ascending: every check asks `named`, and a
        function holds few distinct names."""
        found: dict[str, list[int]] = {}
        for i, name in enumerate(self.names):
            where = found.get(name)
            if where is None:
                found[name] = [i]
            else:
                where.append(i)
        return found


def function_ops(module: ir.Module | ir.Operation) -> list[FunctionOps]:
    """`functions(module)`, each with its ops: one walk per function."""
    found = []
    for func in functions(module):
        ops = walk(func)
        found.append(FunctionOps(func, ops, [op.name for op in ops]))
    return found


def ops_named(module: ir.Module | ir.Operation, kinds: Collection[str],
              funcs: Sequence[FunctionOps] | None = None) -> list[ir.Operation]:
    """Every op nested in `module` whose name is in `kinds`, in walk order. With `funcs` (its
    `function_ops`), the ops inside functions come from there and only the rest is walked."""
    if funcs is None:
        return [op for op in walk(module.operation) if op.name in kinds]
    walked = iter(funcs)  # in `functions` order: the order met below
    found: list[ir.Operation] = []
    stack = [children(module.operation)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        name = child.name
        if name in kinds:
            found.append(child)
        if name not in FUNCTION_OPS:
            stack.append(children(child))
        elif has_body(child):
            found += next(walked).named(kinds)
    return found


def is_device_code(op: ir.Operation) -> bool:
    """Whether `op` sits inside an executable (a kernel), not in the host program."""
    parent = parent_op(op)
    while parent is not None:
        if parent.name in EXECUTABLE_OPS:
            return True
        parent = parent_op(parent)
    return False


def symbol_name(op: ir.Operation | ir.OpView) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def symbol_ref(op: ir.Operation | ir.OpView, attribute: str) -> str:
    """The flat symbol an op names (`@k_cache` -> "k_cache")."""
    return ir.FlatSymbolRefAttr(op.attributes[attribute]).value


def parent_op(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    return parent.operation if parent is not None else None


def function_of(op: ir.Operation) -> ir.Operation | None:
    """The function holding `op` (or `op` itself when it is one)."""
    current: ir.Operation | None = op.operation
    while current is not None:
        if current.name in FUNCTION_OPS:
            return current
        current = parent_op(current)
    return None


class OpOrder:
    """Pre-order positions of a function's ops; `end_of(op)` is one past its last nested op."""

    def __init__(self, position: dict[ir.Operation, int]):
        self.position = position
        self._end: dict[ir.Operation, int] = {}

    @staticmethod
    def of(func: ir.Operation) -> OpOrder:
        return OpOrder({op: index for index, op in enumerate(walk(func))})

    def end_of(self, op: ir.Operation) -> int:
        # Asked for few ops (the ancestors of a buffer's users): one walk of each subtree,
        # none for an op without regions (most users).
        if not op.regions:
            return self.position[op] + 1
        if op not in self._end:
            self._end[op] = self.position[op] + 1 + len(walk(op))
        return self._end[op]


def ancestors(op: ir.Operation) -> Iterator[ir.Operation]:
    """The ops enclosing `op`, innermost first, up to (and including) its function."""
    parent = parent_op(op)
    while parent is not None:
        yield parent
        if parent.name in FUNCTION_OPS:
            return
        parent = parent_op(parent)


def enclosing_loops(op: ir.Operation) -> list[ir.Operation]:
    """Loops around `op` inside its function, outermost first."""
    return [a for a in ancestors(op) if a.name in LOOP_OPS][::-1]


def loops_inside_allocation_scope(op: ir.Operation) -> int:
    """Loops between `op` and its automatic allocation scope: for a `memref.alloca`, the loops
    whose every iteration adds to the stack."""
    count = 0
    for parent in ancestors(op):
        if parent.name in ALLOCATION_SCOPE_OPS:
            break
        count += parent.name in LOOP_OPS
    return count


def allocation_scope(op: ir.Operation) -> ir.Operation | None:
    """The automatic allocation scope around `op`: where its `memref.alloca` is freed."""
    return next((a for a in ancestors(op) if a.name in ALLOCATION_SCOPE_OPS), None)


def is_inside(op: ir.Operation, ancestor: ir.Operation) -> bool:
    parent = parent_op(op)
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parent_op(parent)
    return False


def ancestor_in_block(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """`op` itself or the ancestor of `op` whose block is `block` (None if not nested there)."""
    current: ir.Operation | None = op
    while current is not None:
        parent = parent_op(current)
        if parent is None:  # a top-level op: asking for its block crashes the bindings at exit
            return None
        if current.block == block:
            return current
        current = parent
    return None


# --- values -----------------------------------------------------------------------

def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op producing `value`, or None for a block argument."""
    value = value.maybe_downcast()
    if isinstance(value, ir.OpResult):
        return value.owner.operation
    return None


def block_argument_owner(value: ir.Value) -> tuple[ir.Operation, int] | None:
    """For a block argument: (op owning its region, argument number); else None."""
    value = value.maybe_downcast()
    if not isinstance(value, ir.BlockArgument):
        return None
    return value.owner.owner.operation, value.arg_number


def ssa_name(value: ir.Value) -> str:
    """`%cst` as printed: numbered within the enclosing function (an isolated scope), so the
    printer runs over that function, not the whole module."""
    return value.get_name(use_local_scope=True)


def users(value: ir.Value) -> list[ir.Operation]:
    return [use.owner.operation for use in value.uses]


def int_constant(value: ir.Value) -> int | None:
    """The value of an integer/index `arith.constant`, else None."""
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def dominates(first: ir.Operation, user: ir.Operation) -> bool:
    """Whether `first` runs before `user` on every path to it (structured regions: `first`
    is earlier in a block that holds `user` or an ancestor of it, or in its region's entry
    block)."""
    block = first.block
    current: ir.Operation | None = user
    while current is not None and current.name not in FUNCTION_OPS:
        if current.block == block:
            return current != first and first.is_before_in_block(current)
        if current.block.region.blocks[0] == block:
            return True
        current = parent_op(current)
    return False
