"""The limits that apply to one function: preset < what the IR says < the command line.

A preset describes a kind of machine; the IR IREE compiles says which one it
compiles for (`max_stack_allocation_size`, `max_workgroup_memory_bytes`); the
user has the last word (`--max-frame`, `--workgroup-limit`). Every limit
remembers where it came from, so reports can say which applied.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Protocol

from .model import StackSpace, Target, WorkgroupSpace


class StatedLimit(Protocol):
    """One limit the IR states (`ir.target_attrs.Found`)."""

    @property
    def value(self) -> int: ...

    @property
    def where(self) -> str: ...  # e.g. "max_stack_allocation_size on hal.executable.variant"


class StatedLimits(Protocol):
    """What the IR states for one function (`ir.target_attrs.IrLimits`): targets know the
    shape of it, not the IR it is read from."""

    @property
    def stack_bytes(self) -> StatedLimit | None: ...

    @property
    def workgroup_bytes(self) -> StatedLimit | None: ...


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
        """Whose limit it is, to follow "the N-byte limit of ..."."""
        if self.source is LimitSource.PRESET:
            return f"target '{self.where}'"
        if self.source is LimitSource.IR:
            return f"{self.where} in the IR"
        return f"{self.where} on the command line"


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

    def stack_source(self) -> str:
        """Where the frame limit came from, when not from the preset ("" otherwise)."""
        return _source(self.stack)

    def workgroup_source(self) -> str:
        return _source(self.workgroup)


def _source(limit: AppliedLimit | None) -> str:
    return limit.describe() if limit is not None and limit.source is not LimitSource.PRESET \
        else ""


@dataclass(frozen=True)
class FunctionTargets:
    """The target of every function of an input, by (chunk, function name)."""

    default: Target
    by_function: dict[tuple[int, str], FunctionTarget]

    def of(self, chunk: int, function: str) -> FunctionTarget:
        found = self.by_function.get((chunk, function))
        if found is None:
            return apply_limits(self.default, None)
        return found


def apply_limits(target: Target, stated: StatedLimits | None,
                 overrides: LimitOverrides = LimitOverrides()) -> FunctionTarget:
    """The preset with the IR's limits (None: the IR states none), then the command line's,
    laid over it."""
    stack = _choose(target.stack.max_frame if target.stack else None, target.name,
                    stated.stack_bytes if stated else None, overrides.max_frame, "--max-frame")
    workgroup = _choose(target.workgroup.limit_per_kernel if target.workgroup else None,
                        target.name, stated.workgroup_bytes if stated else None,
                        overrides.workgroup, "--workgroup-limit")
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


def _choose(preset: int | None, target_name: str, from_ir: StatedLimit | None,
            command_line: int | None, option: str) -> AppliedLimit | None:
    if command_line is not None:
        return AppliedLimit(command_line, LimitSource.COMMAND_LINE, option)
    if from_ir is not None:
        return AppliedLimit(from_ir.value, LimitSource.IR, from_ir.where)
    if preset is not None:
        return AppliedLimit(preset, LimitSource.PRESET, target_name)
    return None
