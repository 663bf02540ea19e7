"""TFLite models on TensorFlow Lite Micro: one arena, the plan written back as TFLM's
`OfflineMemoryAllocation` metadata, run under TFLM's Python interpreter.

The model is read by `model.py` (TFLM's facts are documented there); this module
is the one place its tensors become `BufferRequest`s. The runtime's own plan is TFLM's
`GreedyMemoryPlanner` on TFLM's own view (no buffer shares bytes): largest first, ties
in the reverse of the order buffers were added, each at the lowest offset where it fits.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...buffers import (
    Arena,
    BufferRequest,
    RuntimePlan,
    group_offsets,
    merged,
    pieces,
    share_groups,
)
from ...errors import InputError
from ...pack import Buffer, PackOptions, Problem, lower_bound, pack
from ...plan.contract import (
    Measured,
    ModelView,
    Offsets,
    Operator,
    Progress,
    ReadOptions,
    RunCheck,
    RuntimeRefused,
)
from ...report.c_header import Arena as HeaderArena
from ...report.c_header import CHeader, Define, arena_alignment, arena_offsets, prefix_for
from ...targets import Target
from . import CORE, KERNELS
from . import model as tfl
from .scratch import KernelSet

if TYPE_CHECKING:
    from ...plan.driver import ModelPlan

ARENA = "arena"


@dataclass(frozen=True)
class Source:
    """What the TFLM front end keeps of a model it read: the bytes planned (rewritten or
    not), as parsed, and the input file's bytes (the baseline a run compares with)."""

    data: bytes
    model: tfl.TfliteModel
    input: bytes
    kernels: KernelSet
    core: str | None

# TFLM aligns its arena's start to 16 bytes (MicroAllocator's buffer alignment).
TFLM_ARENA_ALIGNMENT = 16


