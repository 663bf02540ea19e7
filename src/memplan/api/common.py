"""What the jobs share: the target as given (`targets.target_of`), and the user's facts
checked against the IR."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.assumptions import Assumption, VscaleBound, check_assumptions
from ..ir import MlirChunk
from ..targets import target_of

__all__ = ["Assumptions", "checked_assumptions", "target_of"]

Assumptions = Sequence[Assumption | VscaleBound]


def checked_assumptions(assumptions: Assumptions, chunks: Sequence[MlirChunk]) -> list:
    """The assumptions, once each argument bound is known to name an argument of the IR."""
    check_assumptions([a for a in assumptions if isinstance(a, Assumption)], chunks)
    return list(assumptions)
