"""What every check sees: the facts of one input, computed once, and the target it must fit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from iree.compiler import ir

from ..analysis.census import Allocation
from ..analysis.devices import DeviceUse, device_uses
from ..ir import MlirChunk
from ..place.budgets import Budget, kernel_budgets, stack_frames
from ..targets import Target


@dataclass
class CheckContext:
    census: Sequence[Allocation]
    target: Target
    path: str = ""  # the input file, for diagnostics without a location
    chunks: Sequence[MlirChunk] = field(default_factory=tuple)  # the parsed input

    @cached_property
    def frames(self) -> list[Budget]:
        return stack_frames(self.census, self.target)

    @cached_property
    def kernels(self) -> list[Budget]:
        return kernel_budgets(self.census, self.target)

    @cached_property
    def device_uses(self) -> dict[ir.Operation, DeviceUse]:
        uses: dict[ir.Operation, DeviceUse] = {}
        for chunk in self.chunks:
            uses.update(device_uses(chunk.module, chunk.path))
        return uses
