"""The library half of `memplan plan PROGRAM.mlir --runtime iree` (`front_end.py`):
IREE's transient arenas read from, and written back into, IREE's own compile.

`read_program` compiles the program to the point before IREE lays out its transient
arenas (`stages.before_layout`), reads every `stream.resource.pack` (`packs`),
reproduces IREE's own layout of each (`layout.iree_layout`) and checks the reproduction
against the offsets IREE's pass itself emits; `write_program` writes a plan as the
packs' results and lets IREE finish the compile. The planning is the driver's
(`plan.driver`), with IREE's reproduced layout as the runtime's plan to beat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import InputError
from . import packs as iree_packs
from . import stages as iree_stages
from .compare import RunInput, RunParameter
from .dims import corners
from .entry import EntryPoint, entry_points, parameters
from .fold import FoldedAlloca, fold_transients
from .inputs import NUMPY_DTYPES
from .layout import Layout, iree_layout
from .packs import Pack, TransientAlloca
from .stages import LLVM_CPU, Target


@dataclass(frozen=True)
class InvocationPeak:
    function: str
    peak: int | None  # the most transient bytes allocated at once (None: runtime-sized)


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
            peaks.append(InvocationPeak(function, None))
            continue
        events = sorted([(s, size) for s, _, size in lives] + [(e, -size) for _, e, size in lives],
                        key=lambda e: (e[0], e[1]))
        live = peak = 0
        for _, delta in events:
            live += delta  # type: ignore[operator]
            peak = max(peak, live)
        peaks.append(InvocationPeak(function, peak))
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
    allocas: tuple[TransientAlloca, ...]  # as IREE allocates them (before any fold)
    stream: bytes = b""  # what IREE's stream phase printed, its own layout in it
    # Allocations of their own folded into a pack as its last slices (`fold.py`): `module`
    # and `packs` have them folded; `iree` and `allocas` are IREE's, without the fold.
    folded: tuple[FoldedAlloca, ...] = ()
    planned_allocas: tuple[TransientAlloca, ...] = ()  # `allocas` once folded


def own_vmfb(program: IreeProgram) -> bytes:
    """IREE's own `.vmfb` of the program: its compile finished from its own stream phase."""
    return iree_stages.compile_own(program.stream, program.name, program.target)


def read_program(source: bytes, name: str, target: Target = LLVM_CPU) -> IreeProgram:
    from iree.compiler import ir

    dumps, stream = iree_stages.before_layout(source, name, target)
    module = iree_packs.assemble(dumps, ir.Context(), name)
    packs = tuple(iree_packs.read_packs(module))
    layouts = tuple(_iree_static_layout(p) for p in packs)
    reproduced = _check_reproduction(module, packs, layouts, name)
    try:
        entries: tuple[EntryPoint, ...] | str = tuple(entry_points(module, name))
    except InputError as err:
        entries = err.reason
    allocas = tuple(iree_packs.transient_allocas(module))
    # Everything IREE's is read; from here the module is the one memplan plans and writes.
    folded = tuple(fold_transients(module))
    if folded:
        packs = tuple(iree_packs.read_packs(module))
    return IreeProgram(name, target, module, packs, layouts, reproduced, entries, allocas,
                       stream, folded, tuple(iree_packs.transient_allocas(module))
                       if folded else allocas)


def _iree_static_layout(pack: Pack) -> Layout | None:
    static = [s for s in pack.slices if s.size is not None]
    return iree_layout([s.size for s in static], static, pack.config) if static else None


# Sizes up to this are each evaluated when a bound is checked; above it, a spread of them.
_SIZES_CHECKED = 1024
# Corners of the bounded dimensions evaluated (and the middle): every one of up to ten
# dimensions; past that, 2 + 2k of them (`dims.corners`).
_CORNERS_CHECKED = 1025


