"""The kernels compiled ahead of time at install behave as numba's JIT versions do.

Both come from the same sources (kernels.py checks the extension's digest of
them), but through two compilers: the plans, verdicts and node counts must be
identical, and the search must still release the GIL for decide.py's threads.
"""

import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_pack_scale import problems

from memplan.pack import kernels, sweep_check
from memplan.pack.arrays import problem_arrays
from memplan.pack.csvio import read_problem
from memplan.pack.greedy import greedy_core
from memplan.pack.greedy.heuristics import ORDERS, pack_heuristic
from memplan.pack.problem import Problem
from memplan.pack.search import dfs
from memplan.pack.search.decide import Decider, _Search

DATA = Path(__file__).parent / "data"


def _extension():
    try:
        from memplan.pack.kernels import _kernels
    except ImportError:
        pytest.skip("the kernels were not compiled ahead of time at install (no C compiler?)")
    return _kernels


def test_the_kernels_compiled_at_install_are_the_ones_used():
    compiled = _extension()
    assert compiled.source_digest() == kernels.source_digest(), (
        "the kernels' sources changed since the extension was built: "
        "run `python -m memplan.pack.kernels.aot` (or reinstall)")
    assert kernels.backend() == kernels.Backend.AHEAD_OF_TIME
    assert kernels.search_partition is compiled.search_partition


@settings(max_examples=40, deadline=None)
@given(problems(), st.sampled_from(sorted(ORDERS)), st.booleans())
def test_greedy_core_places_as_the_jit_does(problem, order_name, best_fit):
    compiled = _extension()
    arrays = problem_arrays(problem)
    if not arrays.regular:
        return
    order = ORDERS[order_name](arrays)
    args = (arrays.section_lo, arrays.section_hi, arrays.n_sections, arrays.sizes,
            arrays.aligns, arrays.fixed, order, best_fit)
    assert compiled.place_in_order(*args).tolist() == greedy_core.place_in_order(*args).tolist()


@settings(max_examples=40, deadline=None)
@given(problems())
def test_overlap_sweep_finds_what_the_jit_finds(problem):
    compiled = _extension()
    arrays = problem_arrays(problem)
    if not arrays.regular:
        return
    # Everything at offset 0: every pair meeting in time collides.
    offsets = np.zeros(len(arrays.sizes), np.int64)
    args = (arrays.starts, arrays.ends, arrays.sizes, offsets, 1000)
    assert (compiled.overlapping_pairs(*args).tolist()
            == sweep_check.overlapping_pairs(*args).tolist())


def _decide(problem: Problem, peak: int, search_partition, monkeypatch):
    monkeypatch.setattr(kernels, "search_partition", search_partition)
    verdict = Decider(problem).decide(peak)
    return verdict.status, verdict.offsets, verdict.nodes


@settings(max_examples=30, deadline=None)
@given(problems(max_buffers=14), st.integers(0, 3))
def test_search_answers_as_the_jit_does(problem, slack):
    compiled = _extension()
    peak = pack_heuristic(problem).peak(problem) - slack
    with pytest.MonkeyPatch.context() as mp:
        assert (_decide(problem, peak, compiled.search_partition, mp)
                == _decide(problem, peak, dfs.search_partition, mp))


def test_search_on_a_real_instance_takes_the_same_path(monkeypatch):
    compiled = _extension()
    problem = read_problem(DATA / "minimalloc" / "C.1048576.csv")
    assert (_decide(problem, 1048576, compiled.search_partition, monkeypatch)
            == _decide(problem, 1048576, dfs.search_partition, monkeypatch))


def test_the_compiled_search_lets_other_threads_run():
    """decide.py races preorders on threads: a search in one thread must not hold
    the GIL. Python code in this thread counts while the other thread searches
    (a few tenths of a second): about 20 million here. With the GIL held (the
    extension built without aot._release_the_gil) it counted 10,851, all before
    the search began."""
    compiled = _extension()
    problem = read_problem(DATA / "D.1048576.csv")
    decider = Decider(problem)
    search = _Search(decider, decider.orders[0], 986112)  # the bound: a long search
    lo, hi, bufs = decider.partitions[0]
    st_ = search.state
    search.counters[1] = 3_000_000  # node limit: a few tenths of a second
    started = threading.Event()
    result = []

    def run():
        started.set()
        result.append(compiled.search_partition(
            search.instance, search.peak, lo, hi, bufs, search.keys, search.place, 60.0,
            st_.nodes, st_.frames, st_.pools, st_.scratch, st_.regs)[0])

    worker = threading.Thread(target=run)
    worker.start()
    started.wait()
    counted = 0
    while worker.is_alive():
        counted += 1
    worker.join()
    assert result and search.counters[0] > 100_000  # it did search
    assert counted > 500_000
