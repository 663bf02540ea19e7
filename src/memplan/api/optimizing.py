"""`opt`: a pipeline of rewrites, then the checks on what it made.

opt never hands over what `check` rejects: whatever the pipeline, the result is checked as
`memplan check` would check it for the same target, and what check rejects is an error of
the run (unless a rewrite already reported an error at the same place, saying why).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..check import CheckContext, run_checks
from ..check.budgets import Budget
from ..diagnostic import Diagnostic, count_errors
from ..ir import MlirChunk, clone_chunks
from ..ir.print import print_chunks
from ..runtimes.iree.memref_harness import Comparison, check_equivalent, runnable_calls
from ..runtimes.iree.state_compare import (
    StateComparison,
    compare_steps,
    parameter_archives,
    step_inputs,
)
from ..targets import Target
from ..targets.applied import LimitOverrides
from ..transforms.passes import (
    DEFAULT_PIPELINE,
    ModulePass,
    PassContext,
    PlaceBuffers,
    parse_pipeline,
    run_pipeline,
)
from ..transforms.rewrite_report import RewriteReport
from .checking import check_context
from .common import Assumptions, checked_assumptions, target_of


@dataclass(frozen=True)
class OptResult:
    chunks: Sequence[MlirChunk]  # rewritten in place
    originals: Sequence[MlirChunk]  # copies of the input before the rewrites, when kept
    rewrites: RewriteReport  # what the passes rewrote and refused
    context: CheckContext  # the facts of the result, as `check` reads them
    rejected: list[Diagnostic]  # what `check` rejects that no rewrite already said

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return list(self.rewrites.diagnostics) + self.rejected

    @property
    def frames(self) -> list[Budget]:
        return self.context.frames

    @property
    def errors(self) -> int:
        return count_errors(self.diagnostics)


def opt(chunks: Sequence[MlirChunk], target: Target | str,
        passes: str | Sequence[ModulePass] | None = None, *,
        place: bool = False, path: str = "", assumptions: Assumptions = (),
        overrides: LimitOverrides | None = None, keep_originals: bool = False) -> OptResult:
    """Run `passes` (`a,b,c` or the passes; default `DEFAULT_PIPELINE`) on every chunk in
    place, then check the result. `place`: end with the place pass if the pipeline has none;
    `keep_originals`: keep a copy of the input (for `compare_runs`, `compare_states`)."""
    target = target_of(target)
    pipeline = parse_pipeline(passes or ",".join(DEFAULT_PIPELINE)) \
        if passes is None or isinstance(passes, str) else list(passes)
    if place and not any(isinstance(p, PlaceBuffers) for p in pipeline):
        pipeline.append(PlaceBuffers())
    assumptions = checked_assumptions(assumptions, chunks)
    originals = clone_chunks(chunks) if keep_originals else []
    rewrites = run_pipeline(chunks, pipeline, PassContext(target, tuple(assumptions)))
    context = check_context(chunks, target, path, assumptions, overrides)
    return OptResult(chunks, originals, rewrites, context,
                     still_rejected(rewrites.diagnostics, context))


def still_rejected(reported: Sequence[Diagnostic], context: CheckContext) -> list[Diagnostic]:
    """What `memplan check` rejects in the rewritten program where opt has not already said
    why (an error at the same place): opt never hands over silently what check refuses."""
    said = {(d.loc.path, d.loc.line) for d in reported if d.is_error and d.loc is not None}
    return [d for d in run_checks(context)
            if d.is_error and (d.loc is None or (d.loc.path, d.loc.line) not in said)]


@dataclass(frozen=True)
class RunComparisons:
    skipped: list[str]  # why a public function was not run
    comparisons: list[Comparison]

    @property
    def differs(self) -> bool:
        return not all(c.identical for c in self.comparisons)


def compare_runs(originals: Sequence[MlirChunk], rewritten: str,
                 values: Mapping[str, int]) -> RunComparisons:
    """Compile the input and `rewritten` (its text) with IREE (llvm-cpu), run every public
    function on the same random buffers (`values`: integer arguments by name)."""
    calls, skipped = runnable_calls(originals, values)
    if not calls:
        return RunComparisons(skipped, [])
    return RunComparisons(skipped, check_equivalent(print_chunks(originals), rewritten, calls,
                                                    name=str(originals[0].path)))


def compare_states(originals: Sequence[MlirChunk], chunks: Sequence[MlirChunk], function: str,
                   steps: int, *, path: str = "", inputs: str | None = None,
                   positions: Sequence[str] = (), parameters: Sequence[str] = ()
                   ) -> Iterator[StateComparison]:
    """Before and after, chunk by chunk, each called `steps` times in one IREE runtime:
    outputs and every mutable global compared (`inputs`: an .npz of step inputs;
    `positions`: `ARG[=START]` arguments holding the step number; `parameters`:
    `[SCOPE=]FILE.irpa` archives)."""
    given = step_inputs(inputs, positions)
    archives = parameter_archives(parameters)
    for before, after in zip(originals, chunks, strict=True):
        yield compare_steps(before.module, after.module, function, steps, path=path,
                            given=given, parameters=archives)
