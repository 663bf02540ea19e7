"""Decide whether a problem packs under a given peak: the exact search, driven.

Splits the problem into independent partitions (sections.py) and runs the
compiled search (dfs.py) on each. Like minimalloc, it races several static
preorders round-robin under a node limit that doubles every round, so an
order that happens to suit the instance finishes early while an unlucky one
cannot stall the others. Node limits, not the clock, decide which order wins,
so results are deterministic; the clock only stops the search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import dfs
from .problem import Problem
from .sections import Sweep, sweep

# minimalloc's default preorders: (W)idth = lifetime, (A)rea = size x lifetime,
# (T)otal = bytes of the fullest section the buffer lives in.
DEFAULT_ORDERS = ("WAT", "TAW", "TWA")


@dataclass(frozen=True)
class Decision:
    status: str  # "feasible" | "infeasible" | "timeout" | "unknown" (node budget spent)
    offsets: tuple[int, ...] | None
    nodes: int


class Decider:
    """Precomputed arrays for one problem; `decide` may then run for many peaks."""

    def __init__(self, problem: Problem, orders: tuple[str, ...] = DEFAULT_ORDERS):
        self.problem = problem
        self.sweep: Sweep = sweep(problem)
        bufs = problem.buffers
        self.sizes = np.array([b.size for b in bufs], dtype=np.int64)
        self.aligns = np.array([b.alignment for b in bufs], dtype=np.int64)
        self.fixed = np.array([-1 if b.offset is None else b.offset for b in bufs], np.int64)
        self.widths = np.array([b.end - b.start for b in bufs], dtype=np.int64)
        self.areas = self.sizes * self.widths
        self.orders = [np.array([dfs.KEY_CODES[c] for c in o], np.int64) for o in orders]
        self.partitions = [
            (lo, hi, self._buffers_in(lo, hi)) for lo, hi in self.sweep.partitions()
        ]

    def _buffers_in(self, lo: int, hi: int) -> np.ndarray:
        s = self.sweep
        return np.flatnonzero((s.section_lo < hi) & (s.section_hi > lo)).astype(np.int64)

    def decide(
        self, peak: int, deadline: float = math.inf, node_budget: int | None = None
    ) -> Decision:
        """Find offsets with every buffer below `peak`, or prove there are none.

        Gives up with "unknown" once a round's node limit passes `node_budget`.
        """
        n = len(self.problem.buffers)
        nodes = 0
        limit = max(n, 1)
        while True:
            limit *= 2
            if node_budget is not None and limit > node_budget:
                return Decision("unknown", None, nodes)
            for keys in self.orders:
                status, offsets, used = self._attempt(peak, keys, limit, deadline)
                nodes += used
                if status == dfs.OK:
                    return Decision("feasible", offsets, nodes)
                if status == dfs.NOT_FOUND:
                    return Decision("infeasible", None, nodes)
                if status == dfs.TIME_LIMIT:
                    return Decision("timeout", None, nodes)

    def _attempt(
        self, peak: int, keys: np.ndarray, limit: int, deadline: float
    ) -> tuple[int, tuple[int, ...] | None, int]:
        s = self.sweep
        n = len(self.sizes)
        off = np.full(n, -1, dtype=np.int64)
        min_off = np.where(self.fixed >= 0, self.fixed, 0).astype(np.int64)
        floor = np.zeros(s.n_sections, dtype=np.int64)
        total = s.section_bytes.copy()
        cuts = s.cuts.copy()
        best = np.full(n, -1, dtype=np.int64)
        counters = np.array([0, limit], dtype=np.int64)
        for lo, hi, bufs in self.partitions:
            status = dfs.search_partition(
                self.sizes, self.aligns, self.fixed, self.widths, self.areas,
                s.overlap_ptr, s.overlaps, s.section_lo, s.section_hi, s.member_ptr, s.members,
                peak, lo, hi, bufs, keys,
                off, min_off, floor, total, cuts, best, counters, deadline,
            )
            if status != dfs.OK:
                return status, None, int(counters[0])
        return dfs.OK, tuple(best.tolist()), int(counters[0])
