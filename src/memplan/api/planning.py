"""`plan`: a whole model's arenas, memplan's plan beside the runtime's own, optionally
written in the runtime's form and proven by running both on the runtime."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..targets import Target, target_of

if TYPE_CHECKING:
    from ..pack import PlanStatus
    from ..plan.contract import RunCheck
    from ..plan.driver import ArenaPlan, ModelPlan


@dataclass(frozen=True)
class PlannedArena:
    """One arena: memplan's size against the bound and the runtime's own planner."""

    name: str
    lower_bound: int  # no plan of this schedule is smaller
    memplan: int  # bytes memplan's plan takes
    runtime: int | None  # bytes the runtime's own planner takes (None: it has none here)
    status: PlanStatus  # how far memplan's plan is known to be from the best
    plan: ArenaPlan  # the offsets, buffers and packing behind these figures


@dataclass(frozen=True)
class PlanResult:
    model: ModelPlan  # everything the driver computed (what `memplan plan` reports)
    arenas: tuple[PlannedArena, ...]
    # Set when `check_run`: both models run on the runtime (None when the runtime's own
    # output was kept, `model.own`: nothing of memplan's to run).
    check: RunCheck | None = None
    written: bytes | None = None  # the model in the runtime's form, when it was made

    @property
    def total(self) -> int:
        return self.model.total

    @property
    def lower_bound(self) -> int:
        return self.model.lower_bound

    @property
    def floor(self) -> int | None:
        """No operator order is below it (None: the front end lists no operators)."""
        return self.model.floor


def plan(path: str | Path, *, runtime: str | None = None, target: Target | str | None = None,
         dims: Mapping[str, int] | None = None, time_limit: float | None = 10.0,
         write: bool = False, check_run: bool = False, seed: int = 0,
         rewrite: str | None = None, max_recompute: float = 0.2,
         dim_bounds: Mapping[str, int] | None = None, **runtime_options: Any) -> PlanResult:
    """Plan the model at `path` for its runtime (by suffix, or `runtime`: see
    `memplan.plan.names()`). `write`: make the model in the runtime's form
    (`PlanResult.written`; nothing is written to disk here); `check_run`: run the original
    and the planned model on the runtime in a child process and compare (implies
    `write`). `dim_bounds`: as `--dim NAME=..N`, one plan for every size up to N (IREE).
    `rewrite`: as `memplan plan --rewrite` ("reorder,inplace", "all"; what each
    did is `PlanResult.model.rewrites`). `runtime_options` are the runtime's own
    (`kernels="cmsis-nn"`, `core=...` for TFLM). A missing runtime package raises
    `memplan.MissingExtra`; bad input, `memplan.errors.InputError`; a failed run,
    `memplan.plan.driver.RunFailure`."""
    from ..errors import InputError
    from ..plan import entry_for, options_of
    from ..plan.contract import ReadOptions
    from ..plan.driver import check_run as run_both
    from ..plan.driver import plan_model

    path = str(path)
    entry = entry_for(path, runtime)
    declared = {o.dest for o in options_of(entry)}
    unknown = sorted(set(runtime_options) - declared)
    if unknown:
        raise InputError(path, f"unknown option(s) {', '.join(unknown)} for the {entry.name} "
                         f"runtime (it takes: {', '.join(sorted(declared)) or 'none'})")
    rewrites = None
    if rewrite is not None:
        from ..plan.rewrites import parse

        rewrites = parse(rewrite, entry.name, max_recompute)
    options = ReadOptions(None if target is None else target_of(target), dict(dims or {}),
                          write or check_run, time_limit, dict(runtime_options),
                          rewrites=rewrites, dim_bounds=dict(dim_bounds or {}))
    fe, model = plan_model(path, runtime=entry.name, options=options)
    # The runtime's own output kept (`model.own`): nothing of memplan's to run.
    check = run_both(fe, model, seed) if check_run and model.own is None else None
    arenas = tuple(PlannedArena(a.name, a.lower_bound, a.size, a.runtime, a.proof, a)
                   for a in model.arenas)
    return PlanResult(model, arenas, check, model.written)