class TfliteFrontEnd:
    name: ClassVar[str] = "tflm"
    suffixes: ClassVar[tuple[str, ...]] = (".tflite",)
    runtime: ClassVar[str] = "TFLM's interpreter"
    extra: ClassVar[str] = "tflite"
    writes: ClassVar[str | None] = ".tflite"
    splits: ClassVar[bool] = False  # one arena: TFLM cannot split tensors across memories
    plans_in_hook: ClassVar[bool] = False
    # TFLM places its scratch buffers and variables around an offline plan itself: a plan
    # is kept only once TFLM has run it in no larger an arena than its own plan needs.
    verify_writes: ClassVar[bool] = True

    def c_header(self, plan: ModelPlan, header_path: str | Path,
                 check: RunCheck | None = None) -> CHeader:
        """TFLM's one arena for the planned model, with memplan's plan as its
        `OfflineMemoryAllocation`: the arena to hand `MicroInterpreter` is the planned head
        and TFLM's own persistent tail together, measured by running the planned model
        (`check`); the offsets are inside the head."""
        if check is None or check.planned.arena is None:
            raise ValueError("a TFLM header needs the arena measured by running the model")
        arena, whole = plan.arenas[0], check.planned.arena
        prefix = prefix_for(header_path)
        return CHeader(
            prefix, plan.view.path,
            (f"TFLM arena for the planned model: {whole} B, of which the planned head is "
             f"{arena.size} B;",
             f"hand {prefix.lower()}_arena and {prefix}_ARENA_SIZE to tflite::MicroInterpreter;",
             "memplan's offsets travel in the planned model (plan -o FILE.tflite), as its",
             "OfflineMemoryAllocation metadata, where TFLM reads them.",
             "Measured by TFLM's interpreter on a 64-bit host with the reference kernels. On",
             "a 32-bit MCU the planned head is the same, but TFLM's persistent data (tensor,",
             "node and allocation records holding 4-byte pointers there) is smaller, so this",
             "size has margin there rather than being exact; kernels built for the MCU",
             "(CMSIS-NN) may ask for scratch the reference kernels do not. Confirm on the",
             "device with MicroInterpreter::arena_used_bytes()."),
            (HeaderArena("arena", whole, arena_alignment(arena, TFLM_ARENA_ALIGNMENT),
                         "the whole tensor arena: planned head, then TFLM's persistent data at "
                         "the other end", arena_offsets(arena)),),
            (Define("PLANNED_HEAD_SIZE", arena.size, "bytes of the arena memplan's offsets span "
                    "(the non-persistent tensors)"),))

    def runnable(self, options: ReadOptions) -> str | None:
        # TFLM's Python interpreter has the reference kernels only.
        if options.extra.get(KERNELS.dest, KERNELS.default) != KERNELS.default:
            return "TFLM's interpreter here runs the reference kernels only"
        return None

    def read(self, path: str, options: ReadOptions) -> ModelView:
        kernels, core = _kernels(path, options)
        data = tfl.read_model_bytes(path)
        model = tfl.parse_tflite(data, path, kernels, core)
        if any(op.name == "CUSTOM:ethos-u" for op in model.ops):
            # The NPU command stream addresses the input and output inside Vela's scratch
            # area, at the offsets of Vela's own plan: another plan would break it.
            raise InputError(path, "compiled by Vela (an ethos-u operator): its command "
                             "stream relies on Vela's own arena plan; plan the model before Vela")
        return self.view(path, Source(data, model, data, kernels, core))

    def view(self, path: str, source: Source) -> ModelView:
        """The view of a model read (or rewritten: `source.input` is the file's bytes)."""
        model, kernels = source.model, source.kernels
        buffers = requests(model)
        own_view = requests(model, in_place=False)
        notes = ["TFLM plans variables and kernel scratch buffers itself, around this plan; "
                 "its persistent data sits at the arena's other end"]
        if kernels is KernelSet.CMSIS_NN:
            asked = (f"{len(model.scratch)} scratch buffer(s) of TFLM's CMSIS-NN kernels "
                     f"built for {source.core} have room reserved in the plan"
                     if model.scratch else f"TFLM's CMSIS-NN kernels built for {source.core} "
                     "ask for no scratch buffer in this model")
            notes.append(f"{asked}; TFLM's "
                         "Python interpreter runs the reference kernels, so no run here "
                         "measures a CMSIS-NN build: the written model is checked, not run")
        elif model.scratch:
            notes.append(f"{len(model.scratch)} scratch buffer(s) of TFLM's reference kernels "
                         "have room reserved in the plan (--kernels cmsis-nn: CMSIS-NN's)")
        reshapes = sum(1 for k in model.shares if _made_by(model, k) == "RESHAPE")
        if reshapes:
            notes.append(f"{reshapes} RESHAPE output(s) share their input's bytes "
                         "(TFLM's reshape copies nothing when the two addresses are equal)")
        if model.offline_plan is not None:
            notes.append("the input already had an OfflineMemoryAllocation plan; it is replaced")
        details = {t.key: {"dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes}
                   for t in model.planned()}
        arena = Arena(ARENA, tuple(buffers), tfl.ALIGNMENT, greedy_plan(own_view, tfl.ALIGNMENT))
        return ModelView(path, self.name, (arena,), tuple(notes), details, source,
                         operators(model, windowed=kernels is KernelSet.REFERENCE))

    def notes(self, view: ModelView, sizes: dict[str, int], target: Target | None
              ) -> tuple[str, ...]:
        return tuple(_tflm_layouts(target, sizes.get(ARENA, 0)))

    def write(self, view: ModelView, offsets: Offsets) -> bytes:
        data, model = view.source.data, view.source.model
        plan = [tfl.ONLINE] * len(model.tensors)
        for key, off in offsets[ARENA].items():
            if key < len(plan):  # the rest are scratch buffers: TFLM places them itself
                plan[key] = off
        return tfl.with_offline_plan(data, plan, view.path)

    def read_back(self, view: ModelView, data: bytes) -> Offsets:
        back = tfl.parse_tflite(data, view.path)
        planned = {t.key for t in back.planned()}
        return {ARENA: {k: off for k, off in enumerate(back.offline_plan or ())
                        if k in planned and off != tfl.ONLINE}}

    def lower(self, view, planner):  # noqa: ANN001, ANN201 - not a hook front end
        raise NotImplementedError

    def original(self, view: ModelView) -> bytes:
        # The baseline is TFLM's own planner on the input as given (before any rewrite),
        # not a plan the input may carry (which may be broken: all offsets 0, say).
        return tfl.without_offline_plan(view.source.input, view.path)

    def run(self, original: bytes, written: bytes, seed: int, progress: Progress) -> RunCheck:
        """Both models under TFLM on the same random inputs: the smallest arena each
        needs, what TFLM's recording allocator reports there, and the outputs."""
        from . import interpreter as tflm

        progress("original", "reading its inputs")
        try:
            inputs = tflm.random_inputs(original, seed)
        except tflm.CannotRun as err:
            raise RuntimeRefused("original", str(err)) from None
        measured, outputs = [], []
        for which, data in (("original", original), ("planned", written)):
            try:
                size = tflm.smallest_arena(
                    data, inputs, trying=lambda n, w=which: progress(w, f"at arena {n} B"))
            except tflm.CannotRun as err:
                raise RuntimeRefused(which, str(err)) from None
            progress(which, f"at arena {size} B")
            outputs.append(tflm.run(data, size, inputs))
            use = tflm.arena_use(data, size, inputs)
            measured.append(Measured(size, {"head": use.head, "tail": use.tail}))
        a, b = outputs
        identical = (a.ok and b.ok and len(a.outputs) == len(b.outputs)
                     and all(x.dtype == y.dtype and x.shape == y.shape and (x == y).all()
                             for x, y in zip(a.outputs, b.outputs, strict=True)))
        return RunCheck(identical, measured[0], measured[1], self.runtime)


def requests(model: tfl.TfliteModel, *, in_place: bool = True) -> list[BufferRequest]:
    """The planned tensors, then the scratch buffers (as TFLM adds them to its planner);
    `in_place=False` is TFLM's own view, where nothing shares bytes; otherwise an in-place
    output shares its input's bytes and a zero-copy CONCATENATION's inputs sit inside its
    output (`TfliteModel.joins`), a slice of whole rows is a view of its input's bytes
    (`TfliteModel.views`) and a tensor read only by slices is released in parts
    (`TfliteModel.releases`)."""
    buffers = [
        BufferRequest(t.key, t.name, t.size, t.first, t.last + 1,
                      shares_with=(model.shares.get(t.key, model.views.get(t.key, (None,))[0])
                                   if in_place else None),
                      share_offset=(model.share_offsets.get(t.key, 0)
                                    + model.views.get(t.key, (0, 0))[1]) if in_place else 0,
                      origin=f"subgraph {t.subgraph} tensor {t.index}",
                      parts=model.releases.get(t.key, ()) if in_place else ())
        for t in model.planned()
    ]
    buffers += [
        BufferRequest(len(model.tensors) + i, f"scratch of {op.name} #{op.index}",
                      -(-nbytes // tfl.ALIGNMENT) * tfl.ALIGNMENT, op.scope, op.scope + 1,
                      origin=f"subgraph {op.subgraph} operator {op.index}")
        for i, (op, nbytes) in enumerate(model.scratch)
    ]
    return _joined(buffers, model) if in_place and model.joins else buffers


def head_bound(buffers: list[BufferRequest]) -> int:
    """The lower bound of the head these buffers need: the most bytes live at once, each
    share group as one block, a tensor released in parts as its parts."""
    return lower_bound(Problem(tuple(
        Buffer(str(g[0].key), p.start, p.end, p.size, tfl.ALIGNMENT)
        for g in share_groups(buffers) for p in pieces(g) if p.size > 0)))


def planned_head(model: tfl.TfliteModel) -> tuple[int, int, int]:
    """How the head of `model` plans: the driver's plan of its buffers without search (its
    size, its lower bound), then the bytes x steps its pieces hold (what falls first when
    an operator off the peak stops holding two tensors)."""
    from ...buffers import pieces as rectangles
    from ...plan.driver import plan_arena

    buffers = requests(model)
    (plan,) = plan_arena(Arena(ARENA, tuple(buffers), tfl.ALIGNMENT), time_limit=None)
    area = sum(p.size * (p.end - p.start) for g in share_groups(buffers)
               for p in rectangles(g))
    return plan.size, plan.lower_bound, area


def _joined(buffers: list[BufferRequest], model: tfl.TfliteModel) -> list[BufferRequest]:
    """`buffers` with each zero-copy CONCATENATION (`TfliteModel.joins`) whose inputs, put
    inside its output, lower the bound. Its group is one block live from its first input
    to the output's end, so the whole output is held while the later inputs are computed:
    a join lowers the bound only where the concatenation's moment (inputs and output live
    at once) is the peak. An input already in place over another keeps that share."""
    by_output: dict[int, dict[int, int]] = {}
    for key, (out, at) in model.joins.items():
        by_output.setdefault(out, {})[key] = at
    best = head_bound(buffers)
    for out, parts in by_output.items():
        tried = [dataclasses.replace(b, shares_with=out, share_offset=parts[b.key])
                 if b.key in parts and b.shares_with is None else b for b in buffers]
        now = head_bound(tried)
        if now < best:
            buffers, best = tried, now
    return buffers


# Operators whose working set a patch-by-patch run of the stage shrinks (spatial windows
# over a feature map): what `--rewrite patches` rewrites (issue 34, item 4).
SPATIAL = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D",
                     "PAD", "PADV2", "TRANSPOSE_CONV"})


