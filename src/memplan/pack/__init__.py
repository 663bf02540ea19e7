"""Offset planning: buffers with lifetimes packed at static offsets in one memory.

Knows nothing about MLIR; every memory space in memplan reduces to this. One entry
point, `pack(problem, PackOptions(...)) -> PackResult` (packer.py), whose `status` (a
`PlanStatus`, result.py) says how good the plan is. Inside: `greedy/` (the heuristics),
`search/` (the exact search), `kernels/` (their compiled loops).

The names below are loaded on first use (PEP 562): `memplan pack` pays for
numpy and the compiled kernels only when it reaches them, and a caller that
only reads a CSV never does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Imported now, not on first use: importing the submodule `validate` would otherwise
# leave the module, not the function, under the name `memplan.pack.validate`.
from .validate import InvalidPlan, validate, violations

# Each public name, with the module that defines it.
_HOMES = {
    "live_bytes_profile": "bound", "lower_bound": "bound",
    "format_solution": "csvio", "parse_problem": "csvio", "read_problem": "csvio",
    "PackOptions": "packer", "pack": "packer", "PackResult": "result", "PlanStatus": "result",
    "Buffer": "problem", "Problem": "problem", "Rigid": "problem", "Solution": "problem",
}

if TYPE_CHECKING:
    from .bound import live_bytes_profile, lower_bound
    from .csvio import format_solution, parse_problem, read_problem
    from .packer import PackOptions, pack
    from .problem import Buffer, Problem, Rigid, Solution
    from .result import PackResult, PlanStatus


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        # A submodule (`from memplan.pack import greedy`) is found by the import system itself.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Buffer", "InvalidPlan", "PackOptions", "PackResult", "PlanStatus", "Problem", "Rigid",
    "Solution",
    "format_solution", "live_bytes_profile", "lower_bound", "pack", "parse_problem",
    "read_problem", "validate", "violations",
]
