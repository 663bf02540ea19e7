"""Compiler-style diagnostics: `file:line:col: error: message`, notes below, or JSON.

The type lives in `memplan.diagnostic` (below the layers, so analyses and
rewrites can build diagnostics); this module only renders them.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..diagnostic import Diagnostic, Note, count_errors
from ..ir import SourceLoc

__all__ = ["Diagnostic", "Note", "count_errors", "diagnostic_json", "format_diagnostic",
           "format_diagnostics"]

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
