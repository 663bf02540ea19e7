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

import dataclasses
from dataclasses import dataclass
from typing import Any

from ...pack import PackOptions, PackResult, pack
from .relax_memory import FunctionMemory, read_function

# TVM's runtime aligns allocations and zero-copy views to kAllocAlignment = 64
# (include/tvm/runtime/device_api.h).
ARENA_ALIGNMENT = 64
ARENA_NAME = "memplan_arena"
TVM_PLANNER = "TVM's own (StaticPlanBlockMemory)"


@dataclass(frozen=True)
class FunctionArena:
    memory: FunctionMemory
    offsets: dict[int, int] | None  # tensor key -> byte offset; None: refused or empty
    size: int = 0  # bytes of the arena
    plan: PackResult | None = None  # memplan's packing, when planned here (not given)

    @property
    def name(self) -> str:
        return self.memory.name


# A plan decided elsewhere (the driver, a JSON file): per function, arena size and offsets.
FixedPlans = dict[str, tuple[int, dict[int, int]]]


def plan_function(memory: FunctionMemory, time_limit: float | None = 10.0,
                  fixed: FixedPlans | None = None) -> FunctionArena:
    if memory.refused or not memory.tensors:
        return FunctionArena(memory, None)
    if fixed is not None:
        if memory.name not in fixed:
            return FunctionArena(memory, None)
        size, offsets = fixed[memory.name]
        return FunctionArena(memory, dict(offsets), size)
    problem = memory.problem(ARENA_ALIGNMENT)
    incumbents = {TVM_PLANNER: memory.tvm_offsets()} \
        if memory.tvm_plan_holds(ARENA_ALIGNMENT) else {}
    solved = pack(problem, PackOptions(exact=bool(time_limit), time_limit=time_limit,
                                       incumbents=incumbents))
    offsets = dict(enumerate(solved.solution.offsets))
    return FunctionArena(memory, offsets, solved.peak, solved)


def rewrite_function(func: Any, arena: FunctionArena) -> Any:
    """`func` with its planned storages replaced by one arena at memplan's offsets."""
    from tvm import relax
    from tvm.relax.op import memory

    if arena.offsets is None:
        return func
    storages = {s.var for s in arena.memory.storages}
    offsets = arena.offsets
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
                    size = relax.ShapeExpr([arena.size])
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
               time_limit: float | None = 10.0, fixed: FixedPlans | None = None) -> Any:
    """The module pass: plan and rewrite every Relax function (not only main), or apply
    the `fixed` plans; appends each function's arena (planned or refused) to `arenas`."""
    import tvm
    from tvm import relax

    @tvm.transform.module_pass(opt_level=0, name="memplan.MemplanArena")
    def _pass(mod: Any, _ctx: Any) -> Any:
        updates = {}
        for gv, func in mod.functions.items():
            if not isinstance(func, relax.Function):
                continue
            arena = plan_function(read_function(gv.name_hint, func, mod), time_limit, fixed)
            _check_offsets(arena)
            if arenas is not None:
                arenas.append(arena)
            updates[gv] = rewrite_function(func, arena)
        for gv, func in updates.items():
            mod[gv] = func
        return mod

    return _pass


def _check_offsets(arena: FunctionArena) -> None:
    """A plan from outside is checked before TVM builds it: every tensor placed, 64-aligned,
    inside the arena, and no two live at once sharing bytes."""
    from ...errors import InputError
    from ...pack import InvalidPlan, Solution, validate

    if arena.offsets is None:
        return
    problem = dataclasses.replace(arena.memory.problem(ARENA_ALIGNMENT), capacity=arena.size)
    missing = [b.id for key, b in enumerate(problem.buffers) if key not in arena.offsets]
    if missing:
        raise InputError(arena.name, f"the arena plan places no offset for {missing[0]}")
    misaligned = [b.id for key, b in enumerate(problem.buffers)
                  if arena.offsets[key] % ARENA_ALIGNMENT]
    if misaligned:
        raise InputError(arena.name, f"{misaligned[0]}'s offset is not a multiple of "
                         f"{ARENA_ALIGNMENT}: ensure_zero_offset would copy it")
    try:
        validate(problem, Solution(tuple(arena.offsets[k] for k in range(len(problem.buffers)))))
    except InvalidPlan as err:
        raise InputError(arena.name, f"the arena plan is unsound: {err}") from None


def passes_through_planning() -> list[Any]:
    """TVM 0.27's default Relax build pipeline (`relax.pipeline.default_build_pipeline`,
    what `tvm.compile` runs for a CPU) up to and including StaticPlanBlockMemory."""
    from tvm.relax import backend
    from tvm.relax import transform as T  # noqa: N812 - TVM's own spelling

    return [backend.DispatchSampling(), backend.DispatchSortScan(), T.LegalizeOps(),
            T.RewriteDataflowReshape(), T.ToNonDataflow(), T.RemovePurityChecking(),
            T.CallTIRRewrite(), T.StaticPlanBlockMemory()]


def passes_after_planning() -> list[Any]:
    """The rest of that pipeline."""
    from tvm.relax import transform as T  # noqa: N812

    return [T.RewriteCUDAGraph(), T.LowerAllocTensor(), T.KillAfterLastUse(),
            T.LowerRuntimeBuiltin(), T.ComputePrimValue(), T.VMShapeLower(),
            T.AttachGlobalSymbol()]


def arena_pipeline(arenas: list[FunctionArena] | None = None,
                   time_limit: float | None = 10.0, fixed: FixedPlans | None = None) -> Any:
    """TVM 0.27's default Relax build pipeline with memplan's arena after
    StaticPlanBlockMemory; pass as `tvm.compile(..., relax_pipeline=...)`. `fixed`: apply
    these plans (e.g. what `memplan plan MODEL --runtime tvm -o PLAN.json` wrote)
    instead of planning."""
    import tvm

    @tvm.transform.module_pass(opt_level=0, name="memplan.ArenaPipeline")
    def _pipeline(mod: Any, _ctx: Any) -> Any:
        return tvm.transform.Sequential([*passes_through_planning(),
                                         arena_pass(arenas, time_limit, fixed),
                                         *passes_after_planning()])(mod)

    return _pipeline
