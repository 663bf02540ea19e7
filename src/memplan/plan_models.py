"""Plan a whole model's tensor arena: `memplan plan MODEL` (one function per format).

Wires the layers: a front end (`models/`) reads the tensors and lifetimes, the arena
planner (`place/arena.py`) packs them, the plan is written back in the runtime's own
form where the runtime takes one (TFLM's `OfflineMemoryAllocation`), read back and
checked (`check/offline_plan.py`). `PLANNERS` maps a file suffix to its planner; a new
format adds one row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .check.offline_plan import offline_plan_problems
from .errors import InputError
from .files import refuse_overwriting_input
from .models import tflite as tfl
from .models.arena import ArenaTensor
from .place.arena import ArenaPlan, plan_arena, split_pools, tflm_greedy
from .place.policy import Placement
from .run.tflm import ArenaUse
from .targets import Target


class PlanCheckError(Exception):
    """The plan read back from the written file is unsound (a memplan bug)."""


@dataclass(frozen=True)
class PoolSplit:
    """Where each tensor goes when the target's first pool cannot hold the whole arena."""

    placement: Placement
    groups: tuple[tuple[ArenaTensor, ...], ...]  # in the order of placement.decisions


@dataclass(frozen=True)
class ModelPlan:
    path: str
    format: str  # "tflite" | "onnx"
    tensors: tuple[ArenaTensor, ...]
    plan: ArenaPlan  # memplan's plan (in-place ops share bytes)
    alignment: int
    runtime: ArenaPlan | None = None  # the runtime's own planner on its own view, if known
    runtime_bound: int | None = None  # lower bound of the runtime's view (nothing shared)
    target: Target | None = None
    split: PoolSplit | None = None
    output: str | None = None  # where the model with the plan is to be written
    model_bytes: bytes | None = None  # that model: the input with the plan as its metadata
    offsets: tuple[int, ...] = ()  # as written: one per tensor of the model, -1 = runtime's
    notes: tuple[str, ...] = field(default_factory=tuple)
    details: dict[int, dict] = field(default_factory=dict)  # per tensor key: dtype, shape...