def at_largest_size(program: IreeProgram, bounded: Mapping[str, Mapping[tuple[int, int], int]]
                    ) -> tuple[IreeProgram, str]:
    """The program with each runtime-sized slice planned at its size at the largest
    sizes (`--dim NAME=..N`), once its size is shown to be no larger at any smaller one;
    and a note saying so. Each bounded dimension is varied over 1..N (every size up to
    1,024, else 1,024 spread over the range) with the others at their bound. A slice whose
    size falls as a dimension grows is refused: a plan at the largest size would not hold
    the smaller. A slice the evaluation cannot follow keeps the range analysis' bound,
    which holds at every size but may be looser."""
    def at(choice: Mapping[tuple[str, int, int], int]) -> dict[str, dict[str, int]]:
        sizes: dict[str, dict[str, int]] = {}
        for function, dims in bounded.items():
            sizes[function] = {f"arg{i}.dim{j}": choice.get((function, i, j), n)
                               for (i, j), n in dims.items()}
        return sizes

    largest = iree_packs.runtime_sizes_at(program.module, at({}))
    worst: dict[tuple[int, int], tuple[int, int, str]] = {}

    def compare(choice: Mapping[tuple[str, int, int], int], where: str) -> None:
        smaller = iree_packs.runtime_sizes_at(program.module, at(choice))
        for p, (row, big) in enumerate(zip(smaller, largest, strict=True)):
            for k, (a, b) in enumerate(zip(row, big, strict=True)):
                if a is not None and b is not None and a > b and (p, k) not in worst:
                    worst[(p, k)] = (a, b, where)

    for function, dims in bounded.items():
        for (i, j), n in dims.items():
            step = max(1, -(-n // _SIZES_CHECKED))
            for value in [*range(1, n, step)]:
                compare({(function, i, j): value}, f"arg{i}.{j}={value}")
    checked = corners({f: dict(d) for f, d in bounded.items()}, _CORNERS_CHECKED)
    for point in checked.points:
        compare({(f, i, j): v for f, d in point.items() for (i, j), v in d.items()},
                ", ".join(f"arg{i}.{j}={v}" for d in point.values()
                          for (i, j), v in d.items()))
    if worst:
        (p, k), (a, b, where) = next(iter(worst.items()))
        raise InputError(program.name, f"--dim ..N: {program.packs[p].name}'s runtime-sized "
                         f"slice {k} takes {a:,} B at {where} but {b:,} B at the bound: "
                         "sizes do not grow with the dimension, so no one plan at the bound "
                         "serves every size")
    packs, evaluated, loose = [], 0, 0
    for pack, sizes in zip(program.packs, largest, strict=True):
        runtime = iter(sizes)
        slices = []
        for s in pack.slices:
            if s.size is not None:
                slices.append(s)
                continue
            value = next(runtime)
            if value is None or s.bound is None or value > s.bound:
                loose += s.bound is not None
                slices.append(s)
                continue
            evaluated += 1
            slices.append(dataclasses.replace(s, bound=value))
        packs.append(dataclasses.replace(pack, slices=tuple(slices)))
    shown = "; ".join(f"@{f} " + ", ".join(f"arg{i}.{j}<={n}" for (i, j), n in d.items())
                      for f, d in bounded.items())
    corner_text = "every corner" if checked.every_corner else \
        f"{checked.corners} of the {2 ** checked.dims:,} corners (past the cap)"
    note = (f"one plan for every size up to the bound ({shown}): {evaluated} runtime-sized "
            "slice(s) planned at their size at the bound, none larger at any smaller size "
            f"(each dimension over its range with the others at their bound, {corner_text} "
            "and the middle)")
    if loose:
        note += f"; {loose} at the range analysis' bound (not evaluated per size)"
    return dataclasses.replace(program, packs=tuple(packs)), note


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


def run_inputs(entries: Sequence[EntryPoint] | str, source: bytes, name: str,
               sizes: Sequence[Mapping[str, Mapping[tuple[int, int], int]]] = ({},)
               ) -> tuple[list[RunInput], list[RunParameter]]:
    """What a run check calls (entry points and their input shapes, once per choice of
    `sizes` for their runtime-sized dimensions: per function, (argument, dimension) to
    size) and the external parameters the program reads (random values stand in for them)."""
    from iree.compiler import ir

    from ...ir.load import new_context

    if isinstance(entries, str):
        raise InputError(name, f"cannot run the program: {entries}")
    runs = []
    for choice in sizes:
        for e in entries:
            given = choice.get(e.function, {})
            shapes = tuple((tuple(given.get((i, j), d) for j, d in enumerate(t.shape)),
                            t.element) for i, t in enumerate(e.inputs))
            if any(d is None for shape, _ in shapes for d in shape):
                raise InputError(name, f"cannot run the program: @{e.function} takes an input "
                                 "of runtime shape (memplan makes random inputs of static shape "
                                 "only: give the sizes with --dim)")
            runs.append(RunInput(e.function, shapes))  # type: ignore[arg-type]
    try:
        inputs = ir.Module.parse(source.decode(), new_context())
    except (ir.MLIRError, UnicodeDecodeError) as err:
        raise InputError(name, f"cannot read the program's parameters: {err}") from None
    params = [RunParameter(p.scope, p.key, p.spec.shape, p.spec.element)  # type: ignore[arg-type]
              for p in parameters(inputs)]
    # Said here, before anything is compiled for the run, not as a failure in the child.
    elements = [el for r in runs for _, el in r.shapes] + [p.element for p in params]
    missing = next((el for el in elements if el not in NUMPY_DTYPES), None)
    if missing is not None:
        raise InputError(name, f"cannot run the program: no random values for element "
                         f"type {missing}")
    return runs, params


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
    """The program's text, held to the limits of every MLIR input (`ir.load.read_mlir_text`:
    its size, its ops, integers the parser can hold) before iree-compile or the bindings
    parse it (issue 31: an integer past int64 crashes the parser in memplan's process)."""
    from ...ir.load import read_mlir_text

    return read_mlir_text(path).encode()


__all__ = ["InvocationPeak", "IreeProgram", "at_largest_size", "invocation_peaks", "own_vmfb", "read_program",
           "read_source", "reference_vmfb", "run_inputs", "write_program"]
