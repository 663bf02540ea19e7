"""An operator order with fewer bytes live at once: a search over the topological orders
of a dataflow graph, every dependency kept.

A buffer is live from the step of its producer (a graph input, or a buffer nobody writes,
from the first step) to the step of its last reader, inclusive; a graph output to the last
step; an operator's scratch while it runs. The peak of an order is the most bytes live at
one step: the bound a packer works against (`pack.lower_bound`, before alignment).

The search runs the operators one at a time from the set of those already run, keeping
per number of operators run the `beam` states with the lowest peak so far (then the
fewest bytes live), and on a wide graph expanding only the best of them within a budget
of steps tried: exact while the graph is narrow enough that every state fits (a chain has
one per step), a beam search beyond. The order given is returned unless the one found has
a lower peak, so the result is never worse than the order given.
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
    walk = _Walk(graph)
    state = walk.start()
    peak = state.live
    for i in order:
        state, at = walk.run(state, i)
        peak = max(peak, at)
    return peak


# States kept per step: all of them on any graph this narrow. Steps tried in all: wide
# graphs (many operators ready at once) expand the best states first and stop there, so
# that the search stays within seconds (a step tried costs some microseconds).
BEAM = 256
EXPANSIONS = 20_000
# Longer graphs are not searched: a state copies its set of operators run, so a step
# tried costs time in proportion to the graph's length.
MAX_STEPS = 2_000


def search_order(graph: Graph, beam: int | None = None) -> tuple[tuple[int, ...], int]:
    """An order of the steps with the lowest peak found, and that peak; ties keep the
    order given."""
    n = len(graph.steps)
    beam = BEAM if beam is None else beam
    if n > MAX_STEPS:
        raise ValueError(f"{n} steps; the search takes at most {MAX_STEPS}")
    per_step = max(8, EXPANSIONS // max(n, 1))
    given = tuple(range(n))
    given_peak = order_peak(graph, given)
    walk = _Walk(graph)
    start = walk.start()
    level = {start.done: (start.live, start, ())}
    for _ in range(n):
        nxt: dict[frozenset[int], tuple[int, _State, tuple[int, ...]]] = {}
        tried = 0
        for peak, state, order in level.values():  # best first
            if tried >= per_step:
                break
            for i in sorted(state.ready)[:per_step - tried]:
                tried += 1
                after, at = walk.run(state, i)
                value = (max(peak, at), after, (*order, i))
                old = nxt.get(after.done)
                if old is None or (value[0], after.live) < (old[0], old[1].live):
                    nxt[after.done] = value
        level = dict(sorted(nxt.items(), key=lambda kv: (kv[1][0], kv[1][1].live))[:beam])
    (peak, _, order), = level.values()
    return (order, peak) if peak < given_peak else (given, given_peak)


@dataclass(frozen=True)
class _State:
    done: frozenset[int]  # steps run
    ready: frozenset[int]  # steps not run whose producers all ran
    live: int  # bytes live between steps
    held: frozenset[int]  # buffers live between steps


class _Walk:
    """The graph's dependencies, computed once for every state of a search."""

    def __init__(self, graph: Graph):
        self.graph = graph
        made = graph.producers()
        readers: list[set[int]] = [set() for _ in graph.sizes]
        for i, s in enumerate(graph.steps):
            for b in s.reads:
                readers[b].add(i)
        self.readers = [frozenset(r) for r in readers]
        self.preds = [frozenset(made[b] for b in s.reads if made[b] is not None and made[b] != i)
                      for i, s in enumerate(graph.steps)]
        succ: list[set[int]] = [set() for _ in graph.steps]
        for i, p in enumerate(self.preds):
            for j in p:
                succ[j].add(i)
        self.succ = [tuple(sorted(s)) for s in succ]
        self.held0 = frozenset(b for b in range(len(graph.sizes))
                               if made[b] is None and (readers[b] or b in graph.outputs))

    def start(self) -> _State:
        ready = frozenset(i for i, p in enumerate(self.preds) if not p)
        return _State(frozenset(), ready, sum(self.graph.sizes[b] for b in self.held0),
                      self.held0)

    def run(self, state: _State, i: int) -> tuple[_State, int]:
        """The state after step `i`, and the bytes live while it runs."""
        graph, step = self.graph, self.graph.steps[i]
        sizes = graph.sizes
        new = [b for b in dict.fromkeys(step.writes) if b not in state.held]
        during = state.live + sum(sizes[b] for b in new) + step.scratch
        done = state.done | {i}
        freed = {b for b in (*step.reads, *new) if b not in graph.outputs
                 and self.readers[b] <= done}
        held = (state.held | set(new)) - freed
        live = during - step.scratch - sum(sizes[b] for b in freed)
        ready = (state.ready - {i}) | {j for j in self.succ[i] if self.preds[j] <= done}
        return _State(done, ready, live, held), during
