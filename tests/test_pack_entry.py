"""The one entry point of packing (`pack.pack`, `api.pack`) and the one status it reports:
every figure checked against what is computed here from the rows themselves."""

from __future__ import annotations

import csv
import itertools

import pytest
from brute import brute_force_peak
from conftest import REPO

from memplan import api
from memplan.errors import InputError
from memplan.pack import Buffer, PackOptions, PlanStatus, Problem, Rigid, pack

MOBILENET = REPO / "examples" / "mobilenet_blocks.294912.csv"
# Two 3-byte buffers aligned to 4, live together: 6 bytes live at once, but the second
# starts at 4 at the lowest, so 7 is the least peak.
ALIGNED = Problem((Buffer("a", 0, 2, 3, 4), Buffer("b", 0, 2, 3, 4)))


def _rows(path) -> list[tuple[str, int, int, int]]:
    with open(path, encoding="utf-8") as f:
        return [(r["id"], int(r["lower"]), int(r["upper"]), int(r["size"]))
                for r in csv.DictReader(f)]


def _most_live(rows) -> int:
    """The most bytes live at one step, step by step."""
    last = max(upper for _, _, upper, _ in rows)
    return max(sum(size for _, lower, upper, size in rows if lower <= t < upper)
               for t in range(last))


def _checked_peak(rows, offsets: dict[str, int]) -> int:
    """The plan's peak, once no two buffers live together share a byte."""
    for (a, a_lo, a_hi, a_size), (b, b_lo, b_hi, b_size) in itertools.combinations(rows, 2):
        if a_lo < b_hi and b_lo < a_hi:
            assert offsets[a] + a_size <= offsets[b] or offsets[b] + b_size <= offsets[a], (a, b)
    return max(offsets[i] + size for i, _, _, size in rows)


def test_api_pack_of_a_file_is_a_valid_plan_with_the_true_bound() -> None:
    rows = _rows(MOBILENET)
    greedy = api.pack(MOBILENET)
    assert greedy.lower_bound == _most_live(rows) == 261376
    assert greedy.peak == _checked_peak(rows, greedy.offsets) > greedy.lower_bound
    assert greedy.status is PlanStatus.HEURISTIC and greedy.proven_bound is None
    assert greedy.fits and greedy.problem.capacity == 294912  # from the file name
    best = api.pack(str(MOBILENET), minimize=True)
    assert best.peak == _checked_peak(rows, best.offsets) == best.lower_bound
    assert best.status is PlanStatus.AT_BOUND


def test_api_pack_of_rows_is_held_to_a_files_rules() -> None:
    result = api.pack([("x", 0, 2, 8), ("y", 1, 3, 8, 8), ("z", 3, 4, 16)], minimize=True)
    assert result.offsets.keys() == {"x", "y", "z"}
    assert result.peak == result.lower_bound == 16 and result.status is PlanStatus.AT_BOUND
    assert result.offsets["y"] % 8 == 0
    given = api.pack(ALIGNED.buffers, capacity=8)
    assert given.problem.capacity == 8 and given.fits
    with pytest.raises(InputError, match="lower 3 must be below upper 1"):
        api.pack([("x", 0, 2, 8), ("y", 3, 1, 8)])
    with pytest.raises(InputError, match="duplicate id"):
        api.pack([("x", 0, 2, 8), ("x", 1, 3, 8)])
    with pytest.raises(TypeError):
        api.pack(ALIGNED.buffers, fastest=True)  # not an option of PackOptions


