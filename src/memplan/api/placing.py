"""`place`: every allocation of an MLIR input in one of the target's memory spaces."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.census import take_census
from ..diagnostic import Diagnostic
from ..ir import MlirChunk
from ..mlir_requests import MlirPlacement, place_chunk, unplaced_diagnostics
from ..targets import Target
from ..transforms.placement import apply_placement
from .common import Assumptions, checked_assumptions, target_of


@dataclass(frozen=True)
class PlaceResult:
    placements: list[MlirPlacement]  # one per chunk
    unplaced: list[Diagnostic]  # an error per buffer that has nowhere to go

    def apply(self, chunks: Sequence[MlirChunk]) -> None:
        """Write the placement into the IR of `chunks` (the ones placed): one frame per
        function, one global per pool, each buffer a view at its offset."""
        for chunk, placement in zip(chunks, self.placements, strict=True):
            apply_placement(chunk.module, placement)


def place(chunks: Sequence[MlirChunk], target: Target | str, *,
          assumptions: Assumptions = ()) -> PlaceResult:
    target = target_of(target)
    assumptions = checked_assumptions(assumptions, chunks)
    placements = [place_chunk(chunk, take_census(chunk, assumptions), target)
                  for chunk in chunks]
    return PlaceResult(placements, [d for p in placements for d in unplaced_diagnostics(p)])
