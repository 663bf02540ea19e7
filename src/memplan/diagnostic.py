"""Findings at a place in the input: the one type every layer reports problems with.

It sits below the layers (like `errors.py`) so that analyses, rewrites and
checks can build diagnostics; `report/diagnostics.py` renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .ir import SourceLoc

SEVERITIES = ("error", "warning", "note", "remark")


@dataclass(frozen=True)
class Note:
    loc: SourceLoc | None
    message: str


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # one of SEVERITIES
    loc: SourceLoc | None
    message: str
    notes: tuple[Note, ...] = field(default_factory=tuple)
    code: str = ""  # stable id for tools, e.g. "stack-in-loop"

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def count_errors(diags: Sequence[Diagnostic]) -> int:
    return sum(1 for d in diags if d.is_error)