def _inside_a_stage(model: tfl.TfliteModel) -> set[tuple[int, int]]:
    """(subgraph, index) of the spatial operators of subgraph 0, in its leading run of
    operators a patched stage can hold (the stage is a prefix), whose 4-D output only such
    operators read: they can run inside a stage, on patches of their output. The last
    operator of a stage writes its whole output (the split tensor) while its whole input is
    live at the first patch, so patches never lower the bytes it holds at once
    (micro_speech's one depthwise convolution, read by a RESHAPE)."""
    from .patches import ELEMENTWISE, LEADING

    held = SPATIAL | ELEMENTWISE

    readers: dict[int, list[tfl.TfliteOp]] = {}
    for op in model.ops:
        for key in op.inputs:
            readers.setdefault(key, []).append(op)
    outputs = set(model.outputs)
    found = set()
    for op in model.ops:
        if op.subgraph:
            continue
        if op.name not in held | LEADING:
            break
        if op.name not in SPATIAL or len(op.outputs) != 1:
            continue
        out = op.outputs[0]
        after = readers.get(out, [])
        if (len(model.tensors[out].shape) == 4 and out not in outputs and after
                and all(r.name in held for r in after)):
            found.add((op.subgraph, op.index))
    return found


def operators(model: tfl.TfliteModel, *, windowed: bool = True) -> tuple[Operator, ...]:
    """Every operator TFLM runs, with the planned tensors and scratch buffers it touches
    and the rewrites that could lower what it holds (`windowed`: the kernels are TFLM's
    reference ones, whose windows `window.py` may write over their input)."""
    from . import window
    from .inplace import lowered_in_place

    scratch: dict[tuple[int, int], list[int]] = {}
    for i, (op, _) in enumerate(model.scratch):
        scratch.setdefault((op.subgraph, op.index), []).append(len(model.tensors) + i)
    planned = {t.key for t in model.planned()}
    inside = _inside_a_stage(model)
    found = []
    for op in model.ops:
        where = f" of subgraph {op.subgraph}" if op.subgraph else ""
        lowered = (("patches",) if (op.subgraph, op.index) in inside else ()) + (
            ("inplace",) if lowered_in_place(model, op) or (
                windowed and window.eligible(model, op) is not None) else ())
        found.append(Operator(
            f"{op.name} #{op.index}{where}",
            tuple(k for k in dict.fromkeys(op.inputs + op.outputs) if k in planned)
            + tuple(scratch.get((op.subgraph, op.index), ())), lowered))
    return tuple(found)


