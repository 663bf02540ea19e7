"""Compiler-style notes: `file:line:col: severity: message`.

The tensor-level analyses and rewrites return these instead of printing, so the
CLI (and later `memplan check`) decides how to show them.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from ..ir import SourceLoc, source_loc

SEVERITIES = ("error", "warning", "note", "remark")


@dataclass(frozen=True)
class Note:
    severity: str  # one of SEVERITIES
    location: SourceLoc | None
    message: str
    function: str = ""

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.severity}: {self.message}"

    def to_json(self) -> dict[str, object]:
        loc = self.location
        return {"severity": self.severity, "message": self.message, "function": self.function,
                "file": loc.path if loc else None, "line": loc.line if loc else None,
                "col": loc.col if loc else None}


def note_at(severity: str, op: ir.Operation | ir.OpView, path: str, message: str,
            function: str = "") -> Note:
    return Note(severity, source_loc(op, path), message, function)