def plan_tflite(path: str, *, target: Target | None = None, output: str | None = None,
                time_limit: float | None = 10.0) -> ModelPlan:
    """Plan TFLM's arena for a `.tflite`; with `output`, make the copy of the model that
    carries the plan (read back and validated; the caller writes it)."""
    data = tfl.read_model_bytes(path)
    model = tfl.parse_tflite(data, path)
    if any(op.name == "CUSTOM:ethos-u" for op in model.ops):
        # The NPU command stream addresses the input and output inside Vela's scratch area,
        # at the offsets of Vela's own plan: another plan would break it.
        raise InputError(path, "compiled by Vela (an ethos-u operator): its command stream "
                         "relies on Vela's own arena plan; plan the model before Vela")
    alignment = _alignment(target, tfl.ALIGNMENT)
    tensors = model.arena_tensors()
    ours = plan_arena(tensors, alignment=alignment, time_limit=time_limit)
    # A search stopped by its time limit may end above TFLM's own greedy order on the
    # same tensors; the written plan is never worse than the runtime would do alone.
    greedy = tflm_greedy(tensors, alignment)
    if greedy.peak < ours.peak:
        ours = greedy
    theirs_view = model.arena_tensors(in_place=False)
    theirs = tflm_greedy(theirs_view, tfl.ALIGNMENT)
    offsets = [tfl.ONLINE] * len(model.tensors)
    for key, off in ours.offsets.items():
        if key < len(offsets):  # the rest are scratch buffers: TFLM places them itself
            offsets[key] = off

    notes = [
        "TFLM plans variables and kernel scratch buffers itself, around this plan; its "
        "persistent data sits at the arena's other end",
    ]
    if model.scratch:
        notes.append(f"{len(model.scratch)} scratch buffer(s) of TFLM's reference kernels "
                     "have room reserved in the plan (optimized kernels may ask for more)")
    if model.shares:
        notes.append(f"{len(model.shares)} RESHAPE output(s) share their input's bytes "
                     "(TFLM's reshape copies nothing when the two addresses are equal)")
    notes += _tflm_layouts(target, ours.peak)
    if model.offline_plan is not None:
        notes.append("the input already had an OfflineMemoryAllocation plan; it is replaced")

    new = None
    if output is not None:
        refuse_overwriting_input(output, [path])
        new = tfl.with_offline_plan(data, offsets, path)
        _check_written(new, path, output, offsets)

    details = {t.key: {"dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes}
               for t in model.planned()}
    return ModelPlan(path, "tflite", tuple(tensors), ours, alignment, theirs,
                     theirs.lower_bound, target, _split(tensors, target, ours.peak), output,
                     new, tuple(offsets), tuple(notes), details)


@dataclass(frozen=True)
class RuntimeCheck:
    """Both models run under TFLM's interpreter on the same random inputs."""

    original_arena: int  # smallest arena in which TFLM runs the input model
    planned_arena: int  # ... and the model with memplan's plan
    original_use: ArenaUse  # what TFLM's recording allocator reports in those arenas
    planned_use: ArenaUse
    identical: bool  # outputs bit for bit

    @property
    def no_larger(self) -> bool:
        return self.planned_arena <= self.original_arena


def check_tflite_run(plan: ModelPlan, seed: int = 0) -> RuntimeCheck:
    """Run the input and the written model under TFLM (tflite-micro): the smallest arena
    each needs, and their outputs on the same inputs."""
    from .run import tflm

    if plan.model_bytes is None:
        raise ValueError("check_tflite_run needs the model made with the plan (output=...)")
    # The baseline is TFLM's own planner, not a plan the input may already carry.
    original = tfl.without_offline_plan(tfl.read_model_bytes(plan.path), plan.path)
    planned = plan.model_bytes
    inputs = tflm.random_inputs(original, seed)
    sizes = [tflm.smallest_arena(data, inputs) for data in (original, planned)]
    runs = [tflm.run(data, size, inputs) for data, size in zip((original, planned), sizes,
                                                                strict=True)]
    identical = (all(r.ok for r in runs) and len(runs[0].outputs) == len(runs[1].outputs)
                 and all(a.dtype == b.dtype and a.shape == b.shape and (a == b).all()
                         for a, b in zip(runs[0].outputs, runs[1].outputs, strict=True)))
    uses = [tflm.arena_use(data, size, inputs) for data, size in zip((original, planned), sizes,
                                                                      strict=True)]
    return RuntimeCheck(sizes[0], sizes[1], uses[0], uses[1], identical)


def _check_written(new: bytes, path: str, output: str, offsets: list[int]) -> None:
    """Read the written model back as TFLM would and check its plan on its own."""
    back = tfl.parse_tflite(new, output)
    if back.offline_plan != tuple(offsets):
        raise PlanCheckError(f"{output}: the plan read back differs from the plan written")
    found = offline_plan_problems(back.arena_tensors(), dict(enumerate(back.offline_plan)),
                                  tfl.ALIGNMENT)
    if found:
        raise PlanCheckError(f"{path}: the written plan is unsound: {found[0]}")


def _tflm_layouts(target: Target | None, head: int) -> list[str]:
    """The arena layouts TFLM can take on a target with several pools: one arena, or a
    non-persistent arena (the planned head) apart from the persistent one
    (`MicroAllocator::Create(persistent, non_persistent)`); never tensors split across
    memories (tflite-micro issue 2627)."""
    if target is None or len(target.pools) < 2:
        return []
    fast, slow = target.pools[0], target.pools[1]
    if head <= fast.capacity:
        return [f"TFLM layouts: one arena in {fast.name}, or the non-persistent arena "
                f"({head} B, this plan) in {fast.name} and the persistent arena in "
                f"{slow.name} (MicroAllocator::Create with two arenas)"]
    return [f"the planned tensors need {head} B, more than {fast.name} ({fast.capacity} B): "
            f"TFLM's non-persistent arena must go in {slow.name}; the split of tensors "
            "across pools (--json) needs an allocator TFLM does not have"]


def _alignment(target: Target | None, runtime_alignment: int) -> int:
    if target is None or not target.pools:
        return runtime_alignment
    return max(runtime_alignment, target.pools[0].alignment)


def _split(tensors: list[ArenaTensor], target: Target | None, peak: int) -> PoolSplit | None:
    """Only when the arena does not fit the target's first pool."""
    if target is None or len(target.pools) < 2 or peak <= target.pools[0].capacity:
        return None
    placement, groups = split_pools(tensors, target)
    return PoolSplit(placement, tuple(tuple(g) for g in groups))


def plan_onnx(path: str, *, target: Target | None = None, output: str | None = None,
              time_limit: float | None = 10.0, dims: dict[str, int] | None = None) -> ModelPlan:
    """Plan one arena for an ONNX graph's activations: a report (nothing is written)."""
    from .models import onnx as onnx_model

    if output is not None:
        raise InputError(output, "ONNX Runtime takes no plan from outside: nothing to write "
                         "(drop -o)")
    model = onnx_model.load_onnx(path, dims)
    tensors = model.arena_tensors()
    alignment = _alignment(target, onnx_model.ALIGNMENT)
    ours = plan_arena(tensors, alignment=alignment, time_limit=time_limit)
    notes = ["report only: ONNX Runtime takes no outside plan",
             f"sizes rounded up to {onnx_model.ALIGNMENT} bytes (ONNX Runtime's CPU alignment)",
             *model.notes]
    details = {t.key: {"dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes}
               for t in model.tensors}
    return ModelPlan(path, "onnx", tuple(tensors), ours, alignment, None, None, target,
                     _split(tensors, target, ours.peak), notes=tuple(notes), details=details)


def plan_model(path: str, **options) -> ModelPlan:
    suffix = Path(path).suffix.lower()
    planner = PLANNERS.get(suffix)
    if planner is None:
        known = ", ".join(sorted(PLANNERS))
        raise InputError(path, f"unknown model format '{suffix}' (known: {known})")
    return planner(path, **options)


PLANNERS: dict[str, Callable[..., ModelPlan]] = {
    ".tflite": plan_tflite,
    ".onnx": plan_onnx,
}
