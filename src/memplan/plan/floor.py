"""The floor of an arena: a bound no operator order can beat.

Whatever order a runtime runs the operators in, each operator holds every buffer it
touches (inputs, outputs, scratch) live while it runs, so no plan of any order is smaller
than the largest such working set. The schedule's lower bound (`pack.lower_bound`: the
most bytes live at one step of the given order) is never below it; the gap between the
two is what reordering could win, and the floor itself only falls when the graph changes
(an operator run patch by patch, an output written over its input).

Buffers that share bytes in place (`BufferRequest.shares_with`) count once, as in the
bound (a staggered group, `buffers.staggered`, as the span of the members an operator
touches). The driver adds what its bound adds on top of the bytes live (reserved bytes below
the arena, the runtime's padding: `over`), so the two compare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..buffers import Arena, Key, group_offsets, merged, share_groups, staggered
from .contract import ModelView, Operator


@dataclass(frozen=True)
class Floor:
    """One arena's floor and the operator that sets it."""

    arena: str
    bytes: int  # the largest working set, plus what the arena's bound adds (`over`)
    operator: Operator | None  # None: no operator touches the arena
    held: tuple[tuple[str, int], ...] = ()  # the working set: (buffer name, bytes), largest first


def arena_floor(arena: Arena, operators: Sequence[Operator], over: int = 0) -> Floor:
    """The floor of one arena; `over` is what its bound adds to the bytes live."""
    groups = share_groups(arena.buffers)
    group_of: dict[Key, int] = {}
    sizes = []
    names = []
    for i, group in enumerate(groups):
        whole = merged(group)
        sizes.append(whole.packed_size)
        names.append(whole.name)
        for b in group:
            group_of[b.key] = i
    # A staggered group (an output below the input it is written over) holds, while an
    # operator runs, only the bytes of the members it touches: its block is their span.
    spans = {i: (group_offsets(g), {b.key: b.packed_size for b in g})
             for i, g in enumerate(groups) if staggered(g)}

    def held(i: int, op: Operator) -> int:
        if i not in spans:
            return sizes[i]
        at, size = spans[i]
        mine = [k for k in op.uses if k in at and size[k]]
        return max(at[k] + size[k] for k in mine) - min(at[k] for k in mine) if mine else 0

    best, best_op, best_set = 0, None, ()
    for op in operators:
        touched = {group_of[k] for k in op.uses if k in group_of}
        bytes_of = {i: held(i, op) for i in touched}
        total = sum(bytes_of.values())
        if best_op is None or total > best:
            best, best_op = total, op
            best_set = tuple((names[i], bytes_of[i])
                             for i in sorted(touched, key=lambda i: -bytes_of[i]))
    if best_op is None:
        return Floor(arena.name, 0, None)
    return Floor(arena.name, over + best, best_op, tuple(x for x in best_set if x[1]))


def floors(view: ModelView, over: Mapping[str, int]) -> tuple[Floor, ...]:
    """Per arena of the view that was planned as one space (`over`: what the bound of
    each adds to the bytes live), when the front end lists its operators (else none)."""
    if not view.operators:
        return ()
    return tuple(arena_floor(a, view.operators, over[a.name]) for a in view.arenas
                 if a.name in over)


def floor_note(floor: Floor, lower_bound: int, count: int = 3, *, reordered: bool = False
               ) -> str | None:
    """What sets the floor and what could lower it (None when no operator touches it, or
    when the bound is at the floor and no rewrite could lower it);
    `reordered`: the order planned is already memplan's search's."""
    op = floor.operator
    # At the floor with no rewrite for its operator, there is nothing to act on.
    if op is None or (lower_bound <= floor.bytes and not op.lowered_by):
        return None
    shown = "; ".join(f"{name} {size:,} B" for name, size in floor.held[:count])
    more = f"; and {len(floor.held) - count} more" if len(floor.held) > count else ""
    hint = "" if reordered else " (--rewrite reorder searches for a lower one)"
    gap = (f"the order planned is {lower_bound - floor.bytes:,} B above it{hint}"
           if lower_bound > floor.bytes else "the order planned reaches it")
    lowered = (f"{' or '.join(op.lowered_by)} could lower it" if op.lowered_by else
               "no rewrite memplan has lowers it")
    return (f"{floor.arena}: no operator order needs less than {floor.bytes:,} B (the floor), "
            f"set by {op.name}, which holds {shown}{more} live at once; {gap}; {lowered}")
