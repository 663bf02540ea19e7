"""The limits that apply to one function: preset < what the IR says < the command line.

A preset describes a kind of machine; the IR IREE compiles says which one it
compiles for (`max_stack_allocation_size`, `max_workgroup_memory_bytes`); the
user has the last word (`--max-frame`, `--workgroup-limit`). Every limit
remembers where it came from, so reports can say which applied.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from ..ir.target_attrs import Found, IrLimits
from .model import StackSpace, Target, WorkgroupSpace


class LimitSource(enum.Enum):
    PRESET = "target"
    IR = "IR"
    COMMAND_LINE = "command line"


@dataclass(frozen=True)
class AppliedLimit:
    bytes: int
    source: LimitSource
    where: str  # the preset's name, the op carrying the attribute, or the option

    def describe(self) -> str:
        if self.source is LimitSource.PRESET:
            return f"target '{self.where}'"
        if self.source is LimitSource.IR:
            return f"the IR ({self.where})"
        return self.where


@dataclass(frozen=True)
class LimitOverrides:
    """Limits given on the command line (None: not given)."""

    max_frame: int | None = None
    workgroup: int | None = None
    vscale_max: int | None = None


@dataclass(frozen=True)
class FunctionTarget:
    """The target as it applies to one function, with where each limit came from."""

    target: Target
    stack: AppliedLimit | None
    workgroup: AppliedLimit | None

    @property
    def overridden(self) -> bool:
        return any(limit is not None and limit.source is not LimitSource.PRESET
                   for limit in (self.stack, self.workgroup))


def apply_limits(target: Target, ir_limits: IrLimits,
                 overrides: LimitOverrides = LimitOverrides()) -> FunctionTarget:
    """The preset with the IR's limits, then the command line's, laid over it."""
    stack = _choose(target.stack.max_frame if target.stack else None, target.name,
                    ir_limits.stack_bytes, overrides.max_frame, "--max-frame")
    workgroup = _choose(target.workgroup.limit_per_kernel if target.workgroup else None,
                        target.name, ir_limits.workgroup_bytes, overrides.workgroup,
                        "--workgroup-limit")
    changed = target
    if stack is not None and stack.source is not LimitSource.PRESET:
        base = target.stack or StackSpace(max_frame=stack.bytes,
                                          addressable_by=(target.default_device,))
        limit = base.max_allocation
        changed = replace(changed, stack=replace(
            base, max_frame=stack.bytes,
            max_allocation=None if limit is None else min(limit, stack.bytes)))
    if workgroup is not None and workgroup.source is not LimitSource.PRESET:
        base_wg = target.workgroup or WorkgroupSpace(limit_per_kernel=workgroup.bytes)
        changed = replace(changed, workgroup=replace(base_wg, limit_per_kernel=workgroup.bytes))
    return FunctionTarget(changed, stack, workgroup)


def _choose(preset: int | None, target_name: str, from_ir: Found | None,
            command_line: int | None, option: str) -> AppliedLimit | None:
    if command_line is not None:
        return AppliedLimit(command_line, LimitSource.COMMAND_LINE, option)
    if from_ir is not None:
        return AppliedLimit(from_ir.value, LimitSource.IR, from_ir.where)
    if preset is not None:
        return AppliedLimit(preset, LimitSource.PRESET, target_name)
    return None
