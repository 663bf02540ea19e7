"""What a tensor-level rewrite did: remarks for each rewrite, notes for each refusal."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostic import Diagnostic


@dataclass
class RewriteReport:
    rewritten: list[Diagnostic] = field(default_factory=list)  # remarks
    refused: list[Diagnostic] = field(default_factory=list)  # notes: why left alone

    @property
    def changed(self) -> bool:
        return bool(self.rewritten)
