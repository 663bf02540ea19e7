"""Compiler-style findings of the budget checks: `file:line:col: error: ...` plus notes.

Kept deliberately small so that it maps one-to-one onto the project's shared
diagnostic type when both live in `main`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import SourceLoc


@dataclass(frozen=True)
class Note:
    location: SourceLoc | None
    message: str


@dataclass(frozen=True)
class Finding:
    severity: str  # "error" or "note"
    location: SourceLoc | None
    message: str
    notes: tuple[Note, ...] = ()
    check: str = ""  # which check produced it, e.g. "workgroup-memory"

    def render(self, fallback_path: str = "") -> str:
        lines = [f"{_where(self.location, fallback_path)}: {self.severity}: {self.message}"]
        lines += [f"{_where(n.location, fallback_path)}: note: {n.message}" for n in self.notes]
        return "\n".join(lines)


def _where(location: SourceLoc | None, fallback_path: str) -> str:
    return str(location) if location is not None else (fallback_path or "<unknown>")
