"""Stack or workspace for each TIR allocation: TVM 0.27's rule and memplan's.

TVM's rule (`LowerTVMBuiltin`, src/tirx/transform/lower_tvm_builtin.cc) looks at
one buffer at a time: on a CPU, a "global" buffer of constant size under
`kMaxStackAlloca` = 1024 bytes (include/tvm/runtime/device_api.h) stays on the
stack, anything else goes to `TVMBackendAllocWorkspace`; no target attribute or
PassContext option changes it. Three 1000-byte buffers make a 3000-byte frame on
a microcontroller whose stack is 2 KiB (seed 003).

memplan's rule bounds the frame: the buffers of one function that stay on the
stack together fit the target's frame budget (`[stack] max_frame`, less what the
function needs besides its buffers), each within the target's `max_allocation`
when it has one. The smallest go first: small scratch is what LLVM promotes to
registers, and keeping the most buffers keeps the most workspace calls away. A
target without an addressable stack keeps nothing there. Allocas get no lifetime
markers from TVM's codegen, so buffers of one frame never share bytes: the frame
is their sum, each rounded up to the stack alignment.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ...targets import Target
from .tir import KDL_CPU, TirAllocation

TVM_MAX_STACK_ALLOCA = 1024  # kMaxStackAlloca, include/tvm/runtime/device_api.h


class Home(Enum):
    STACK = "stack"
    WORKSPACE = "workspace"


def tvm_home(a: TirAllocation) -> Home:
    """Where TVM 0.27's LowerTVMBuiltin puts `a`."""
    if a.pinned or a.scalable:
        return Home.STACK
    if a.device_type == KDL_CPU and a.scope == "global" and a.size \
            and a.size < TVM_MAX_STACK_ALLOCA:
        return Home.STACK
    return Home.WORKSPACE


def stackable(a: TirAllocation) -> bool:
    """An allocation LowerTVMBuiltin can be told to leave on the stack: a CPU buffer of
    constant size in the global scope (other scopes mean other memories)."""
    return a.device_type == KDL_CPU and a.scope == "global" and bool(a.size) and not a.scalable


@dataclass(frozen=True)
class FramePolicy:
    budget: int | None  # bytes of buffers one frame may hold; None: no addressable stack
    max_allocation: int | None
    alignment: int

    @classmethod
    def of(cls, target: Target, reserve: int = 0) -> FramePolicy:
        """The target's policy; `reserve`: bytes of the frame kept for what is not a buffer
        (saved registers, spills, the packed-call argument arrays)."""
        stack = target.stack
        if stack is None or (stack.addressable_by and target.default_device
                             not in stack.addressable_by):
            return cls(None, None, 1)
        return cls(max(0, stack.max_frame - reserve), stack.max_allocation, stack.alignment)


@dataclass(frozen=True)
class Decision:
    allocation: TirAllocation
    tvm: Home
    memplan: Home


def align_up(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


@dataclass(frozen=True)
class FramePlan:
    function: str
    decisions: tuple[Decision, ...]
    policy: FramePolicy

    def stack_bytes(self, home_of) -> int:  # noqa: ANN001 - Decision -> Home
        align = self.policy.alignment
        return sum(align_up(d.allocation.size or 0, align) for d in self.decisions
                   if home_of(d) is Home.STACK)

    @property
    def tvm_frame(self) -> int:
        """Bytes of buffers TVM 0.27 keeps in this function's frame."""
        return self.stack_bytes(lambda d: d.tvm)

    @property
    def memplan_frame(self) -> int:
        return self.stack_bytes(lambda d: d.memplan)

    @property
    def budget(self) -> int | None:
        return self.policy.budget

    @property
    def tvm_over(self) -> bool:
        return self.tvm_frame > (self.budget or 0)

    @property
    def memplan_over(self) -> bool:
        """Only buffers already pinned to the stack can leave memplan over budget."""
        return self.memplan_frame > (self.budget or 0)


def plan_frame(function: str, allocations: list[TirAllocation], policy: FramePolicy) -> FramePlan:
    """memplan's decision for each allocation of one function, beside TVM's."""
    align = policy.alignment
    budget = policy.budget or 0
    # Buffers the input already pinned to the stack are not ours to move.
    used = sum(align_up(a.size or 0, align) for a in allocations if a.pinned or a.scalable)
    keep: set[int] = set()
    candidates = sorted((i for i, a in enumerate(allocations)
                         if stackable(a) and not a.pinned),
                        key=lambda i: (allocations[i].size, i))
    for i in candidates:
        a = allocations[i]
        size = align_up(a.size or 0, align)
        if policy.max_allocation is not None and (a.size or 0) > policy.max_allocation:
            continue
        if used + size <= budget:
            keep.add(i)
            used += size
    decisions = tuple(
        Decision(a, tvm_home(a),
                 Home.STACK if i in keep or a.pinned or a.scalable else Home.WORKSPACE)
        for i, a in enumerate(allocations))
    return FramePlan(function, decisions, policy)


def plan_module(allocations: dict[str, list[TirAllocation]],
                policy: FramePolicy) -> list[FramePlan]:
    return [plan_frame(name, allocs, policy) for name, allocs in allocations.items()]
