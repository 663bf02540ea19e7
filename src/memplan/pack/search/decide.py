"""Decide whether a problem packs under a given peak: the exact search, driven.

Splits the problem into independent partitions (sections.py) and runs the
compiled search (dfs.py) on each. Like minimalloc, it races several static
preorders round-robin under a node limit that doubles every round, so an
order that happens to suit the instance finishes early while an unlucky one
cannot stall the others; unlike minimalloc, each order's search pauses at its
limit and resumes in the next round instead of starting over. Node limits,
not the clock, decide which order answers, so results are deterministic; the
clock only stops the search.

A round runs its orders as one thread would, one after the other until one
answers, whatever the number of threads (races.py): the answer and the node
count are those of the serial run, so the budgets built on node counts
(exact.py) see the same numbers on one core as on many.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..problem import Problem
from . import search_state
from .races import run_in_order
from .sections import Sweep, sweep
from .status import SearchStatus, VerdictStatus

# minimalloc's default preorders: (W)idth = lifetime, (A)rea = size x lifetime,
# (T)otal = bytes of the fullest section the buffer lives in.
DEFAULT_ORDERS = ("WAT", "TAW", "TWA")
# Questions kept paused per problem: each holds its searches' state (n x sections).
MAX_PAUSED = 8
PERTURBATION = 0.3  # a probe scales each width and area key by up to +-30%
# Rounds with a node limit up to this run on the calling thread (a search
# node takes about a microsecond, waking a thread tens of them).
SERIAL_LIMIT = 1 << 12


@dataclass(frozen=True)
class Verdict:
    """The answer to one question "does it pack under this peak?"."""

    status: VerdictStatus
    offsets: tuple[int, ...] | None  # a plan under the peak, when feasible
    nodes: int


@dataclass
class NodeLimit:
    """A stop in work: every question asked while it is set counts its nodes here, and
    none starts a round once `spent` reaches `limit` (the round under way ends first).
    Node counts do not depend on the machine's load or the threads (races.py), so a
    node limit gives the same plan wherever it runs, where a deadline does not."""

    limit: int
    spent: int = 0
    outer: NodeLimit | None = None  # the limit of an enclosing block counts these too

    @property
    def reached(self) -> bool:
        return self.spent >= self.limit or (self.outer is not None and self.outer.reached)

    def count(self, nodes: int) -> None:
        self.spent += nodes
        if self.outer is not None:
            self.outer.count(nodes)


# Set by `node_limit` around one solve; every Decider of it (the whole's, its parts',
# layers', windows') reads the same one.
_node_limit: ContextVar[NodeLimit | None] = ContextVar("node_limit", default=None)


@contextlib.contextmanager
def node_limit(limit: int | None) -> Iterator[NodeLimit | None]:
    """Questions asked inside the block stop, as at a deadline, once `limit` search nodes
    have been spent, or an enclosing block's limit is reached (None: only that one)."""
    outer = _node_limit.get()
    meter = outer if limit is None else NodeLimit(limit, outer=outer)
    token = _node_limit.set(meter)
    try:
        yield meter
    finally:
        _node_limit.reset(token)


def _out_of_nodes() -> bool:
    meter = _node_limit.get()
    return meter is not None and meter.reached


def _count_nodes(nodes: int) -> None:
    meter = _node_limit.get()
    if meter is not None:
        meter.count(nodes)


