"""What a pass did: one report type for every rewrite.

Diagnostics keep the order the pass emitted them (op order, as a compiler
prints them): remarks for what was rewritten, notes or errors for what was
matched and left alone, and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostic import Diagnostic


@dataclass
class RewriteReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def add_rewritten(self, diag: Diagnostic) -> None:
        assert diag.severity == "remark", "a rewrite is reported as a remark"
        self.diagnostics.append(diag)

    def add_refused(self, diag: Diagnostic) -> None:
        assert diag.severity != "remark", "a refusal is a note, warning or error"
        self.diagnostics.append(diag)

    def extend(self, other: RewriteReport) -> None:
        self.diagnostics += other.diagnostics

    @property
    def rewritten(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "remark"]

    @property
    def refused(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity != "remark"]

    @property
    def matched(self) -> int:
        return len(self.diagnostics)

    @property
    def changed(self) -> bool:
        return bool(self.rewritten)
