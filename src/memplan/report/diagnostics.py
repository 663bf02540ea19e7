"""Compiler-style diagnostics: `file:line:col: error: message`, notes below, or JSON.

One small type for every layer that finds problems (stack checks, placement,
tensor rewrites): build `Diagnostic`s, render them here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..ir import SourceLoc

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


def _line(loc: SourceLoc | None, severity: str, message: str, fallback: str) -> str:
    where = str(loc) if loc is not None else fallback
    return f"{where}: {severity}: {message}"


def format_diagnostic(diag: Diagnostic, fallback: str = "<unknown>") -> str:
    """The diagnostic and its notes, one line each; `fallback` names a place without a loc."""
    lines = [_line(diag.loc, diag.severity, diag.message, fallback)]
    lines += [_line(n.loc or diag.loc, "note", n.message, fallback) for n in diag.notes]
    return "\n".join(lines)


def format_diagnostics(diags: Iterable[Diagnostic], fallback: str = "<unknown>") -> str:
    return "\n".join(format_diagnostic(d, fallback) for d in diags)


def _loc_json(loc: SourceLoc | None) -> dict[str, object] | None:
    return None if loc is None else {"file": loc.path, "line": loc.line, "col": loc.col}


def diagnostic_json(diag: Diagnostic) -> dict[str, object]:
    return {
        "severity": diag.severity,
        "code": diag.code,
        "location": _loc_json(diag.loc),
        "message": diag.message,
        "notes": [{"location": _loc_json(n.loc), "message": n.message} for n in diag.notes],
    }


def count_errors(diags: Sequence[Diagnostic]) -> int:
    return sum(1 for d in diags if d.is_error)
