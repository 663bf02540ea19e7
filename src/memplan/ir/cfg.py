"""Unstructured control flow: which blocks of a region run more than once.

A region with several blocks (`cf.br`, `cf.cond_br`, `cf.switch`, ...) loops when
its control-flow graph has a cycle: every block on a cycle may run once per trip,
so a `memref.alloca` there grows the stack each time, as one in an `scf.for`
does. Cycles are the strongly connected components with an edge inside them
(Tarjan's algorithm, iterative); each is reported with a branch that closes it
(an edge to a block already on the depth-first path from the entry), for the
note that points at the loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir


@dataclass(frozen=True)
class CfgCycles:
    """The blocks of one region that lie on a cycle, and a branch closing each one's cycle."""

    closing_branch: dict[ir.Block, ir.Operation]

    def contains(self, block: ir.Block) -> bool:
        return block in self.closing_branch


def successors(block: ir.Block) -> list[ir.Block]:
    ops = list(block.operations)
    if not ops:
        return []
    return list(ops[-1].operation.successors)


def region_cycles(region: ir.Region) -> CfgCycles:
    blocks = list(region.blocks)
    if len(blocks) < 2 and not (blocks and blocks[0] in successors(blocks[0])):
        return CfgCycles({})
    cyclic = [c for c in _components(blocks) if len(c) > 1 or c[0] in successors(c[0])]
    back_edges = _back_edges(blocks[0])
    closing: dict[ir.Block, ir.Operation] = {}
    for component in cyclic:
        members = set(component)
        branch = next((back_edges[b] for b in component if b in back_edges),
                      _terminator(component[0]))
        for block in members:
            closing[block] = branch
    return CfgCycles(closing)


def cfg_cycle_around(op: ir.Operation, stop: ir.Operation) -> ir.Operation | None:
    """The branch closing a CFG cycle that `op` (or an op enclosing it, up to `stop`) is on."""
    current: ir.Operation | None = op
    while current is not None and current != stop:
        if current.parent is None:  # a top-level op has no block (and asking crashes)
            return None
        block = current.block
        region = block.region
        if len(list(region.blocks)) > 1:
            branch = region_cycles(region).closing_branch.get(block)
            if branch is not None:
                return branch
        parent = current.parent
        current = parent.operation if parent is not None else None
    return None


def _terminator(block: ir.Block) -> ir.Operation:
    return list(block.operations)[-1].operation


def _back_edges(entry: ir.Block) -> dict[ir.Block, ir.Operation]:
    """Blocks that end with a branch back to a block on the DFS path, with that branch."""
    found: dict[ir.Block, ir.Operation] = {}
    on_path: set[ir.Block] = {entry}
    seen: set[ir.Block] = {entry}
    stack = [(entry, iter(successors(entry)))]
    while stack:
        block, pending = stack[-1]
        following = next(pending, None)
        if following is None:
            stack.pop()
            on_path.discard(block)
            continue
        if following in on_path:
            found.setdefault(block, _terminator(block))
        elif following not in seen:
            seen.add(following)
            on_path.add(following)
            stack.append((following, iter(successors(following))))
    return found


def _components(blocks: list[ir.Block]) -> list[list[ir.Block]]:
    """Strongly connected components (Tarjan), without recursion."""
    index: dict[ir.Block, int] = {}
    low: dict[ir.Block, int] = {}
    on_stack: set[ir.Block] = set()
    stack: list[ir.Block] = []
    components: list[list[ir.Block]] = []
    for root in blocks:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            block, pending = work[-1]
            following = next(pending, None)
            if following is not None:
                if following not in index:
                    index[following] = low[following] = len(index)
                    stack.append(following)
                    on_stack.add(following)
                    work.append((following, iter(successors(following))))
                elif following in on_stack:
                    low[block] = min(low[block], index[following])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[block])
            if low[block] == index[block]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == block:
                        break
                components.append(component)
    return components
