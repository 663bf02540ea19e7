"""One arena per Relax function at memplan's offsets, as a pass in TVM's own pipeline.

`arena_pipeline()` is TVM 0.27's default Relax build pipeline (the one
`tvm.compile` runs for a CPU, `relax.pipeline.default_build_pipeline`) with
`MemplanArena` right after `StaticPlanBlockMemory`: every storage that pass made
for a function (static size, device 0, scope "global") becomes one
`R.memory.alloc_storage` of memplan's peak, and each tensor is allocated in it at
memplan's offset. Two traps of the VM shape the rewrite:

- `alloc_tensor` at an offset gives a tensor whose `byte_offset` is the offset,
  and the kernels TVM builds reject a nonzero `byte_offset`; each such tensor
  goes through `R.memory.ensure_zero_offset`, which moves the offset into the
  data pointer;
- that move is zero-copy only when the pointer stays aligned to the runtime's
  64 bytes (`kAllocAlignment`), and copies otherwise: plans are 64-aligned.

Use: `tvm.compile(mod, target, relax_pipeline=arena_pipeline())`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..place.arena import ArenaPlan, plan_arena
from .relax_memory import FunctionMemory, read_function

# TVM's runtime aligns allocations and zero-copy views to kAllocAlignment = 64
# (include/tvm/runtime/device_api.h).
ARENA_ALIGNMENT = 64
ARENA_NAME = "memplan_arena"


@dataclass(frozen=True)
class FunctionArena:
    memory: FunctionMemory
    plan: ArenaPlan | None  # None: refused, or nothing to plan

    @property
    def name(self) -> str:
        return self.memory.name


def plan_function(memory: FunctionMemory, time_limit: float | None = 10.0) -> FunctionArena:
    if memory.refused or not memory.tensors:
        return FunctionArena(memory, None)
    return FunctionArena(memory, plan_arena(memory.arena_tensors(), alignment=ARENA_ALIGNMENT,
                                            time_limit=time_limit))


def rewrite_function(func: Any, arena: FunctionArena) -> Any:
    """`func` with its planned storages replaced by one arena at memplan's offsets."""
    from tvm import relax
    from tvm.relax.op import memory

    if arena.plan is None:
        return func
    storages = {s.var for s in arena.memory.storages}
    offsets = arena.plan.offsets
    tensor_offset = {t.var: offsets[i] for i, t in enumerate(arena.memory.tensors)}
    arena_var = None
    bb = relax.BlockBuilder()
    blocks = []
    for block in func.body.blocks:
        bindings = []
        for b in block.bindings:
            value = b.value
            if b.var in storages:
                if arena_var is None:
                    size = relax.ShapeExpr([arena.plan.peak])
                    call = memory.alloc_storage(size, 0, "global", "uint8")
                    arena_var = relax.Var(ARENA_NAME, b.var.ty)
                    bindings.append(relax.VarBinding(arena_var, bb.normalize(call)))
                continue
            if b.var in tensor_offset:
                offset = tensor_offset[b.var]
                call = memory.alloc_tensor(arena_var, offset, value.args[2], value.args[3],
                                           value.args[4])
                if offset == 0:
                    bindings.append(relax.VarBinding(b.var, bb.normalize(call)))
                else:
                    raw = relax.Var(f"{b.var.name}_at_{offset}", b.var.ty)
                    bindings.append(relax.VarBinding(raw, bb.normalize(call)))
                    bindings.append(relax.VarBinding(
                        b.var, bb.normalize(memory.ensure_zero_offset(raw))))
                continue
            bindings.append(b)
        blocks.append(type(block)(bindings, block.span))
    body = relax.SeqExpr(blocks, func.body.body, func.body.span)
    return relax.Function(func.params, body, func.ret_ty, func.is_pure, func.attrs, func.span)


def arena_pass(arenas: list[FunctionArena] | None = None,
               time_limit: float | None = 10.0) -> Any:
    """The module pass: plan and rewrite every Relax function (not only main); appends
    each function's arena (planned or refused) to `arenas` when given."""
    import tvm
    from tvm import relax

    @tvm.transform.module_pass(opt_level=0, name="memplan.MemplanArena")
    def _pass(mod: Any, _ctx: Any) -> Any:
        updates = {}
        for gv, func in mod.functions.items():
            if not isinstance(func, relax.Function):
                continue
            arena = plan_function(read_function(gv.name_hint, func, mod), time_limit)
            if arenas is not None:
                arenas.append(arena)
            updates[gv] = rewrite_function(func, arena)
        for gv, func in updates.items():
            mod[gv] = func
        return mod

    return _pass


def arena_pipeline(arenas: list[FunctionArena] | None = None,
                   time_limit: float | None = 10.0) -> Any:
    """TVM 0.27's default Relax build pipeline with memplan's arena after
    StaticPlanBlockMemory; pass as `tvm.compile(..., relax_pipeline=...)`."""
    import tvm
    from tvm.relax import backend
    from tvm.relax import transform as T  # noqa: N812 - TVM's own spelling

    @tvm.transform.module_pass(opt_level=0, name="memplan.ArenaPipeline")
    def _pipeline(mod: Any, _ctx: Any) -> Any:
        return tvm.transform.Sequential([
            backend.DispatchSampling(),
            backend.DispatchSortScan(),
            T.LegalizeOps(),
            T.RewriteDataflowReshape(),
            T.ToNonDataflow(),
            T.RemovePurityChecking(),
            T.CallTIRRewrite(),
            T.StaticPlanBlockMemory(),
            arena_pass(arenas, time_limit),
            T.RewriteCUDAGraph(),
            T.LowerAllocTensor(),
            T.KillAfterLastUse(),
            T.LowerRuntimeBuiltin(),
            T.ComputePrimValue(),
            T.VMShapeLower(),
            T.AttachGlobalSymbol(),
        ])(mod)

    return _pipeline
