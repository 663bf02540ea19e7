"""What the jobs share: the target as given, and the user's facts checked against the IR."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.assumptions import Assumption, VscaleBound, check_assumptions
from ..ir import MlirChunk
from ..targets import Target, load_target

Assumptions = Sequence[Assumption | VscaleBound]


def target_of(target: Target | str) -> Target:
    """A target, or its preset name or .toml file."""
    return target if isinstance(target, Target) else load_target(target)


def checked_assumptions(assumptions: Assumptions, chunks: Sequence[MlirChunk]) -> list:
    """The assumptions, once each argument bound is known to name an argument of the IR."""
    check_assumptions([a for a in assumptions if isinstance(a, Assumption)], chunks)
    return list(assumptions)
