"""Offset planning: buffers with lifetimes packed at static offsets in one memory.

Knows nothing about MLIR; every memory space in memplan reduces to this.
"""

from .bound import live_bytes_profile, lower_bound
from .csvio import format_solution, parse_problem, read_problem
from .planner import PackResult, plan
from .problem import Buffer, Problem, Solution
from .status import SolveStatus
from .validate import InvalidPlan, validate, violations

__all__ = [
    "Buffer", "InvalidPlan", "PackResult", "Problem", "Solution", "SolveStatus", "format_solution",
    "live_bytes_profile", "lower_bound", "parse_problem", "plan", "read_problem", "validate",
    "violations",
]
