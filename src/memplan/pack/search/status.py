"""The search's own answers, inside search/ only: what a packing reports is
`pack.PlanStatus`, which packer.py derives from these."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class SolveStatus(StrEnum):
    """What the exact solver (or the improvement of a plan) established."""

    OPTIMAL = "optimal"  # the plan reaches the proven bound
    FEASIBLE = "feasible"  # the plan fits the capacity; lower ones are not ruled out
    INFEASIBLE = "infeasible"  # proven: no plan fits the capacity
    TIMEOUT = "timeout"  # the time limit stopped it: best plan and proven bound so far


class VerdictStatus(StrEnum):
    """One decision of the search: does the problem pack under a given peak?"""

    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"
    UNKNOWN = "unknown"  # the node budget ran out first


class SearchStatus(IntEnum):
    """What one call of the compiled search returned (dfs.py returns the ints)."""

    OK = 0
    NOT_FOUND = 1
    NODE_LIMIT = 2
    TIME_LIMIT = 3
