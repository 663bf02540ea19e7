"""Layers: a problem whose buffers fall into programs that each pack well
alone, packed one program (or a chain of them) above the other.

Programs that share one arena (two models, or a model's functions, planned
together) are often listed one after the other. Each program alone splits
into time partitions that the exact search solves part by part in a second,
but overlaid on one time axis nothing splits, and the search over the whole
stalls far above the bound (overlay-2502 in benchmarks/pack_scale.py: no plan
below 1.2 of the bound). Packing the first run at its own optimum and the
second above it costs at most the sum of their bounds, which, when the two
runs' busiest moments coincide, is close to the bound of the whole (1.002 there).

Three ways to find the layers, first by name, then by order:
- `by_name`: buffers named like `A17`, `A18`, `x.3.17` belong to the program
  their name has without its trailing digits (`A`, `x.3.`); programs whose
  lifetimes never meet are chained into one layer (interval partitioning, so
  as few layers as the most programs live at one time). A-K side by side
  (benchmarks, eleven programs sharing one time axis) is eleven layers.
- `by_runs`: the programs are runs of the input order of at most MAX_LAYER_PART
  buffers, cut where a cut adds little to the sum of the runs' bounds
  (runs.py), chained like programs by name. A-K side by side with numeric ids
  is eleven runs, one a program.
- `split_point`: two runs of the input order, each of any length. Among evenly spaced prefixes,
  those whose prefix and suffix both split into parts the exact search handles
  easily, the one with the lowest sum of bounds.
Either way every layer must split into parts of at most MAX_LAYER_PART
buffers and the sum of the layers' bounds must be below the plan held; the
caller keeps the stacked plan only if it is lower than the one it holds.
Past the `deadline` (time.perf_counter, the outer `--time-limit`) the scans
stop and find no layers: the caller keeps the plan it holds.
"""

from __future__ import annotations

import heapq
import math
import time

from ..bound import lower_bound
from ..greedy.parts import split
from ..problem import Buffer, Problem
from .runs import MAX_RUN, program_runs, spans

LAYER_FROM = 1000  # buffers: below this the exact search on the whole is cheap enough
MAX_LAYER_PART = MAX_RUN  # buffers: the largest part a layer may keep
CANDIDATES = 64  # prefixes tried
MAX_LAYERS = 64  # more layers than this stack too many bounds to be worth it


def find_layers(problem: Problem, below: int | None = None, by_order: bool = True,
                deadline: float = math.inf) -> list[list[int]] | None:
    """The layers, bottom first, each as indices of the problem's buffers in
    input order: by name, else by runs of the input order, else (`by_order`)
    two runs of it; None when none gives layers whose bounds sum below `below`,
    or the deadline passes."""
    layers = by_name(problem, below, deadline)
    if layers is None:
        layers = by_runs(problem, below, deadline)
    if layers is not None or not by_order:
        return layers
    found = split_point(problem, below, deadline)
    if found is None:
        return None
    n = len(problem.buffers)
    return [list(range(found[0])), list(range(found[0], n))]


def by_name(problem: Problem, below: int | None = None,
            deadline: float = math.inf) -> list[list[int]] | None:
    """Layers from the programs the buffers' names give (module docstring)."""
    buffers = problem.buffers
    if len(buffers) < LAYER_FROM or any(b.offset is not None for b in buffers):
        return None
    programs: dict[str, list[int]] = {}
    for i, b in enumerate(buffers):
        programs.setdefault(b.id.rstrip("0123456789"), []).append(i)
    if not 2 <= len(programs) <= len(buffers) // 2:
        return None
    return _chained(problem, list(programs.values()), below, deadline)


def by_runs(problem: Problem, below: int | None = None,
            deadline: float = math.inf) -> list[list[int]] | None:
    """Layers from the runs of the input order that runs.py finds programs in."""
    buffers = problem.buffers
    if len(buffers) < LAYER_FROM or any(b.offset is not None for b in buffers):
        return None
    cuts = program_runs(problem, below, deadline)
    if cuts is None:
        return None
    return _chained(problem, [list(range(lo, hi)) for lo, hi in spans(cuts)], below, deadline)


def _chained(problem: Problem, members: list[list[int]], below: int | None,
             deadline: float) -> list[list[int]] | None:
    """Programs (`members`, indices of buffers) chained into layers where their
    lifetimes never meet; None unless every layer splits into parts of at most
    MAX_LAYER_PART buffers and the layers' bounds sum below `below`."""
    buffers = problem.buffers
    spans = sorted((min(buffers[i].start for i in program), max(buffers[i].end for i in program),
                    k) for k, program in enumerate(members))
    layers: list[list[int]] = []
    free: list[tuple[int, int]] = []  # (end of the layer's last program, layer)
    for start, end, k in spans:
        if free and free[0][0] <= start:
            _, layer = heapq.heappop(free)
        else:
            layer = len(layers)
            layers.append([])
            if layer == MAX_LAYERS:
                return None
        layers[layer].extend(members[k])
        heapq.heappush(free, (end, layer))
    if len(layers) < 2:  # no two programs meet: the time partitions already split them
        return None
    layers = [sorted(layer) for layer in layers]
    cost = 0
    for layer in layers:
        if time.perf_counter() > deadline:
            return None
        run = Problem([buffers[i] for i in layer])
        if max(len(p.indices) for p in split(run)) > MAX_LAYER_PART:
            return None
        cost += lower_bound(run)
    if below is not None and cost >= below:
        return None
    return layers


def split_point(problem: Problem, below: int | None = None,
                deadline: float = math.inf) -> tuple[int, int] | None:
    """(prefix length, sum of the two layers' bounds) for the prefix whose two
    layers split finely with the lowest sum, or None when no prefix does (or a
    buffer is pinned: stacking moves the upper layer), or none does with a sum
    below `below` (the plan held: stacking could not beat it)."""
    buffers = problem.buffers
    n = len(buffers)
    if n < LAYER_FROM or any(b.offset is not None for b in buffers):
        return None
    step = max(1, n // CANDIDATES)
    best = _best(buffers, range(step, n - step + 1, step), deadline)
    # The exact cut lowers the sum only where the runs meet (a few buffers'
    # bounds): a grid point far above the plan held is not worth refining.
    if best is None or (below is not None and best[1] >= below + (below >> 4)):
        return None
    # The runs rarely meet on the grid: look one by one around the best prefix.
    k = best[0]
    found = _best(buffers, range(max(1, k - step + 1), min(n, k + step)), deadline) or best
    return None if time.perf_counter() > deadline else found


def _best(buffers: tuple[Buffer, ...], prefixes: range,
          deadline: float) -> tuple[int, int] | None:
    """None once the deadline passes: a prefix found before it may be far from the best."""
    best: tuple[int, int] | None = None
    for k in prefixes:
        if time.perf_counter() > deadline:
            return None
        lower, upper = Problem(buffers[:k]), Problem(buffers[k:])
        if max(len(p.indices) for p in (*split(lower), *split(upper))) > MAX_LAYER_PART:
            continue
        cost = lower_bound(lower) + lower_bound(upper)
        if best is None or cost < best[1]:
            best = (k, cost)
    return best


def stack_base(lower_peak: int, upper: Problem) -> int:
    """Where the upper layer starts: above the lower one, at an offset every
    alignment of the upper layer divides."""
    step = math.lcm(*(b.alignment for b in upper.buffers))
    return -(-lower_peak // step) * step
