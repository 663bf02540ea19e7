"""What every check sees: the census of one input and the target it must fit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.census import Allocation
from ..ir import MlirChunk
from ..targets import Target


@dataclass(frozen=True)
class CheckContext:
    census: Sequence[Allocation]
    target: Target
    path: str = ""  # the input file, for diagnostics without a location
    chunks: Sequence[MlirChunk] = ()  # the parsed input, for checks that read the IR
