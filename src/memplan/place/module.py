"""Placement of one parsed module: census records + device use -> decisions."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.census import Allocation
from ..analysis.devices import device_uses
from ..ir import MlirChunk
from ..targets import Target
from .model import Placement
from .policy import place
from .requests import build_requests


def place_chunk(chunk: MlirChunk, allocations: Sequence[Allocation], target: Target) -> Placement:
    """Place the census of `chunk` on `target`, with devices read from the chunk's IR."""
    uses = device_uses(chunk.module, chunk.path)
    return place(build_requests(allocations, uses, target), target)
