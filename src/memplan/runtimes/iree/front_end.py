"""IREE programs (any input `iree-compile` accepts: torch, linalg, ONNX-imported MLIR): one
arena per `stream.resource.pack`, IREE's transient memory of one execution region.

The program is read by `program.py` (compiled to just before IREE's own
layout, IREE's layout reproduced and checked against IREE's pass); this module turns
its slices into `BufferRequest`s, writes the driver's offsets back as the packs'
results and lets IREE finish the `.vmfb`; when IREE's own layout is no larger than
memplan's in every arena, IREE's own `.vmfb` is kept instead (`write_own`: a tie is not
worth a second compile). A pack with a runtime-sized slice that has
no proven bound is left to IREE (a note says why); bounded ones are planned at the bound.

`original` is IREE's own `.vmfb` bundled (zip) with what a run needs that a `.vmfb`
does not say (entry points' input shapes, the external parameters): `run` reads it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import zipfile
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ...buffers import Arena, BufferRequest, RuntimePlan
from ...errors import InputError
from ...pack import lower_bound
from ...plan.contract import Measured, ModelView, Offsets, Progress, ReadOptions, RunCheck
from .layout import Layout, align, pack_problem, stacked

if TYPE_CHECKING:  # packs.py loads IREE's compiler, which a registry lookup must not
    from .fold import FoldedAlloca
    from .packs import Pack

_REFERENCE, _SPEC = "reference.vmfb", "run.json"


# Said when IREE's own pass did not choose the layout memplan reproduces (and compares
# its plan with): the comparison is then with memplan's reproduction, not IREE.
NOT_REPRODUCED = "IREE's own layout differs from memplan's reproduction of it"


def _arena_name(pack: Pack) -> str:
    return f"{pack.function}#{pack.index}"


def pack_arena(pack: Pack, iree: Layout | None) -> Arena | str:
    """The pack as the driver's arena, IREE's layout (`iree`, reproduced) its runtime plan
    to beat when every slice is static; a slice of runtime size is planned at its proven
    bound. A pack with a slice that has no proven bound is left to IREE: then the note
    that says why, instead of an arena."""
    unbounded = next((s.why_unbounded for s in pack.slices if s.planned_size is None), None)
    if unbounded is not None:
        return (f"{_arena_name(pack)}: left to IREE, a slice has no proven size bound "
                f"({unbounded})")
    buffers = tuple(
        BufferRequest(k, f"slice {k}", align(s.planned_size, pack.config.range_alignment),
                      s.start, s.end + 1, pack.config.offset_alignment,
                      scope=pack.function, origin=pack.location,
                      notes=() if s.size is not None else
                      (f"runtime size planned at its proven bound {s.bound}",))
        for k, s in enumerate(pack.slices))
    runtime = None
    if iree is not None and all(s.size is not None for s in pack.slices):
        runtime = RuntimePlan("IREE LayoutSlices", dict(enumerate(iree.offsets)),
                              {_arena_name(pack): iree.total})
    return Arena(_arena_name(pack), buffers, pack.config.offset_alignment, runtime)


# `--check-run` runs both .vmfb files once per point: every corner of up to four bounded
# dimensions (16) and the middle; past that, 2 + 2k corners and the middle (`dims.corners`).
RUN_POINTS = 17


def _folded_note(pack: Pack, folded: list[FoldedAlloca], iree: Layout) -> str:
    """What a folded arena is compared with: IREE's arena and its allocations apart."""
    # No location: IREE's locations name its stdin, the text `--dim` may have rewritten.
    pieces = "; ".join(f"slice {f.slice}: {f.size:,} B, alive [0, {f.end}]" for f in folded)
    return (f"{_arena_name(pack)}: {len(folded)} transient allocation(s) IREE makes apart "
            f"from this region's arena (filled by an earlier region) folded into it as its "
            f"last slice(s) ({pieces}); IREE's layout holds {iree.total:,} B across "
            f"{len(folded) + 1} allocations, the figure memplan's one plan is compared with")


def run_sizes(bounded: Mapping[str, Mapping[tuple[int, int], int]]
              ) -> list[dict[str, dict[tuple[int, int], int]]]:
    """The input sizes `--check-run` calls each entry at: with bounded dimensions
    (`--dim NAME=..N`), every corner (each dimension at 1 or at its bound) and the middle,
    so the one plan is run small, in the middle, at its bound and at every mix of them
    (past `RUN_POINTS`, the corners `dims.corners` keeps)."""
    if not bounded:
        return [{}]
    from .dims import corners

    return [dict(p) for p in corners(dict(bounded), RUN_POINTS).points]


