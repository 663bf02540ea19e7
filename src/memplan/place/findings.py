"""Compiler-style diagnostics of the budget checks: `file:line:col: error: ...` plus notes.

Stand-in with the same fields as the project's shared `report.diagnostics`
(`Diagnostic(severity, loc, message, notes, code)`), which is not in this
branch yet; when it is, this module becomes an import of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import SourceLoc


@dataclass(frozen=True)
class Note:
    loc: SourceLoc | None
    message: str


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error", "warning", "note" or "remark"
    loc: SourceLoc | None
    message: str
    notes: tuple[Note, ...] = field(default_factory=tuple)
    code: str = ""  # stable id for tools, e.g. "workgroup-limit"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def format_diagnostic(diag: Diagnostic, fallback: str = "<unknown>") -> str:
    """The diagnostic and its notes, one line each; `fallback` names a place without a loc."""
    lines = [f"{_where(diag.loc, fallback)}: {diag.severity}: {diag.message}"]
    lines += [f"{_where(n.loc or diag.loc, fallback)}: note: {n.message}" for n in diag.notes]
    return "\n".join(lines)


def _where(loc: SourceLoc | None, fallback: str) -> str:
    return str(loc) if loc is not None else fallback