def greedy_plan(buffers: list[BufferRequest], alignment: int) -> RuntimePlan:
    """TFLM's GreedyMemoryPlanner on these buffers (in the order TFLM adds them)."""
    groups = share_groups(buffers)
    problem = Problem(tuple(
        Buffer(g[0].name, min(b.start for b in g), max(b.end for b in g),
               merged(g).packed_size, alignment) for g in groups))
    # TFLM fills its online buffers from the back of its list, so before sorting they are
    # in reverse order; its ReverseSortInPlace swaps only on <, so it is stable: equal
    # sizes stay in reverse order. Python's sort is stable too.
    order = sorted(reversed(range(len(problem.buffers))), key=lambda i: -problem.buffers[i].size)
    packed = pack(problem, PackOptions(order=tuple(order)))
    offsets = {b.key: off + at[b.key]
               for g, off in zip(groups, packed.solution.offsets, strict=True)
               for at in (group_offsets(g),) for b in g}
    return RuntimePlan("TFLM greedy", offsets, {ARENA: packed.peak},
                       lower_bound=packed.lower_bound)


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


FRONT_END = TfliteFrontEnd()


def _made_by(model: tfl.TfliteModel, key: int) -> str | None:
    return next((op.name for op in model.ops if key in op.outputs), None)


def _kernels(path: str, options: ReadOptions) -> tuple[KernelSet, str | None]:
    """The kernel set the firmware links, and for CMSIS-NN the core it is built for: the
    option's, else the target's name when it names a Cortex-M core."""
    from .cmsis_nn_sizes import UnknownCore, backend_for

    given = options.extra.get(KERNELS.dest, KERNELS.default)
    core = options.extra.get(CORE.dest)
    try:
        kernels = KernelSet(given)
    except ValueError:
        raise InputError("--kernels", f"unknown kernel set '{given}' (known: "
                         f"{', '.join(k.value for k in KernelSet)})") from None
    if kernels is KernelSet.REFERENCE:
        if core:  # the reference kernels are the same on every core: --core would be ignored
            raise InputError(path, f"--core {core}: the core decides CMSIS-NN's scratch sizes "
                             "only; add --kernels cmsis-nn (the default, reference, has the "
                             "same kernels on every core)")
        return kernels, None
    names = [core] if core else \
        [options.target.name, options.target.name.split("+")[0]] if options.target else []
    for name in names:
        try:
            backend_for(name)
            return kernels, name
        except UnknownCore:
            continue
    raise InputError(path, "CMSIS-NN's scratch sizes depend on the Cortex-M core: give "
                     f"--core (e.g. cortex-m55){'' if core else ' or a Cortex-M --target'}"
                     + (f"; '{core}' is not one" if core else ""))

