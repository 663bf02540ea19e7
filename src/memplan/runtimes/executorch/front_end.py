"""torch.export programs (.pt2) lowered by ExecuTorch: planned inside ExecuTorch's own
`MemoryPlanningPass` (its planning hook calls the driver's planner), written as the
`.pte` that lowering emits, run by `executorch.runtime`.

One lowering per command: the hook computes ExecuTorch's own plan (`greedy`, or
`banked_greedy` with a target's pools) on the same specs as the runtime's plan. Only
`--check-run` lowers a second time, with ExecuTorch's planner, for the program the
written one is compared against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ...errors import BudgetError, InputError
from ...plan.contract import (
    ArenaPlanner,
    Measured,
    ModelView,
    Offsets,
    Progress,
    ReadOptions,
    RunCheck,
    RuntimeRefused,
    Step,
    no_step,
)
from ..pt2 import quiet_torch, specialise

quiet_torch()  # before ExecuTorch's import, which logs through torch's logger
# ExecuTorch itself: a missing one is said at load, naming memplan[executorch].
from . import planning as et_planning  # noqa: E402
from . import program as et_program  # noqa: E402

EXECUTORCH_ALIGNMENT = 16

# ExecuTorch's ScalarType codes (c10's numbering) for the dtypes a model input may have.
_SCALAR_TYPES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
                 6: "float32", 7: "float64", 11: "bool", 15: "bfloat16"}


@dataclass(frozen=True)
class _Source:
    exported: Any  # torch.export.ExportedProgram
    pools: tuple  # models.executorch.ArenaPool, fastest first; () = one arena
    algorithm: Any = None  # the MemplanAlgorithm after lowering
    step: Step = no_step  # the caller's progress line (ReadOptions.step)
    # The program as read, when `exported` is a rewrite of it (`--rewrite`): what
    # --check-run runs the written program against.
    given: Any = None
    # Lowered with ExecuTorch's constant propagation (`--rewrite`): weight-only subgraphs,
    # such as the transpose edge lowering puts before a linear layer's addmm, become
    # constants instead of planned tensors that would set the bound by themselves.
    fold: bool = False
    # Outputs of elementwise kernels written over an input dying there (`--rewrite
    # inplace`, `inplace.py`): decided in the planning hook, on the graph ExecuTorch plans.
    in_place: bool = False
    # Sliced tensors released in parts (`parts.py`): set by `--rewrite patches`, whose
    # stage input is read band by band.
    parts: bool = False


class ExecutorchFrontEnd:
    name: ClassVar[str] = "executorch"
    suffixes: ClassVar[tuple[str, ...]] = (".pt2",)
    runtime: ClassVar[str] = "executorch.runtime"
    extra: ClassVar[str] = "executorch"
    writes: ClassVar[str | None] = ".pte"
    splits: ClassVar[bool] = True  # a program may have several arenas (mem_ids)
    plans_in_hook: ClassVar[bool] = True
    takes_dims: ClassVar[bool] = True  # torch.export's symbols, specialised before lowering

    def c_header(self, plan, header_path, check=None):  # noqa: ANN001, ANN201
        """One array per planned memory id, aligned at least as ExecuTorch aligns its
        planned buffers (16 bytes, `MemoryAllocator`'s default)."""
        from ...report.c_header import plan_header

        return plan_header(plan, header_path, check, alignment=EXECUTORCH_ALIGNMENT)

    def read(self, path: str, options: ReadOptions) -> ModelView:
        pools = (et_planning.pools_from_target(options.target) if options.target is not None
                 else ())
        options.step(f"reading {path}")
        return ModelView(path, self.name, (),
                         source=_Source(specialise(path, et_program.load_exported(path),
                                                   dict(options.dims)), pools,
                                        step=options.step,
                                        fold=bool(options.rewrites and options.rewrites.kinds)))

    def lower(self, view: ModelView, planner: ArenaPlanner) -> tuple[ModelView, bytes]:
        source: _Source = view.source
        planning = et_planning.planning_pass(pools=source.pools, planner=planner,
                                             in_place=source.in_place, parts=source.parts)
        algo = planning.memory_planning_algo.algo_list[0]
        source.step("lowering with ExecuTorch (to_edge, to_executorch; memplan plans in its hook)")
        try:
            lowered = et_program.lower_with(source.exported, et_program.Planner.MEMPLAN,
                                            planning, fold_constants=source.fold)
        except et_planning.PlanningError as err:
            raise BudgetError(f"{view.path}: {err}") from None
        top = algo.calls - 1
        arenas = tuple(arena for call, arena in algo.views if call == top)
        details = {key: {"op": arena_buffer.name, "dtype": str(spec.dtype).removeprefix(
                         "torch."), "shape": list(spec.shape), "bytes": spec.allocated_memory}
                   for arena in arenas for arena_buffer in arena.buffers
                   for key, spec in [(arena_buffer.key, algo.specs[arena_buffer.key])]}
        aliased = sum(t.aliased for t in lowered.tensors)
        notes = []
        dynamic = et_program.dynamic_dims(source.exported)
        if dynamic:
            notes.append("dynamic shapes planned at their upper bounds (as ExecuTorch does): "
                         + ", ".join(f"{d.input} dim {d.dim} ({d.symbol} in [{d.lower}, "
                                     f"{'unbounded' if d.upper is None else d.upper}])"
                                     for d in dynamic)
                         + "; --check-run runs them at the upper bound")
        if aliased:
            notes.append(f"{aliased} tensor(s) live inside another's storage (ExecuTorch's "
                         "storage_base): placed with it, not packed")
        refused = next((a.runtime_error for a in arenas if a.runtime_error), None)
        if refused:
            notes.append(f"ExecuTorch's own planner refused the model: {refused}")
        if algo.calls > 1:
            notes.append(f"{algo.calls - 1} control-flow submodule(s) planned first; their "
                         "bytes are reserved at the bottom of the arenas shown")
        if algo.shared:
            notes.append(f"{len(algo.shared)} operator(s) write their output over an input "
                         "that dies there (--rewrite inplace): "
                         + ", ".join(f"{d.kernel.removesuffix('.out')} {d.node}"
                                     for d in algo.shared[:3])
                         + (", ..." if len(algo.shared) > 3 else ""))
        if algo.released:
            notes.append("; ".join(
                f"the {'x'.join(map(str, spec.shape))} {str(spec.dtype).removeprefix('torch.')} "
                f"tensor ({spec.allocated_memory:,} B) released in {len(parts)} parts, as the "
                "slices reading it finish" for spec, parts in algo.released.items()))
        if source.fold:
            notes.append("lowered with ExecuTorch's constant propagation (--rewrite): "
                         "weight-only subgraphs (a linear layer's transposed weight) are "
                         "constants, not planned tensors; --check-run compares with the "
                         "program as given, lowered with ExecuTorch's own planner and the "
                         "same constant propagation")
        planned = ModelView(view.path, self.name, arenas, tuple(notes), details,
                            replace(source, algorithm=algo), algo.operators)
        return planned, lowered.program

    def write(self, view: ModelView, offsets: Offsets) -> bytes | None:
        raise NotImplementedError("ExecuTorch writes the program as it lowers it (lower)")

    def read_back(self, view: ModelView, data: bytes) -> Offsets:
        """The offsets ExecuTorch serialized: those its emitter took from the lowered
        graph's specs (ExecuTorch's own verifier checked them after lowering)."""
        algo = view.source.algorithm
        back: dict[str, dict] = {}
        for key, spec in algo.specs.items():
            back.setdefault(algo.arena_name(spec.mem_id), {})[key] = spec.mem_offset
        return back

    def original(self, view: ModelView) -> bytes:
        """The program lowered with ExecuTorch's own planner (the second lowering)."""
        refused = next((a.runtime_error for a in view.arenas if a.runtime_error), None)
        if refused:
            raise InputError(view.path, f"--check-run compares with ExecuTorch's own plan, "
                             f"which refused the model: {refused}")
        source: _Source = view.source
        planner = et_program.Planner.BANKED_GREEDY if source.pools else et_program.Planner.GREEDY
        source.step("lowering again with ExecuTorch's own planner, for --check-run")
        given = source.exported if source.given is None else source.given
        # With the same constant propagation as memplan's lowering: folding is ExecuTorch's
        # own pass, and on some programs (a small Llama) it alone changes output bytes
        # against an unfolded lowering, whatever memplan does; the check proves memplan's
        # rewrites and offsets, not that pass.
        return et_program.lower(given, planner, pools=source.pools,
                                fold_constants=source.fold).program

    def run(self, original: bytes, written: bytes, seed: int, progress: Progress) -> RunCheck:
        import torch
        from executorch.runtime import Runtime

        runtime = Runtime.get()
        outputs = []
        inputs = None
        for which, program in (("original", original), ("planned", written)):
            progress(which, "loading the program")
            try:
                method = runtime.load_program(program).load_method("forward")
            except Exception as err:  # the runtime's loader refuses in its own words
                raise RuntimeRefused(which, str(err).strip().splitlines()[0][:200]) from None
            if inputs is None:
                inputs = _random_inputs(method.metadata, seed, torch)
            progress(which, "running forward")
            outputs.append([t.clone() if isinstance(t, torch.Tensor) else t
                            for t in method.execute(inputs)])
        return RunCheck(et_program.identical(*outputs), Measured(None), Measured(None),
                        self.runtime)


def _random_inputs(meta: Any, seed: int, torch: Any) -> list:
    """Random inputs of the shapes and dtypes the program declares."""
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for i in range(meta.num_inputs()):
        info = meta.input_tensor_meta(i)
        shape = tuple(info.sizes())
        dtype = getattr(torch, _SCALAR_TYPES.get(int(info.dtype()), "float32"))
        if dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=generator).to(dtype))
        elif dtype == torch.bool:
            inputs.append(torch.randint(0, 2, shape, generator=generator).bool())
        else:  # token ids and indices: small non-negative values stay in range
            inputs.append(torch.randint(0, 8, shape, generator=generator, dtype=dtype))
    return inputs


FRONT_END = ExecutorchFrontEnd()


def memplan_planner(pools: tuple = (), time_limit: float | None = 10.0) -> ArenaPlanner:
    """The model driver's planner for the arenas of one lowering (`pools`: the
    `models.executorch.ArenaPool`s, fastest first; none: one arena)."""
    from ...plan.driver import plan_arena
    from .planning import pools_target

    target = pools_target(pools)
    return lambda arena: plan_arena(arena, target=target, splits=True, time_limit=time_limit)


def planning_pass(*, time_limit: float | None = 10.0, pools: tuple = (), **pass_options: Any):
    """ExecuTorch's `MemoryPlanningPass` planned by memplan, for a user's own lowering:
    `edge.to_executorch(ExecutorchBackendConfig(memory_planning_pass=planning_pass()))`.
    Options go to the pass (`alloc_graph_input`, `alignment`, ...); its algorithm,
    `.memory_planning_algo.algo_list[0]`, tells what it did (`arenas`, `spills`)."""
    from . import planning as hook

    return hook.planning_pass(time_limit=time_limit, pools=pools,
                              planner=memplan_planner(tuple(pools), time_limit), **pass_options)

