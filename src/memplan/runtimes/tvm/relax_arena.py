"""One arena per Relax function at memplan's offsets, as a pass in TVM's own pipeline.

`arena_pipeline()` is one of TVM 0.27's Relax build pipelines (`RelaxPipeline`: by
default the fused one, `relax.get_default_pipeline(target)`; or the unfused
`relax.pipeline.default_build_pipeline` that `tvm.compile` runs for a CPU when given
none) with `MemplanArena` right after `StaticPlanBlockMemory`: every storage that pass made
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
import enum
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


def apply_arenas(mod: Any, arenas: list[FunctionArena] | None = None,
                 time_limit: float | None = 10.0, fixed: FixedPlans | None = None) -> Any:
    """`mod` after StaticPlanBlockMemory with every Relax function (not only main) planned
    and rewritten, or given the `fixed` plans; each function's arena (planned or refused)
    is appended to `arenas`."""
    from tvm import relax

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


def arena_pass(arenas: list[FunctionArena] | None = None,
               time_limit: float | None = 10.0, fixed: FixedPlans | None = None) -> Any:
    """`apply_arenas` as a module pass."""
    import tvm

    @tvm.transform.module_pass(opt_level=0, name="memplan.MemplanArena")
    def _pass(mod: Any, _ctx: Any) -> Any:
        return apply_arenas(mod, arenas, time_limit, fixed)

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


class RelaxPipeline(enum.Enum):
    """Which of TVM 0.27's Relax pipelines builds the program memplan plans."""

    # `relax.get_default_pipeline(target)`: LegalizeOps, AnnotateTIROpPattern,
    # FoldConstant, FuseOps, FuseTIR (the zero pipeline TVM's tutorials apply), then the
    # lowering: what a user who optimises before building runs; constants are folded and
    # kernels fused, so fewer and smaller intermediates reach StaticPlanBlockMemory.
    FUSED = "fused"
    # `relax.pipeline.default_build_pipeline`: what `tvm.compile(mod, "llvm")` runs when
    # given no pipeline (TVM 0.27 keeps CPU targets off the fusing one), one kernel per op.
    UNFUSED = "unfused"


def pipeline_of(value: RelaxPipeline | str) -> RelaxPipeline:
    """The pipeline named by `value` ("fused", "unfused") or itself."""
    try:
        return RelaxPipeline(value)
    except ValueError:
        known = ", ".join(p.value for p in RelaxPipeline)
        raise ValueError(f"unknown Relax pipeline {value!r} (known: {known})") from None


def _target(target: Any = None) -> Any:
    import tvm

    if target is not None:
        return tvm.target.Target(target)
    return tvm.target.Target.current(allow_none=True) or tvm.target.Target("llvm")


def _fused_passes(target: Any) -> tuple[list[Any], list[Any]]:
    """TVM's own `get_default_pipeline(target)`, from the per-stage lists it is made of,
    cut after StaticPlanBlockMemory."""
    from tvm.relax import pipeline as stages

    if target.kind.name == "llvm":
        # 0.27's `relax.pipeline.dataflow_lower_passes` names a function the CPU backend's
        # package does not export; its `pipeline` module has all four.
        from tvm.relax.backend.cpu_generic import pipeline as stages
    finalize = stages.finalize_passes(target)
    cut = next(i for i, p in enumerate(finalize) if p.info.name == "StaticPlanBlockMemory") + 1
    before = [*stages.library_dispatch_passes(target), *stages.legalize_passes(target),
              *stages.dataflow_lower_passes(target), *finalize[:cut]]
    return before, finalize[cut:]


def passes_through_planning(pipeline: RelaxPipeline | str = RelaxPipeline.FUSED,
                            target: Any = None) -> list[Any]:
    """The pipeline's passes up to and including StaticPlanBlockMemory."""
    from tvm.relax import backend
    from tvm.relax import transform as T  # noqa: N812 - TVM's own spelling

    if pipeline_of(pipeline) is RelaxPipeline.FUSED:
        return _fused_passes(_target(target))[0]
    return [backend.DispatchSampling(), backend.DispatchSortScan(), T.LegalizeOps(),
            T.RewriteDataflowReshape(), T.ToNonDataflow(), T.RemovePurityChecking(),
            T.CallTIRRewrite(), T.StaticPlanBlockMemory()]


def passes_after_planning(pipeline: RelaxPipeline | str = RelaxPipeline.FUSED,
                          target: Any = None) -> list[Any]:
    """The rest of that pipeline."""
    from tvm.relax import transform as T  # noqa: N812

    if pipeline_of(pipeline) is RelaxPipeline.FUSED:
        return _fused_passes(_target(target))[1]
    return [T.RewriteCUDAGraph(), T.LowerAllocTensor(), T.KillAfterLastUse(),
            T.LowerRuntimeBuiltin(), T.ComputePrimValue(), T.VMShapeLower(),
            T.AttachGlobalSymbol()]


def tvm_pipeline(pipeline: RelaxPipeline | str, target: Any) -> Any:
    """The pipeline as TVM itself runs it, for `tvm.compile(..., relax_pipeline=...)`."""
    from tvm import relax

    if pipeline_of(pipeline) is RelaxPipeline.FUSED:
        return relax.get_default_pipeline(_target(target))
    return relax.pipeline.default_build_pipeline()


def arena_pipeline(arenas: list[FunctionArena] | None = None,
                   time_limit: float | None = 10.0, fixed: FixedPlans | None = None,
                   pipeline: RelaxPipeline | str = RelaxPipeline.FUSED) -> Any:
    """TVM 0.27's Relax build pipeline (`pipeline`: fused, TVM's
    `get_default_pipeline(target)`, or unfused, its `default_build_pipeline`) with
    memplan's arena after StaticPlanBlockMemory; pass as `tvm.compile(...,
    relax_pipeline=...)`. `fixed`: apply these plans (what `memplan plan MODEL --runtime
    tvm -o PLAN.json` wrote, for the same pipeline) instead of planning."""
    import tvm

    chosen = pipeline_of(pipeline)

    @tvm.transform.module_pass(opt_level=0, name="memplan.ArenaPipeline")
    def _pipeline(mod: Any, _ctx: Any) -> Any:
        target = _target()
        with target:
            return tvm.transform.Sequential([*passes_through_planning(chosen, target),
                                             arena_pass(arenas, time_limit, fixed),
                                             *passes_after_planning(chosen, target)])(mod)

    return _pipeline
