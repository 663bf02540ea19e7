"""What every check sees: the facts of one input, computed once, and the target it must fit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from iree.compiler import ir

from ..analysis.census import Allocation, FunctionFacts, function_facts
from ..analysis.devices import DeviceUse, device_uses
from ..analysis.hoist_plan import HoistKind, HoistPlan, plan_hoist
from ..ir import MlirChunk
from ..ir.ops import MEMREF_ALLOCATION_OPS
from ..ir.target_attrs import IrLimits, ir_limits
from ..ir.walk import FunctionOps, function_of, function_ops, symbol_name
from ..targets import Target
from ..targets.applied import FunctionTarget, FunctionTargets, LimitOverrides, apply_limits
from .budgets import PRIVATE_SPACES, Budget, kernel_budgets, stack_frames


@dataclass
class CheckContext:
    census: Sequence[Allocation]
    target: Target
    path: str = ""  # the input file, for diagnostics without a location
    chunks: Sequence[MlirChunk] = field(default_factory=tuple)  # the parsed input
    overrides: LimitOverrides = field(default_factory=LimitOverrides)  # from the command line
    assumptions: Sequence[object] = ()  # what the user told the range analysis (for opt's plan)
    # Each chunk's `function_ops` by chunk index, when the caller walked them already.
    walked: dict[int, list[FunctionOps]] = field(default_factory=dict)

    def function_ops(self, chunk: MlirChunk) -> list[FunctionOps]:
        """The chunk's functions with their ops, walked once for every check."""
        if chunk.index not in self.walked:
            self.walked[chunk.index] = function_ops(chunk.module)
        return self.walked[chunk.index]

    @cached_property
    def function_targets(self) -> FunctionTargets:
        """Each function's limits: the preset, what the IR says, the command line."""
        return function_targets(self.chunks, self.target, self.overrides, self.function_ops)

    def target_for(self, a: Allocation) -> FunctionTarget:
        return self.function_targets.of(a.chunk, a.function)

    def hoist_plan(self, a: Allocation) -> HoistPlan | None:
        """What `memplan opt` does with the allocation (None: not one opt rewrites)."""
        if a.op is None or a.op.name not in MEMREF_ALLOCATION_OPS:
            return None
        func = function_of(a.op)
        chunk = self._chunk_at.get(a.chunk)
        if func is None or chunk is None:
            return None
        # One op order and range analysis per function, however many of its allocations ask.
        key = (a.chunk, func)  # the chunk first: identical functions of two chunks hash alike
        if key not in self._facts:
            self._facts[key] = function_facts(func, chunk, self.assumptions)  # type: ignore[arg-type]
        return plan_hoist(a.op, self._facts[key], chunk.path)

    def gpu_hoists(self, a: Allocation) -> bool:
        """On a GPU target, a private alloca IREE's GPU pipeline puts at the entry with a
        static size before it lowers the kernel (its hoist-statically-bound-allocations runs
        after bufferization, and no GPU pass of IREE checks allocas before that), as
        `memplan opt` does: not an error in IREE's GPU flow (its prefetch_shared_memory
        tests leave such allocas in loops), and in the frame at its bound."""
        if a.memory_space not in PRIVATE_SPACES or self.target.devices[0] != "gpu":
            return False  # IREE's CPU check (check-ir-before-llvm-conversion) errs in every space
        plan = self.hoist_plan(a)
        return plan is not None and plan.kind in (HoistKind.TO_ENTRY, HoistKind.BIND)

    @cached_property
    def _chunk_at(self) -> dict[int, MlirChunk]:
        return {c.index: c for c in self.chunks}

    @cached_property
    def _facts(self) -> dict[tuple[int, ir.Operation], FunctionFacts]:
        return {}

    @cached_property
    def frames(self) -> list[Budget]:
        return stack_frames(self.census, self.target, self.function_targets, self.gpu_hoists)

    @cached_property
    def kernels(self) -> list[Budget]:
        return kernel_budgets(self.census, self.target, self.function_targets)

    @cached_property
    def device_uses(self) -> dict[int, dict[ir.Operation, DeviceUse]]:
        """By chunk index, then by allocation op. (One dict for all chunks would make
        identical allocations of different chunks collide: an op hashes by its contents.)"""
        return {chunk.index: device_uses(chunk.module, chunk.path, self.function_ops(chunk))
                for chunk in self.chunks}


def function_targets(chunks: Sequence[MlirChunk], target: Target, overrides: LimitOverrides,
                     funcs: Callable[[MlirChunk], Sequence[FunctionOps]]) -> FunctionTargets:
    """Each function's limits: the preset, what the IR says for it, the command line
    (`funcs`: a chunk's `function_ops`)."""
    found = {}
    applied: dict[IrLimits, FunctionTarget] = {}  # most functions state nothing, alike
    for chunk in chunks:
        for func in (f.func for f in funcs(chunk)):
            stated = ir_limits(func)
            if stated not in applied:
                applied[stated] = apply_limits(target, stated, overrides)
            found[(chunk.index, symbol_name(func))] = applied[stated]
    return FunctionTargets(target, found)