def run_sizes_note(bounded: Mapping[str, Mapping[tuple[int, int], int]]) -> str:
    """What `--check-run` will run, for the notes."""
    from .dims import corners

    found = corners({f: dict(d) for f, d in bounded.items()}, RUN_POINTS)
    which = "every corner (each bounded dimension at 1 or at its bound)" if \
        found.every_corner else (f"{found.dims} bounded dimensions have {2 ** found.dims:,} "
                                 f"corners, past the cap of {RUN_POINTS - 1}: all at 1, all at "
                                 "their bound and each alone at one end, the others at the other")
    return (f"--check-run runs each entry at {len(found.points)} size(s): {which}, and the "
            "middle (each at half its bound, rounded up)")


class IreeFrontEnd:
    name: ClassVar[str] = "iree"
    suffixes: ClassVar[tuple[str, ...]] = (".mlir",)
    runtime: ClassVar[str] = "IREE's runtime"
    extra: ClassVar[str] = "mlir"
    writes: ClassVar[str | None] = ".vmfb"
    splits: ClassVar[bool] = False
    plans_in_hook: ClassVar[bool] = False
    takes_dims: ClassVar[bool] = True  # dynamic input dimensions pinned (runtimes/iree/dims.py)
    takes_dim_bounds: ClassVar[bool] = True  # or bounded: one plan for every size up to N

    def read(self, path: str, options: ReadOptions) -> ModelView:
        from . import program as ip
        from .stages import LLVM_CPU

        source = given = ip.read_source(path)
        pinned, bounded = None, {}
        if options.dims or options.dim_bounds:
            from .dims import pin_dims

            source, pinned, bounded = pin_dims(source, path, options.dims, options.dim_bounds)
        target = LLVM_CPU
        if options.target is not None:
            from .targets import iree_target

            target = iree_target(options.target.name, path)
        program = ip.read_program(source, path, target)
        largest = None
        if bounded:
            program, largest = ip.at_largest_size(program, bounded)
        bounds: dict[str, int] = {}
        arenas, notes = [], [f"compiled by IREE for {target.device}"]
        if target.stand_in is not None:
            notes.append(target.stand_in)
        if pinned is not None:
            notes.append(f"planned and compiled at --dim sizes: {pinned}")
        if largest is not None:
            notes.append(largest)
            notes.append(run_sizes_note(bounded))
        for i, (pack, iree) in enumerate(zip(program.packs, program.iree, strict=True)):
            folded = [f for f in program.folded
                      if (f.function, f.pack) == (pack.function, pack.index)]
            if folded and iree is not None:
                iree = stacked(iree, [f.size for f in folded], pack.config)
                notes.append(_folded_note(pack, folded, iree))
            arena = pack_arena(pack, iree)
            if isinstance(arena, str):
                notes.append(arena)
                continue
            arenas.append((i, arena))
            bounds[arena.name] = lower_bound(pack_problem(
                [s.planned_size for s in pack.slices], pack.slices, pack.config))
        if not program.iree_reproduced:
            notes.append(NOT_REPRODUCED)
        notes.append("arenas are IREE's stream.resource.pack ops (one per execution region), "
                     "sizes rounded to IREE's range alignment")
        # A bounded program's reference is the input as given, compiled again (IREE's own
        # compile of it runs at every size); otherwise IREE's own .vmfb is finished from the
        # stream phase already read (`own_vmfb`: byte for byte the plain compile).
        source_state = {"program": program, "source": source, "bounded": bounded,
                        "reference": given if bounded else None,
                        "index": dict(
            (a.name, i) for i, a in arenas), "bounds": bounds, "written": {}}
        return ModelView(path, self.name, tuple(a for _, a in arenas), tuple(notes),
                         {}, source_state)

    def notes(self, view: ModelView, sizes: dict[str, int], target: Any) -> tuple[str, ...]:
        """The whole invocation's transient peak: IREE allocates each region's arena (and
        any transient of its own) for the region's life, so arenas of regions alive at
        once add up; the largest arena's bound binds every plan, across regions too."""
        from . import program as ip

        state = view.source
        program = state["program"]
        by_index = {i: name for name, i in state["index"].items()}
        iree, ours = {}, {}
        for i, (pack, layout) in enumerate(zip(program.packs, program.iree, strict=True)):
            static = layout is not None and all(s.size is not None for s in pack.slices)
            iree[(pack.function, pack.index)] = layout.total if static else None
            name = by_index.get(i)
            ours[(pack.function, pack.index)] = sizes.get(name) if name is not None \
                else iree[(pack.function, pack.index)]
        # Each invocation against the arenas of its own function: another entry's larger
        # arena is never alive in this one (a two-entry program read "0.062x" before).
        bounds: dict[str, int] = {}
        for name, bound in state["bounds"].items():
            function = program.packs[state["index"][name]].function
            bounds[function] = max(bounds.get(function, 0), bound)
        lines = []
        folded = {f.function for f in program.folded}
        for before, after in zip(ip.invocation_peaks(program.allocas, iree),
                                 ip.invocation_peaks(program.planned_allocas or program.allocas,
                                                     ours), strict=True):
            if after.peak is None:
                lines.append(f"invocation @{before.function}: a transient of runtime size, "
                             "no static peak")
                continue
            bound = bounds.get(before.function, 0)
            ratio = f" ({after.peak / bound:.3f}x)" if bound else ""
            was = f"IREE {before.peak:,} B, " if before.peak is not None else ""
            scope = ("transients one region leaves to a later one folded into its arena's "
                     "plan" if before.function in folded else
                     "arenas are planned per region, not across them")
            lines.append(f"invocation @{before.function}: transient peak {was}memplan "
                         f"{after.peak:,} B{ratio} against a bound of {bound:,} B (the "
                         f"largest arena's of @{before.function}); {scope}")
        return tuple(lines)

    def write(self, view: ModelView, offsets: Offsets) -> bytes:
        from . import program as ip
        from .layout import Layout

        state = view.source
        layouts = {}
        for arena in view.arenas:
            placed = offsets[arena.name]
            ordered = tuple(placed[b.key] for b in arena.buffers)
            total = max((o + (b.size or 0) for o, b in zip(ordered, arena.buffers,
                                                            strict=True)), default=0)
            pack = state["program"].packs[state["index"][arena.name]]
            layouts[state["index"][arena.name]] = Layout(
                ordered, align(total, pack.config.range_alignment))
        vmfb = ip.write_program(state["program"], layouts)
        # See read_back: the offsets are kept by the bytes' hash.
        state["written"][hashlib.sha256(vmfb).hexdigest()] = {
            a.name: dict(offsets[a.name]) for a in view.arenas}
        return vmfb

    def write_own(self, view: ModelView, at_bound: bool) -> tuple[bytes, str] | None:
        """IREE's own `.vmfb`: its compile finished from the stream phase the layout was
        read from (`program.own_vmfb`), byte for byte the plain `iree-compile` with the
        same flags (`--check-run`'s reference). None when IREE's pass did not choose the
        layout memplan reproduced: its size is then not known."""
        from . import program as ip

        state = view.source
        program = state["program"]
        if not program.iree_reproduced:
            return None
        vmfb = ip.own_vmfb(program)
        state["written"][hashlib.sha256(vmfb).hexdigest()] = {
            a.name: dict(a.runtime.offsets) for a in view.arenas}
        where = "at the bound" if at_bound else "no larger than memplan's"
        return vmfb, f"IREE's own layout is {where}: its .vmfb kept, nothing recompiled"

    def read_back(self, view: ModelView, data: bytes) -> Offsets:
        """NOT read from the `.vmfb`: the offsets written into the stream-level module
        these bytes were compiled from (looked up by the bytes' hash). In a `.vmfb` the
        offsets survive only as constants folded into the VM bytecode of the functions
        that allocate and dispatch (IREE's compile propagates and combines them), and
        memplan does not decode VM bytecode. What proves the `.vmfb` computes with the
        plan is `--check-run` (outputs bit-identical to IREE's own compile; a plan with
        overlapping live slices is caught: tests/test_iree_arena.py)."""
        written = view.source["written"].get(hashlib.sha256(data).hexdigest())
        if written is None:
            raise InputError(view.path, "not a .vmfb this run wrote")
        return written

    def lower(self, view, planner):  # noqa: ANN001, ANN201 - not a hook front end
        raise NotImplementedError

    def original(self, view: ModelView) -> bytes:
        from . import program as ip

        state = view.source
        program = state["program"]
        if not program.target.runs_here:
            raise InputError(view.path, f"--check-run: compiled for {program.target.device}, "
                             "which this machine cannot run (without --check-run the .vmfb "
                             "is written)")
        runs, params = ip.run_inputs(program.entries, state["source"], view.path,
                                     run_sizes(state["bounded"]))
        spec = {"entries": [dataclasses.asdict(r) for r in runs],
                "parameters": [dataclasses.asdict(p) for p in params]}
        bundle = io.BytesIO()
        with zipfile.ZipFile(bundle, "w") as z:
            z.writestr(_REFERENCE, ip.own_vmfb(program) if state["reference"] is None else
                       ip.reference_vmfb(state["reference"], view.path, program.target))
            z.writestr(_SPEC, json.dumps(spec))
        return bundle.getvalue()

    def run(self, original: bytes, written: bytes, seed: int, progress: Progress) -> RunCheck:
        from .compare import RunInput, RunParameter, run_pair

        with zipfile.ZipFile(io.BytesIO(original)) as z:
            reference = z.read(_REFERENCE)
            spec = json.loads(z.read(_SPEC))
        entries = [RunInput(e["function"], tuple((tuple(s), el) for s, el in e["shapes"]))
                   for e in spec["entries"]]
        params = [RunParameter(p["scope"], p["key"], tuple(p["shape"]), p["element"])
                  for p in spec["parameters"]]
        differences = run_pair(reference, written, entries, params, seed, progress)
        return RunCheck(not differences, Measured(None), Measured(None), self.runtime)


FRONT_END = IreeFrontEnd()
