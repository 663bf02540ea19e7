"""The library half of `memplan plan MODEL.mlir --runtime iree`: IREE's transient arenas,
packed by memplan and written back into IREE's own compile.

`plan_iree_program` compiles the program to the point before IREE lays out its
transient arenas (`iree_stages.before_layout`), reads every `stream.resource.pack`
(`iree_packs`), packs each with memplan's exact solver, reproduces IREE's own layout
(`iree_layout`) and checks the reproduction against the offsets IREE itself emits,
writes memplan's plan as the packs' results, and lets IREE finish the compile.
A plan is never worse than IREE's: a pack where memplan finds no lower arena keeps
IREE's layout.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import InputError
from ...pack import lower_bound
from ...pack.planner import plan_exact
from ...pack.status import SolveStatus
from . import packs as iree_packs
from . import stages as iree_stages
from .compare import RunComparison, RunInput, RunParameter, compare_vmfbs
from .entry import EntryPoint, entry_points, parameters
from .layout import Layout, PackSlice, align, iree_layout, pack_problem
from .packs import Pack, TransientAlloca
from .stages import LLVM_CPU, Target

# Exact search per arena; a pack of a few hundred slices is proven at the bound in well
# under a second, the limit keeps a pathological one from stalling a compile.
SEARCH_SECONDS = 20.0


class ArenaOutcome(enum.Enum):
    AT_BOUND = "at the bound"
    OPTIMAL = "proven optimal"
    BEST_FOUND = "best found"  # the search ran out of time above the bound
    KEPT_IREE = "IREE's layout kept"  # memplan found nothing lower
    REFUSED = "refused"  # a slice has no proven upper bound: left to IREE


@dataclass(frozen=True)
class ArenaPlan:
    pack: Pack
    outcome: ArenaOutcome
    bound: int | None  # max live bytes of the slices (None: refused)
    iree: Layout | None  # IREE's own layout of the static slices, reproduced
    memplan: Layout | None  # what is written (None: refused)
    reason: str | None = None  # why refused
    planned_at_bound: int = 0  # dynamic slices planned at their proven upper bound

    @property
    def iree_total(self) -> int | None:
        return self.iree.total if self.iree is not None and not self.dynamic else None

    @property
    def dynamic(self) -> bool:
        return any(s.size is None for s in self.pack.slices)


@dataclass(frozen=True)
class InvocationPeak:
    function: str
    iree: int | None  # the most transient bytes allocated at once (None: runtime-sized)
    memplan: int | None


@dataclass(frozen=True)
class IreeProgramPlan:
    name: str
    target: Target
    arenas: tuple[ArenaPlan, ...]
    peaks: tuple[InvocationPeak, ...]
    iree_reproduced: bool  # IREE's own pass gave every static pack the layout reproduced
    vmfb: bytes
    entries: tuple[EntryPoint, ...] | str  # as IreeProgram.entries


def plan_arena(pack: Pack, seconds: float = SEARCH_SECONDS) -> ArenaPlan:
    unbounded = [s for s in pack.slices if s.planned_size is None]
    iree = _iree_static_layout(pack)
    if unbounded:
        return ArenaPlan(pack, ArenaOutcome.REFUSED, None, iree, None,
                         reason=f"slice without a proven size bound ({unbounded[0].why_unbounded})")
    sizes = [s.planned_size for s in pack.slices]
    problem = pack_problem(sizes, pack.slices, pack.config)  # type: ignore[arg-type]
    bound = lower_bound(problem)
    result = plan_exact(problem, minimize=True, time_limit=seconds)
    total = align(result.peak, pack.config.range_alignment)
    layout = Layout(result.solution.offsets, total)
    dynamic = sum(s.size is None for s in pack.slices)
    if not dynamic and iree is not None and iree.total <= total:
        return ArenaPlan(pack, ArenaOutcome.KEPT_IREE if iree.total < total else
                         _outcome(total, bound, result.status), bound, iree, iree,
                         planned_at_bound=dynamic)
    return ArenaPlan(pack, _outcome(total, bound, result.status), bound, iree, layout,
                     planned_at_bound=dynamic)


def _outcome(total: int, bound: int, status: SolveStatus | None) -> ArenaOutcome:
    if total <= bound:
        return ArenaOutcome.AT_BOUND
    return ArenaOutcome.OPTIMAL if status is SolveStatus.OPTIMAL else ArenaOutcome.BEST_FOUND


def invocation_peaks(allocas: Sequence[TransientAlloca],
                     totals: Mapping[tuple[str, int], int | None]) -> list[InvocationPeak]:
    """The most transient bytes allocated at once in each function, under `totals` (each
    pack's arena length, by function and position)."""
    by_function: dict[str, list[tuple[int, int, int | None]]] = {}
    for a in allocas:
        size = totals.get((a.function, a.pack)) if a.pack is not None else a.size
        by_function.setdefault(a.function, []).append((a.start, a.end, size))
    peaks = []
    for function, lives in by_function.items():
        if any(size is None for _, _, size in lives):
            peaks.append(InvocationPeak(function, None, None))
            continue
        events = sorted([(s, size) for s, _, size in lives] + [(e, -size) for _, e, size in lives],
                        key=lambda e: (e[0], e[1]))
        live = peak = 0
        for _, delta in events:
            live += delta  # type: ignore[operator]
            peak = max(peak, live)
        peaks.append(InvocationPeak(function, peak, None))
    return peaks


@dataclass
class IreeProgram:
    """A program compiled up to IREE's layout of its transient arenas."""

    name: str
    target: Target
    module: Any  # ir.Module before `iree-stream-layout-slices`, every function's packs intact
    packs: tuple[Pack, ...]
    iree: tuple[Layout | None, ...]  # IREE's layout of each pack's static slices, reproduced
    iree_reproduced: bool  # IREE's own pass chose exactly those offsets
    # What a run calls, with its inputs; a str: why the program cannot be run with random
    # inputs (a runtime-shaped input), which does not keep it from being planned.
    entries: tuple[EntryPoint, ...] | str
    allocas: tuple[TransientAlloca, ...]


def read_program(source: bytes, name: str, target: Target = LLVM_CPU) -> IreeProgram:
    from iree.compiler import ir

    dumps = iree_stages.before_layout(source, name, target)
    module = iree_packs.assemble(dumps, ir.Context(), name)
    packs = tuple(iree_packs.read_packs(module))
    layouts = tuple(_iree_static_layout(p) for p in packs)
    reproduced = _check_reproduction(module, packs, layouts, name)
    try:
        entries: tuple[EntryPoint, ...] | str = tuple(entry_points(module, name))
    except InputError as err:
        entries = err.reason
    return IreeProgram(name, target, module, packs, layouts, reproduced, entries,
                       tuple(iree_packs.transient_allocas(module)))


def _iree_static_layout(pack: Pack) -> Layout | None:
    static = [s for s in pack.slices if s.size is not None]
    return iree_layout([s.size for s in static], static, pack.config) if static else None


def write_program(program: IreeProgram, layouts: Mapping[int, Layout]) -> bytes:
    """The `.vmfb` with each pack `layouts` names (by position) laid out as given; the
    others are left to IREE. The program's module is not changed."""
    copy = program.module.operation.clone()
    try:
        ops = [op for _, op in iree_packs.pack_ops(copy)]
        for index, layout in layouts.items():
            iree_packs.write_plan(ops[index], layout.offsets, layout.total)
        planned = copy.get_asm(enable_debug_info=True)
    finally:
        copy.erase()
    return iree_stages.finish(planned, program.name, program.target)


def plan_iree_program(source: bytes, name: str, target: Target = LLVM_CPU,
                      seconds: float = SEARCH_SECONDS,
                      planner: Callable[[Pack], ArenaPlan] | None = None) -> IreeProgramPlan:
    """Plan every arena with memplan (or `planner`: a test writes a wrong plan with it to
    see the run check fail) and compile the program with the plans written."""
    program = read_program(source, name, target)
    arenas = tuple((planner or (lambda p: plan_arena(p, seconds)))(p) for p in program.packs)
    iree_totals = {(a.pack.function, a.pack.index): a.iree_total for a in arenas}
    ours = {(a.pack.function, a.pack.index): a.memplan.total if a.memplan is not None
            else a.iree_total for a in arenas}
    before = invocation_peaks(program.allocas, iree_totals)
    after = invocation_peaks(program.allocas, ours)
    peaks = tuple(InvocationPeak(b.function, b.iree, a.iree)
                  for b, a in zip(before, after, strict=True))
    vmfb = write_program(program, {i: a.memplan for i, a in enumerate(arenas)
                                   if a.memplan is not None})
    return IreeProgramPlan(name, target, arenas, peaks, program.iree_reproduced, vmfb,
                           program.entries)


def run_inputs(entries: Sequence[EntryPoint] | str, source: bytes, name: str
               ) -> tuple[list[RunInput], list[RunParameter]]:
    """What a run check calls (entry points and their input shapes) and the external
    parameters the program reads (random values stand in for them)."""
    from iree.compiler import ir

    if isinstance(entries, str):
        raise InputError(name, f"cannot run the program: {entries}")
    try:
        inputs = ir.Module.parse(source.decode(), ir.Context())
    except (ir.MLIRError, UnicodeDecodeError) as err:
        raise InputError(name, f"cannot read the program's parameters: {err}") from None
    params = [RunParameter(p.scope, p.key, p.spec.shape, p.spec.element)
              for p in parameters(inputs)]
    runs = [RunInput(e.function, tuple((t.shape, t.element) for t in e.inputs))
            for e in entries]
    return runs, params


def check_run(plan: IreeProgramPlan, source: bytes, reference: bytes | None = None,
              seed: int = 0) -> RunComparison:
    """Run IREE's own compile and memplan's on the same random inputs (and random
    parameters when the program reads external ones); compare the outputs byte for byte."""
    if reference is None:
        reference = reference_vmfb(source, plan.name, plan.target)
    runs, params = run_inputs(plan.entries, source, plan.name)
    try:
        return compare_vmfbs(reference, plan.vmfb, runs, params, seed)
    except ValueError as err:
        raise InputError(plan.name, f"cannot run the program: {err}") from None


def _check_reproduction(module: Any, packs: Sequence[Pack], layouts: Sequence[Layout | None],
                        name: str) -> bool:
    """Whether IREE's layout pass, run on the static packs, chose the offsets reproduced."""
    from iree.compiler import ir

    static = [i for i, p in enumerate(packs) if all(s.size is not None for s in p.slices)]
    if not static:
        return True
    copy = module.operation.clone()
    try:
        ops = [op for _, op in iree_packs.pack_ops(copy)]
        for i in static:
            iree_packs.mark_results(ops[i])
        text = copy.get_asm()
    finally:
        copy.erase()
    laid_out = iree_stages.layout_with_iree(text, name)
    values = iree_packs.marked_values(ir.Module.parse(laid_out, module.context), name)
    expected: list[int] = []
    for i in static:
        layout = layouts[i]
        assert layout is not None
        expected += [layout.total, *layout.offsets]
    return values == expected


def reference_vmfb(source: bytes, name: str, target: Target = LLVM_CPU) -> bytes:
    """IREE's own compile of the program, for `--check-run` to compare with."""
    return iree_stages.compile_plain(source, name, target)


def read_source(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise InputError(path, f"cannot read file: {err.strerror or err}") from None


__all__ = ["ArenaOutcome", "ArenaPlan", "InvocationPeak", "IreeProgramPlan", "PackSlice",
           "IreeProgram", "check_run", "plan_arena", "plan_iree_program", "read_program",
           "reference_vmfb", "run_inputs", "write_program"]
