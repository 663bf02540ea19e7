"""The typed form of a target description. Sizes are bytes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StackSpace:
    max_frame: int  # bytes of simultaneously live stack allocations per function
    max_allocation: int | None = None  # per-allocation limit, when the target has one
    alignment: int = 16
    addressable_by: tuple[str, ...] = ()  # devices that can address this stack


@dataclass(frozen=True)
class WorkgroupSpace:
    limit_per_kernel: int
    alignment: int = 16


@dataclass(frozen=True)
class Pool:
    name: str
    capacity: int
    alignment: int = 16
    reachable_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Heap:
    reachable_by: tuple[str, ...] = ()
    capacity: int | None = None
    alignment: int = 64


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    devices: tuple[str, ...]
    stack: StackSpace | None = None  # None: the target has no addressable stack
    workgroup: WorkgroupSpace | None = None
    pools: tuple[Pool, ...] = field(default_factory=tuple)
    heap: Heap | None = None
    source: str = ""  # file the description came from
