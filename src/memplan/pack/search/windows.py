"""A lower bound from time windows: prove a peak impossible on part of the schedule.

Any plan of the whole problem, restricted to the buffers live in sections
`[lo, hi)` and with each lifetime clipped to those sections, is a plan of
that *window*: the window's optimal peak is a lower bound on the whole's.
Clipping keeps what makes the bound stronger than the live bytes: a buffer
live in several of the window's sections keeps one offset across all of
them, so the window may need more room than its busiest section holds. It
drops everything outside the window, so the exact search (decide.py) on a
window explores a tree far smaller than the whole's, where the infeasibility
is local: in the whole, the same local failure is re-proved under every
placement of buffers elsewhere in time.

Windows grow from the busiest sections (the live-bytes bound sits there, and
a window with less load needs a larger gap to matter). Each window is asked
the lowest peak not yet ruled out under a node budget: "feasible" (a plan
exists) grows it, "infeasible" raises the bound by one grain and asks again,
"unknown" gets a few short probes under perturbed preorders, and failing
those stops that window until a larger budget. Growing a window never
lowers its optimum (the smaller window is a relaxation of the larger), so a
window that packs says nothing about a smaller one, and a larger one is worth
asking. Like the search, every choice is made by node counts, never by the
clock, which only stops the work.

google/minimalloc finds an *irreducible infeasible subset* by dropping buffers
from an infeasible problem one by one; a window proven infeasible is the same
kind of certificate built from the other end, by adding sections until the
problem stops packing.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..arrays import problem_arrays
from ..problem import Buffer, Problem
from .decide import Decider
from .status import VerdictStatus

# Windows grown from this many of the busiest sections (one per plateau of equal
# live bytes, busiest first).
SEEDS = 4
# Probes per window left unknown by the search, each under the same node budget
# as the search's question.
PROBES = 4


@dataclass(frozen=True)
class Window:
    """Sections `[lo, hi)` of a problem, the buffers live there clipped to them."""

    lo: int
    hi: int
    problem: Problem  # the clipped buffers; lifetimes in section numbers


@dataclass(frozen=True)
class WindowProof:
    """A peak proven impossible: `window` does not pack at `bound - grain`."""

    bound: int
    window: tuple[int, int]  # sections [lo, hi)
    buffers: int  # how many buffers the window holds


def clip(problem: Problem, lo: int, hi: int) -> Window:
    """The buffers live in sections `[lo, hi)`, each clipped to them.

    Lifetimes become section numbers: two clipped buffers meet in time exactly
    when they share one of the window's sections, and two buffers that share a
    section meet in the whole problem (sections.py)."""
    arrays = problem_arrays(problem)
    first = np.maximum(arrays.section_lo, lo)
    last = np.minimum(arrays.section_hi, hi)
    kept = np.flatnonzero(first < last)
    buffers = []
    for i in kept.tolist():
        b = problem.buffers[i]
        buffers.append(Buffer(b.id, int(first[i]), int(last[i]), b.size, b.alignment, b.offset))
    return Window(lo, hi, Problem(buffers))


def section_bytes(problem: Problem) -> np.ndarray:
    """Bytes live in each section."""
    arrays = problem_arrays(problem)
    spans = np.zeros(arrays.n_sections + 1, dtype=np.int64)
    np.add.at(spans, arrays.section_lo, arrays.sizes)
    np.add.at(spans, arrays.section_hi, -arrays.sizes)
    return np.cumsum(spans)[:-1]


def seeds(load: np.ndarray, count: int = SEEDS) -> list[int]:
    """The busiest sections, one per plateau of equal load, busiest first (ties:
    earliest first)."""
    starts = [s for s in range(len(load)) if s == 0 or load[s] != load[s - 1]]
    return sorted(starts, key=lambda s: (-int(load[s]), s))[:count]


@dataclass
class WindowBound:
    """The windows of one problem, kept between calls: a question left unknown
    resumes where it paused when asked again under a larger budget."""

    problem: Problem
    grain: int  # every peak of the whole is a multiple of it
    workers: int = 1
    nodes: int = 0  # spent by every question asked so far
    proof: WindowProof | None = None  # the last window that raised the bound
    _load: np.ndarray = field(init=False, repr=False)
    _growing: dict[int, tuple[int, int]] = field(init=False, repr=False)
    _deciders: dict[tuple[int, int], Decider] = field(init=False, repr=False)
    _packs_at: dict[tuple[int, int], int] = field(init=False, repr=False)
    _packed: dict[int, tuple[int, int]] = field(init=False, repr=False)
    _probed: dict[tuple[int, int], int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._load = section_bytes(self.problem)
        # Per seed, the window grown from it so far.
        self._growing = {s: (s, s + 1) for s in seeds(self._load)}
        self._deciders = {}
        self._packs_at = {}  # window -> a peak it is known to pack at
        self._packed = {}  # seed -> the largest window grown from it that packed
        self._probed = {}  # window -> probes run so far (the next probe's seed)

    def raise_bound(self, bound: int, node_budget: int, deadline: float = math.inf,
                    node_cap: int | None = None) -> int:
        """The lowest peak not ruled out, at least `bound` (a multiple of the grain):
        each window asks it under `node_budget` nodes, grows while it packs, and
        raises it while it does not. With `node_cap`, no question is started once
        this call has spent that many nodes, nor once the deadline has passed (a
        window's set-up, clipping and a new Decider, is work the search's own
        deadline checks do not see)."""
        n_sections = len(self._load)
        asked: set[tuple[int, int]] = set()
        stop = math.inf if node_cap is None else self.nodes + node_cap
        for seed in list(self._growing):
            lo, hi = self._growing[seed]
            while hi - lo < n_sections:  # the whole is the exact search's own question
                if self.nodes >= stop or time.perf_counter() > deadline:
                    return bound
                if (lo, hi) in asked:  # grown into another seed's window: one is enough
                    del self._growing[seed]
                    break
                asked.add((lo, hi))
                answer = self._ask(lo, hi, bound, node_budget, deadline)
                if answer == VerdictStatus.INFEASIBLE:
                    bound += self.grain
                    self.proof = WindowProof(bound, (lo, hi), len(self._decider(lo, hi).problem))
                    asked.discard((lo, hi))  # asked again at the new bound
                    continue
                if answer == VerdictStatus.TIMEOUT:
                    return bound
                if answer == VerdictStatus.UNKNOWN:
                    break  # this window waits for a larger budget
                self._packed[seed] = (lo, hi)
                lo, hi = self._grow(lo, hi)
                self._growing[seed] = (lo, hi)
        return bound

    def frontier(self) -> list[tuple[int, tuple[int, int] | None, tuple[int, int]]]:
        """Per seed section: the largest window grown from it known to pack at the
        bound asked (None: not even the seed's own section, yet), and the window it
        waits on (asked, still open)."""
        return [(seed, self._packed.get(seed), window) for seed, window in self._growing.items()]

    def _ask(self, lo: int, hi: int, peak: int, node_budget: int,
             deadline: float) -> VerdictStatus:
        if self._packs_at.get((lo, hi), math.inf) <= peak:
            return VerdictStatus.FEASIBLE  # packs lower, so packs at `peak` too
        verdict = self._decider(lo, hi).decide(peak, deadline, node_budget)
        self.nodes += verdict.nodes
        if verdict.status == VerdictStatus.UNKNOWN:
            # The search at one peak is heavy-tailed: short searches under
            # perturbed preorders (Decider.probe), new ones each round, often
            # find a plan where the default orders wander (J's sections 90-128:
            # unknown at 966 after 4M nodes a question, the first probe packs
            # it in 202 nodes). A probe that exhausts its tree is a proof too.
            first = self._probed.get((lo, hi), 0)
            self._probed[(lo, hi)] = first + PROBES
            verdict = self._decider(lo, hi).probe(peak, range(first, first + PROBES),
                                                  node_budget, deadline)
            self.nodes += verdict.nodes
        if verdict.status == VerdictStatus.FEASIBLE:
            self._packs_at[(lo, hi)] = peak
            self._deciders.pop((lo, hi))  # nothing more to ask this window
        return verdict.status

    def _decider(self, lo: int, hi: int) -> Decider:
        if (lo, hi) not in self._deciders:
            self._deciders[(lo, hi)] = Decider(clip(self.problem, lo, hi).problem,
                                               workers=self.workers)
        return self._deciders[(lo, hi)]

    def _grow(self, lo: int, hi: int) -> tuple[int, int]:
        """One section more, on the side whose next section holds more bytes (it
        is likelier to need room the window's sections cannot give)."""
        left = int(self._load[lo - 1]) if lo > 0 else -1
        right = int(self._load[hi]) if hi < len(self._load) else -1
        return (lo - 1, hi) if left > right else (lo, hi + 1)