def test_the_status_says_how_good_the_plan_is(minimalloc_dir) -> None:
    optimum = brute_force_peak(ALIGNED)
    assert optimum == 7
    # Above the bound, no search asked: a heuristic plan.
    greedy = pack(ALIGNED)
    assert greedy.peak > greedy.lower_bound == 6 and greedy.status is PlanStatus.HEURISTIC
    # The search proves nothing below the greedy peak fits: optimal, above the bound.
    proven = pack(ALIGNED, PackOptions(minimize=True))
    assert proven.peak == proven.proven_bound == optimum
    assert proven.status is PlanStatus.OPTIMAL
    # At the bound, whether or not the search ran.
    pair = Problem((Buffer("a", 0, 2, 8), Buffer("b", 1, 3, 8)))
    assert pack(pair).status is pack(pair, PackOptions(minimize=True)).status \
        is PlanStatus.AT_BOUND
    # A capacity no plan reaches: below the live bytes (no search needed), or above
    # them but below the optimum (the search proves it).
    assert pack(Problem(ALIGNED.buffers, 5)).status is PlanStatus.INFEASIBLE
    short = pack(Problem(ALIGNED.buffers, optimum - 1), PackOptions(exact=True))
    assert short.status is PlanStatus.INFEASIBLE and not short.fits
    # A fit found without minimising: lower peaks are not ruled out.
    fitted = pack(Problem(ALIGNED.buffers, 64), PackOptions(exact=True))
    assert fitted.fits and fitted.peak > fitted.lower_bound
    assert fitted.status is PlanStatus.GAP
    # minimalloc's D: a second of minimising does not close the gap.
    hard = pack(Problem(api.pack(minimalloc_dir / "D.1048576.csv").problem.buffers),
                PackOptions(minimize=True, time_limit=1.0))
    assert hard.status is PlanStatus.GAP and hard.lower_bound <= hard.proven_bound < hard.peak


def test_a_limit_spent_before_a_fit_is_a_timeout() -> None:
    rows = _rows(MOBILENET)
    # The live bytes fit exactly (the minimised plan above reaches them); the greedy plan
    # does not, and a limit of 0 leaves the search no time to find the fit.
    tight = api.pack(rows, capacity=_most_live(rows), exact=True, time_limit=0.0)
    assert not tight.fits and tight.status is PlanStatus.TIMEOUT
    assert _checked_peak(rows, tight.offsets) == tight.peak
    fitted = api.pack(rows, capacity=_most_live(rows), exact=True)
    assert fitted.fits and fitted.status is PlanStatus.AT_BOUND


def test_the_status_words_are_the_ones_reports_print() -> None:
    assert [s.value for s in PlanStatus] == ["at_bound", "optimal", "gap", "heuristic",
                                             "infeasible", "timeout"]
    with pytest.raises(ValueError, match="time limit"):
        PackOptions(time_limit=-1.0)


def test_in_order_packs_first_fit_in_the_order_given() -> None:
    problem = Problem((Buffer("a", 0, 2, 8), Buffer("b", 1, 3, 4), Buffer("c", 2, 4, 8)))
    result = pack(problem, PackOptions(order=(1, 0, 2)))
    # b first at 0; a above it at 4; c, live with b only, above b at 4
    assert result.solution.offsets == (4, 0, 4) and result.peak == 12


def test_rigid_groups_go_through_the_one_entry_point() -> None:
    # a tensor released in two bands (8 bytes each, the low band dead at step 2) and a
    # buffer born at step 2: packed freely, c would take any free 8 bytes; kept rigid, the
    # bands stay 8 apart and c fits only in the low band's bytes once it is dead
    problem = Problem((Buffer("t[0:8]", 0, 2, 8), Buffer("t[8:16]", 0, 4, 8),
                       Buffer("c", 2, 4, 8)))
    groups = (Rigid((0, 1), (0, 8)),)
    result = pack(problem, PackOptions(exact=True, rigid=groups))
    a, b, c = result.solution.offsets
    assert b - a == 8 and result.peak == 16 == result.lower_bound
    assert c == a and result.status is PlanStatus.AT_BOUND
    # a pin the caller proposes is tried too: stacking the group above 16 bytes is worse
    # and is not what is kept
    high = pack(problem, PackOptions(exact=True, rigid=groups, rigid_bases={"high": (16,)}))
    assert high.peak == 16
