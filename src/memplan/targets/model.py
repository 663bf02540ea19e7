"""The typed form of a target description. Sizes are bytes.

A target names its devices (the first is where code runs unless told
otherwise) and its memory spaces: at most one stack, one workgroup memory,
any number of pools, at most one heap. Placement tries them in that order:
stack, pools in the order the file lists them, heap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Names a pool may not take: they already name the other kinds of space.
RESERVED_SPACE_NAMES = frozenset({"stack", "workgroup", "heap"})


@dataclass(frozen=True)
class StackSpace:
    max_frame: int  # bytes of simultaneously live stack allocations per function
    max_allocation: int | None = None  # per-allocation limit, when the target has one
    alignment: int = 16
    addressable_by: tuple[str, ...] = ()  # devices that can address this stack
    description: str = ""


@dataclass(frozen=True)
class WorkgroupSpace:
    limit_per_kernel: int  # bytes of simultaneously live workgroup allocations per kernel
    alignment: int = 16
    description: str = ""


@dataclass(frozen=True)
class Pool:
    name: str
    capacity: int
    alignment: int = 16
    reachable_by: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Heap:
    reachable_by: tuple[str, ...] = ()
    capacity: int | None = None  # None: bounded only by the machine
    alignment: int = 64
    description: str = ""


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
    # What TVM builds for on this target (`tvm.target.Target(tvm_target)`), e.g.
    # "c -mcpu=cortex-m4"; None where memplan knows no TVM target for it.
    tvm_target: str | None = None
    # The C compiler and flags that build TVM's C output for this target (argv, run with
    # -fstack-usage to read each function's frame); () where TVM emits machine code itself.
    c_compiler: tuple[str, ...] = ()

    @property
    def default_device(self) -> str:
        """The device that runs code nobody assigned elsewhere."""
        return self.devices[0]

    def pool(self, name: str) -> Pool | None:
        return next((p for p in self.pools if p.name == name), None)

    def space_names(self) -> list[str]:
        """Every memory space in placement order (workgroup memory last: never placed into)."""
        names = ["stack"] if self.stack else []
        names += [p.name for p in self.pools]
        names += ["heap"] if self.heap else []
        names += ["workgroup"] if self.workgroup else []
        return names
