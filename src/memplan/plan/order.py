"""An operator order with fewer bytes live at once: a search over the topological orders
of a dataflow graph, every dependency kept.

A buffer is live from the step of its producer (a graph input, or a buffer nobody writes,
from the first step) to the step of its last reader, inclusive; a graph output to the last
step; an operator's scratch while it runs. The peak of an order is the most bytes live at
one step: the bound a packer works against (`pack.lower_bound`, before alignment).

The search runs the operators one at a time from the set of those already run, keeping
per number of operators run the `beam` states with the lowest peak so far (then the
fewest bytes live): exact while the graph is narrow enough that every state fits (a chain
has one per step), a beam search beyond. The given order is one of the orders it can
return, so its result is never worse than the order given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One operator: the buffers (indices into `sizes`) it reads and writes, and the
    bytes of scratch it holds while it runs."""

    reads: tuple[int, ...]
    writes: tuple[int, ...]
    scratch: int = 0


@dataclass(frozen=True)
class Graph:
    steps: tuple[Step, ...]
    sizes: tuple[int, ...]  # bytes per buffer
    outputs: frozenset[int] = frozenset()  # live to the last step once written

    def producers(self) -> list[int | None]:
        made: list[int | None] = [None] * len(self.sizes)
        for i, s in enumerate(self.steps):
            for b in s.writes:
                made[b] = i
        return made


def order_peak(graph: Graph, order: Sequence[int]) -> int:
    """The most bytes live at one step when the operators run in `order`."""
    state = _start(graph)
    peak = state.live
    for i in order:
        state, at = _run(graph, state, i)
        peak = max(peak, at)
    return peak


def search_order(graph: Graph, beam: int = 256) -> tuple[tuple[int, ...], int]:
    """An order of the steps with the lowest peak found, and that peak; ties keep the
    order given (it is tried first)."""
    n = len(graph.steps)
    given = tuple(range(n))
    given_peak = order_peak(graph, given)
    preds = _predecessors(graph)
    level = {frozenset(): (_start(graph).live, _start(graph), ())}
    for _ in range(n):
        nxt: dict[frozenset[int], tuple[int, _State, tuple[int, ...]]] = {}
        for done, (peak, state, order) in level.items():
            for i in range(n):
                if i in done or not preds[i] <= done:
                    continue
                after, at = _run(graph, state, i)
                key = done | {i}
                value = (max(peak, at), after, order + (i,))
                old = nxt.get(key)
                if old is None or (value[0], value[1].live) < (old[0], old[1].live):
                    nxt[key] = value
        kept = sorted(nxt.items(), key=lambda kv: (kv[1][0], kv[1][1].live))[:beam]
        level = dict(kept)
    (peak, _, order), = level.values()
    return (order, peak) if peak < given_peak else (given, given_peak)


@dataclass(frozen=True)
class _State:
    live: int  # bytes live between steps
    held: frozenset[int]  # buffers live between steps
    readers_left: tuple[int, ...]  # per buffer, readers not yet run


def _readers(graph: Graph) -> list[int]:
    count = [0] * len(graph.sizes)
    for s in graph.steps:
        for b in set(s.reads):
            count[b] += 1
    return count


def _start(graph: Graph) -> _State:
    made = graph.producers()
    count = _readers(graph)
    held = frozenset(b for b in range(len(graph.sizes))
                     if made[b] is None and (count[b] or b in graph.outputs))
    return _State(sum(graph.sizes[b] for b in held), held, tuple(count))


def _run(graph: Graph, state: _State, i: int) -> tuple[_State, int]:
    """The state after step `i`, and the bytes live while it runs."""
    step = graph.steps[i]
    new = [b for b in dict.fromkeys(step.writes) if b not in state.held]
    during = state.live + sum(graph.sizes[b] for b in new) + step.scratch
    left = list(state.readers_left)
    for b in set(step.reads):
        left[b] -= 1
    held = set(state.held) | set(new)
    freed = [b for b in held if left[b] == 0 and b not in graph.outputs
             and (b in step.reads or b in new)]
    held.difference_update(freed)
    live = during - step.scratch - sum(graph.sizes[b] for b in freed)
    return _State(live, frozenset(held), tuple(left)), during


def _predecessors(graph: Graph) -> list[frozenset[int]]:
    made = graph.producers()
    return [frozenset(made[b] for b in s.reads if made[b] is not None and made[b] != i)
            for i, s in enumerate(graph.steps)]