class Decider:
    """Precomputed arrays for one problem; `decide` may then run for many peaks."""

    def __init__(
        self, problem: Problem, orders: tuple[str, ...] = DEFAULT_ORDERS, workers: int = 1
    ):
        self.problem = problem
        self.workers = workers
        self.sweep: Sweep = sweep(problem)
        bufs = problem.buffers
        self.sizes = np.array([b.size for b in bufs], dtype=np.int64)
        self.aligns = np.array([b.alignment for b in bufs], dtype=np.int64)
        self.fixed = np.array([-1 if b.offset is None else b.offset for b in bufs], np.int64)
        self.widths = np.array([b.end - b.start for b in bufs], dtype=np.int64)
        self.areas = _areas(self.sizes, self.widths)
        self.twin_before = _twins(problem)
        self.orders = [np.array([search_state.KEY_CODES[c] for c in o], np.int64) for o in orders]
        self.partitions = [
            (lo, hi, self.sweep.buffers_in(lo, hi)) for lo, hi in self.sweep.partitions()
        ]
        # Questions left "unknown": peak -> (their searches, the last limit run).
        self._paused: dict[int, tuple[list[_Search], int]] = {}

    def decide(
        self, peak: int, deadline: float = math.inf, node_budget: int | None = None
    ) -> Verdict:
        """Find offsets with every buffer below `peak`, or prove there are none.

        Each preorder runs its own search; round r lets each continue from
        where it paused until it has spent 2^r * n nodes. The first to finish
        answers (a proof of infeasibility from any order is a proof). Gives up
        with "unknown" once a round's limit passes `node_budget`; asked the same
        peak again, the searches resume where they paused, so a question asked
        under growing budgets costs what one asked once under the last would.
        """
        searches, limit = self._paused.pop(peak, None) or (
            [_Search(self, keys, peak) for keys in self.orders], max(len(self.problem.buffers), 1))
        spent = self._nodes(searches)  # by the earlier asks of a resumed question
        while True:
            limit *= 2
            nodes = self._nodes(searches) - spent
            # Small searches never reach the clock check: read it here too.
            if time.perf_counter() > deadline or _out_of_nodes():
                return Verdict(VerdictStatus.TIMEOUT, None, nodes)
            if node_budget is not None and limit > node_budget:
                self._paused[peak] = (searches, limit // 2)
                if len(self._paused) > MAX_PAUSED:  # the oldest question goes
                    del self._paused[next(iter(self._paused))]
                return Verdict(VerdictStatus.UNKNOWN, None, nodes)
            # The statuses end at the answer: the searches after it did not run.
            statuses = self._run_all(searches, limit, deadline)
            for search, status in zip(searches, statuses, strict=False):
                nodes = self._nodes(searches) - spent
                if status == SearchStatus.OK:
                    return Verdict(VerdictStatus.FEASIBLE, search.offsets(), nodes)
                if status == SearchStatus.NOT_FOUND:
                    return Verdict(VerdictStatus.INFEASIBLE, None, nodes)
                if status == SearchStatus.TIME_LIMIT:
                    return Verdict(VerdictStatus.TIMEOUT, None, nodes)

    def probe(
        self, peak: int, seeds: range, node_budget: int, deadline: float = math.inf
    ) -> Verdict:
        """Short searches under randomly perturbed preorders: the first (in seed
        order) that settles answers, or "unknown" when none does.

        The canonical search is heavy-tailed: one preorder may wander for
        millions of nodes where a slightly different one finds a plan in
        thousands. Many short searches, each its own preorder, reach low peaks
        that one long search does not (docs/solver.md). Each probe is complete
        had it been let run, so one that exhausts its tree is a proof too.
        """
        nodes = 0
        width = max(self.workers, 1)
        for first in range(0, len(seeds), width):
            if _out_of_nodes():
                return Verdict(VerdictStatus.TIMEOUT, None, nodes)
            batch = [self._perturbed_search(peak, seed) for seed in seeds[first: first + width]]
            statuses = self._run_all(batch, node_budget, deadline)
            for search, status in zip(batch, statuses, strict=False):
                nodes += int(search.counters[0])
                if status == SearchStatus.OK:
                    return Verdict(VerdictStatus.FEASIBLE, search.offsets(), nodes)
                if status == SearchStatus.NOT_FOUND:
                    return Verdict(VerdictStatus.INFEASIBLE, None, nodes)
                if status == SearchStatus.TIME_LIMIT:
                    return Verdict(VerdictStatus.TIMEOUT, None, nodes)
        return Verdict(VerdictStatus.UNKNOWN, None, nodes)

    def _perturbed_search(self, peak: int, seed: int) -> _Search:
        """A search whose width and area keys are each scaled by a random factor
        in [1 - PERTURBATION, 1 + PERTURBATION]: neighbours in the preorder swap,
        its broad shape stays."""
        rng = np.random.default_rng(seed)
        n = len(self.sizes)
        widths = self.widths * (1 + PERTURBATION * rng.uniform(-1, 1, n))
        areas = self.areas * (1 + PERTURBATION * rng.uniform(-1, 1, n))
        keys = self.orders[0]  # width first: on D the others' probes found nothing
        return _Search(self, keys, peak, _ranks(widths), _ranks(areas))

    def _run_all(self, searches: list[_Search], limit: int, deadline: float) -> list[int]:
        """Advance the searches in order to `limit` until one answers: the statuses up
        to that one (all of them when none answers).

        A serial run stops at the answer; on threads the searches after it are
        stopped and their nodes not counted, so that neither the answer nor the
        node count depends on the threads. A short round runs on this thread: its
        searches take less than waking another thread would.
        """
        load_search()
        threads = self.workers if limit > SERIAL_LIMIT else 0
        before = self._nodes(searches)
        statuses = run_in_order(searches, limit, deadline, threads)
        _count_nodes(self._nodes(searches) - before)
        return statuses

    @staticmethod
    def _nodes(searches: list[_Search]) -> int:
        return sum(int(s.counters[0]) for s in searches)


class _Search:
    """One preorder's search over all partitions, resumable between rounds."""

    def __init__(
        self, decider: Decider, keys: np.ndarray, peak: int,
        widths: np.ndarray | None = None, areas: np.ndarray | None = None,
    ):
        self.decider = decider
        self.keys = keys
        self.peak = peak
        # The preorder's keys; a probe perturbs them (sizes and totals stay exact).
        self.widths = decider.widths if widths is None else widths
        self.areas = decider.areas if areas is None else areas
        s = decider.sweep
        n = len(decider.sizes)
        self.instance = search_state.Instance(
            sizes=decider.sizes, aligns=decider.aligns, fixed=decider.fixed,
            widths=self.widths, areas=self.areas, twin_before=decider.twin_before,
            ov_ptr=s.overlap_ptr, ov_idx=s.overlaps, sec_lo=s.section_lo, sec_hi=s.section_hi,
            mem_ptr=s.member_ptr, mem_idx=s.members)
        self.place = search_state.Placement(
            off=np.full(n, -1, dtype=np.int64),
            min_off=np.where(decider.fixed >= 0, decider.fixed, 0).astype(np.int64),
            floor=np.zeros(s.n_sections, dtype=np.int64),
            total=s.section_bytes.copy(),
            cuts=s.cuts.copy(),
            best=np.full(n, -1, dtype=np.int64),
            counters=np.array([0, 0], dtype=np.int64))
        self.counters = self.place.counters
        self.state = search_state.SearchState(n, s.n_sections, len(s.overlaps))
        self.partition = 0  # partitions before this one are solved

    def resume(self, deadline: float) -> int:
        """Search until the node limit (counters[1]), an answer or the deadline. The
        search reads the limit at every node: lowering it from another thread makes
        the search pause at its next node, where it could resume."""
        d, st = self.decider, self.state
        while self.partition < len(d.partitions):
            lo, hi, bufs = d.partitions[self.partition]
            # Ctrl-C on this thread is acted on once the search has handed back its
            # result (it could not be sooner: the thread runs no Python until then).
            with kernels.held_interrupts():
                status, st.pools = kernels.search_partition(
                    self.instance, self.peak, lo, hi, bufs, self.keys, self.place,
                    deadline - time.perf_counter(),
                    st.nodes, st.frames, st.pools, st.scratch, st.regs,
                )
            if status != SearchStatus.OK:
                return status
            self.partition += 1
        return SearchStatus.OK

    def offsets(self) -> tuple[int, ...]:
        return tuple(self.place.best.tolist())


def _areas(sizes: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """size x lifetime, or, where that could pass int64 (sizes and lifetimes up to
    2**62 each, limits.PACK_MAX_VALUE), integers in the same order with the same ties."""
    if int(sizes.max(initial=0)) * int(widths.max(initial=0)) < 2**62:
        return sizes * widths
    exact = [int(s) * int(w) for s, w in zip(sizes.tolist(), widths.tolist(), strict=True)]
    dense = {value: rank for rank, value in enumerate(sorted(set(exact)))}
    return np.array([dense[value] for value in exact], dtype=np.int64)


def _ranks(values: np.ndarray) -> np.ndarray:
    """Integer keys in the same order as `values` (ties by index), for the
    compiled preorder, which sorts integers."""
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values))
    return ranks


def _twins(problem: Problem) -> np.ndarray:
    """For each buffer, the previous identical buffer (lifetime, size, alignment,
    no pin), or -1: swapping two such buffers gives the same plan."""
    before = np.full(len(problem.buffers), -1, dtype=np.int64)
    last: dict[tuple[int, int, int, int], int] = {}
    for i, b in enumerate(problem.buffers):
        if b.offset is not None:
            continue
        shape = (b.start, b.end, b.size, b.alignment)
        if shape in last:
            before[i] = last[shape]
        last[shape] = i
    return before


@functools.cache
def load_search() -> None:
    """Compile, or load from the cache, the search: once per process, before its first
    question is run, so that a run whose greedy start settles everything (a plan that
    fits, a capacity below the bound) never loads it (with numba's JIT: 0.1-1 s CPU)."""
    from ..problem import Buffer

    tiny = Decider(Problem([Buffer("a", 0, 2, 3), Buffer("b", 1, 3, 2)]))

    def warm_up() -> int:
        search = _Search(tiny, tiny.orders[0], 5)  # not `decide`: it would come back here
        search.counters[1] = 1 << 10
        return search.resume(math.inf)

    kernels.prepare("search_partition", "exact search", warm_up)
