"""Two layers: a problem whose buffers, in input order, fall into two runs that
each split in time, packed one run above the other.

Programs that share one arena (two models, or a model's functions, planned
together) are often listed one after the other. Each program alone splits
into time partitions that the exact search solves part by part in a second,
but overlaid on one time axis nothing splits, and the search over the whole
stalls far above the bound (overlay-2502 in benchmarks/pack_scale.py: no plan
below 1.2 of the bound). Packing the first run at its own optimum and the
second above it costs at most the sum of their bounds, which, when the two
runs' busiest moments coincide, is close to the bound of the whole (1.002 there).

`split_point` finds the cut: among evenly spaced prefixes, those whose prefix
and suffix both split into parts the exact search handles easily, the one with
the lowest sum of bounds. The caller keeps the stacked plan only if it is
lower than the one it holds.
"""

from __future__ import annotations

import math

from .bound import lower_bound
from .parts import split
from .problem import Buffer, Problem

LAYER_FROM = 1000  # buffers: below this the exact search on the whole is cheap enough
MAX_LAYER_PART = 600  # buffers: the largest part a layer may keep
CANDIDATES = 64  # prefixes tried


def split_point(problem: Problem, below: int | None = None) -> tuple[int, int] | None:
    """(prefix length, sum of the two layers' bounds) for the prefix whose two
    layers split finely with the lowest sum, or None when no prefix does (or a
    buffer is pinned: stacking moves the upper layer), or none does with a sum
    below `below` (the plan held: stacking could not beat it)."""
    buffers = problem.buffers
    n = len(buffers)
    if n < LAYER_FROM or any(b.offset is not None for b in buffers):
        return None
    step = max(1, n // CANDIDATES)
    best = _best(buffers, range(step, n - step + 1, step))
    # The exact cut lowers the sum only where the runs meet (a few buffers'
    # bounds): a grid point far above the plan held is not worth refining.
    if best is None or (below is not None and best[1] >= below + (below >> 4)):
        return None
    # The runs rarely meet on the grid: look one by one around the best prefix.
    k = best[0]
    return _best(buffers, range(max(1, k - step + 1), min(n, k + step))) or best


def _best(buffers: tuple[Buffer, ...], prefixes: range) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    for k in prefixes:
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
