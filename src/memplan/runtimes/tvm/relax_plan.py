"""The memory of a Relax program as TVM 0.27 builds it, read for `memplan plan`.

`read_relax` runs one of TVM's own pipelines (fused or not, `RelaxPipeline`) up to
StaticPlanBlockMemory and reads every
Relax function's tensors and TVM's storages (`relax_memory`), and the largest
kernel workspace: TIR buffers TVM's `LowerTVMBuiltin` sends to
`TVMBackendAllocWorkspace` (a `pad_temp` of 1 KiB or more) live outside any Relax
plan, one kernel at a time, so the program needs the arena plus the largest of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .relax_arena import RelaxPipeline, passes_through_planning
from .relax_memory import FunctionMemory, read_module
from .runtime import Stage, stage
from .stack_policy import Home, tvm_home
from .tir import allocations, lower_to_builtin

HOST_TARGET = "llvm"


@dataclass(frozen=True)
class Workspace:
    function: str  # the TIR kernel
    bytes: int  # its workspace buffers, together
    buffers: tuple[str, ...]


@dataclass(frozen=True)
class RelaxMemory:
    functions: tuple[FunctionMemory, ...]
    workspace: Workspace | None  # the largest kernel workspace; None: no kernel has one


def read_relax(mod: Any, tvm_target: Any = HOST_TARGET,
               pipeline: RelaxPipeline | str = RelaxPipeline.FUSED) -> RelaxMemory:
    import tvm

    target = tvm.target.Target(tvm_target)
    with target, stage(Stage.TVM_BUILD, "through StaticPlanBlockMemory"):
        planned = tvm.transform.Sequential(passes_through_planning(pipeline, target))(mod)
    return RelaxMemory(tuple(read_module(planned)), largest_workspace(planned, target))


def largest_workspace(mod: Any, target: Any) -> Workspace | None:
    from tvm import relax

    # Kernels get their symbols (which MakePackedAPI needs) at the end of TVM's pipeline.
    with stage(Stage.TVM_BUILD, "lowering the kernels"):
        lowered = lower_to_builtin(relax.transform.AttachGlobalSymbol()(mod), target)
    best = None
    for name, allocs in allocations(lowered).items():
        moved = [a for a in allocs if tvm_home(a) is Home.WORKSPACE and a.size]
        total = sum(a.size for a in moved)
        if moved and (best is None or total > best.bytes):
            best = Workspace(name, total, tuple(a.name for a in moved))
    return best
