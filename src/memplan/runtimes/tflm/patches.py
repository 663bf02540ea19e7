"""Patch-by-patch execution of a TFLite model's high-resolution first stage (the idea of
MCUNetV2, Lin et al., NeurIPS 2021; this is memplan's own code).

The stage is a prefix of subgraph 0's operator list, of convolutions, pooling and
elementwise operators on [1, H, W, C] tensors, that reads one subgraph input and hands
one tensor (the split tensor) to the rest. Its output is cut into a P x P grid of patches;
per patch, the rewrite emits, with operators TFLM has:
- STRIDED_SLICE of the input region the patch needs: its receptive field walked back
  through the stage (kernel, stride, dilation and SAME padding's offset per operator), and
  of any intermediate region a consumer needs less of than its producer computed;
- PAD (PADV2 with the type's minimum before MAX_POOL_2D) where that region passes the
  image border, the amount SAME padding would have added there; every convolution and
  pooling then runs with VALID padding;
- the stage's operators on the patch, with the original weights and every tensor's
  quantization copied, so each output element is computed from the same values;
then CONCATENATION of each row of patches along the width and of the rows along the
height, into the original split tensor: the operators after the stage are unchanged.

Padding SAME pads with the input's zero point (a real 0) for convolutions, which is what
PAD writes for an int8 tensor (its zero point); MAX_POOL_2D skips padded positions, so its
padding is the type's minimum, never larger than a real element of the window. AVERAGE_POOL_2D
divides by the count of real elements: when it pads, the stage stops before it.

The split point and grid are searched: every prefix that qualifies, every grid from 2 x 2
up, kept when the patched model's multiply-accumulates stay within (1 + max_recompute) of
the original model's (`plan.patches.within_budget`) and chosen by the lowest lower bound
of the new schedule as memplan plans it (`front_end.requests`: TFLM's lifetimes and sizes,
scratch included). The search builds each candidate with one-byte constant buffers
(lifetimes, sizes and scratch do not read weights); the chosen one is built again with the
real weights and measured.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ...plan.patches import (
    Border,
    Candidate,
    Grid,
    Kind,
    PatchRewrite,
    Region,
    StageOp,
    Window,
    border_pads,
    candidate_order,
    clip,
    cuts,
    grid_shape,
    regions,
    search_grids,
    windowed_rows,
)
from . import model as tfl
from .interpreter import ArenaUse

MAX_GRID = 8  # TFLM's CONCATENATION takes at most 10 inputs


WINDOWED = {"CONV_2D": Kind.CONV, "DEPTHWISE_CONV_2D": Kind.CONV,
            "MAX_POOL_2D": Kind.MAX_POOL, "AVERAGE_POOL_2D": Kind.AVERAGE_POOL}
_OPTIONS = {Kind.CONV: (tfl.schema.Conv2DOptionsT, tfl.schema.DepthwiseConv2DOptionsT),
            Kind.MAX_POOL: tfl.schema.Pool2DOptionsT,
            Kind.AVERAGE_POOL: tfl.schema.Pool2DOptionsT} if tfl.schema is not None else {}
ELEMENTWISE = frozenset({
    "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU", "LOGISTIC", "TANH",
    "HARD_SWISH", "QUANTIZE", "DEQUANTIZE", "ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM",
    "SQUARED_DIFFERENCE", "ABS", "NEG"})


class Objective(enum.Enum):
    """What the search minimises."""

    BOUND = "bound"  # the lower bound of the planned head alone
    # The head memplan's heuristics plan plus TFLM's persistent tail, measured by
    # allocating the candidate on TFLM's interpreter: every patch adds operators and
    # tensors, and TFLM keeps a record of each (and a convolution's per-channel
    # multipliers) in the tail, so a fine grid can lower the head and still enlarge the
    # arena. The plan, not the bound: a stage input released in parts keeps its parts at
    # their relative offsets (`pack.rigid`), and the heuristics' head can be above the
    # bound around it.
    ARENA = "arena"


def rewrite_patches(model: bytes, *, max_recompute: float = 0.2, max_grid: int = MAX_GRID,
                    objective: Objective = Objective.ARENA, rectangular: bool = True,
                    borders: tuple[Border, ...] = tuple(Border),
                    path: str = "model.tflite", windowed: bool = False,
                    prune: bool = True) -> PatchRewrite:
    """The model with its first stage run patch by patch, at the split point, grid and
    border padding (`borders`: the variants tried) that minimise `objective`, within
    `max_recompute` more multiply-accumulates (a share of the model's); `model` None when no
    candidate is below the original (`reason` says why). With `rectangular`, P x Q grids (rows only
    among them) are searched, else P x P: fewer patches carry less of TFLM's per-operator
    persistent data. `windowed` (TFLM's reference kernels: `--rewrite inplace` may write
    windowed operators below their input, `window.py`): the original and the candidate
    chosen are weighed with those, so a patch rewrite is not taken where the operators
    written over their input alone do better (the candidates are ranked without them:
    choosing them per candidate costs a plan per operator). `prune` False allocates every
    candidate on TFLM's interpreter (what the pruned search must match)."""
    original = tfl._unpack(model, path)
    before = schedule_bound(model, path)
    macs = model_macs(original)
    unchanged = {"macs_before": macs, "macs_after": macs, "lower_bound_before": before,
                 "lower_bound_after": before}
    stages = candidate_stages(original)
    if not stages:
        return PatchRewrite(None, "no run of convolution, pooling and elementwise operators, "
                            "first or after leading layout operators, reads one [1, H, W, C] "
                            "tensor and hands one tensor on",
                            **unchanged)
    floors: dict[tuple, Floor] = {}
    candidates = _candidates(original, stages, max_recompute, max_grid, path, rectangular,
                             borders, floors)
    if not candidates:
        return PatchRewrite(None, f"no split point and grid within {max_recompute:.0%} more "
                            "multiply-accumulates of the model", **unchanged)
    tail = None
    if objective is Objective.BOUND:
        best, cost, original_cost = candidates[0], candidates[0].bound, before
    else:
        from .interpreter import CannotRun, allocation

        try:
            use = allocation(model)
        except CannotRun as err:
            return PatchRewrite(None, f"TFLM's interpreter cannot allocate the model: {err}",
                                **unchanged)
        tail = use.tail
        best, cost, original_cost = None, None, planned_head(model, path,
                                                             windowed=windowed) + tail
        for c in candidates:
            # A candidate at or above the best total cannot win (ties go to the earlier):
            # skipped unbuilt when its floor (`Floor.total`) is, or unplanned when its
            # head's floor plus its tail is. The floor is not monotone in the candidates'
            # order, so no break.
            floor = floors[_key(c)]
            if prune and cost is not None and floor.total(use) >= cost:
                continue
            try:
                data = _packed(_patch(original, c.stage, c.grid, c.border), model)
                got = allocation(data).tail
                if prune and cost is not None and floor.head + got >= cost:
                    continue
                total = planned_head(data, path) + got
            except CannotRun:
                continue  # never chosen: a rewrite TFLM cannot run is no rewrite
            if cost is None or total < cost:
                best, cost = c, total
        if best is None:
            return PatchRewrite(None, "TFLM's interpreter allocates no candidate", **unchanged,
                                tail_before=tail, tail_after=tail)
        if windowed and cost >= original_cost:
            data = _packed(_patch(original, best.stage, best.grid, best.border), model)
            cost = planned_head(data, path, windowed=True) + allocation(data).tail
    if cost >= original_cost:
        what = "lower bound" if objective is Objective.BOUND else \
            "head (memplan's heuristics) plus TFLM's tail"
        return PatchRewrite(None, f"the best candidate's {what} ({cost} B) is not below the "
                            f"original's ({original_cost} B)", **unchanged, tail_before=tail,
                            tail_after=tail)
    patched = _patch(original, best.stage, best.grid, best.border)
    data = _packed(patched, model)
    stage_macs = _stage_macs(original, best.stage)
    after_macs = model_macs(patched)
    rows, cols = grid_shape(best.grid)
    return PatchRewrite(
        data, f"stage of {len(best.stage)} operators run as {rows} x {cols} patches "
        f"({best.border.value} at the image border)",
        _text(original.subgraphs[0].tensors[best.stage[-1].output].name), best.stage[-1].index,
        (rows, cols), macs, after_macs, stage_macs, after_macs - macs + stage_macs,
        before, schedule_bound(data, path), tail,
        None if tail is None else allocation(data).tail, best.stage[0].index, best.border)


def _key(c: Candidate) -> tuple:
    return c.stage[0].index, c.stage[-1].index, c.grid, c.border


@dataclass(frozen=True)
class Floor:
    """What a candidate's arena cannot go below, known before it is built with its weights
    and allocated on TFLM's interpreter."""

    head: int  # its bound with the in-place operators `planned_head` writes: no plan is lower
    operators: int  # more than the original's (each patch's copies, slices, pads, joins)
    tensors: int  # more than the original's

    def total(self, original: ArenaUse) -> int:
        """The head's floor plus the tail's: the original's tail, plus one
        NodeAndRegistration per operator and one TfLiteEvalTensor per tensor added (TFLM
        allocates both arrays by count). The original's tail is a floor because the
        patched model keeps every operator and tensor outside the stage and at least one
        copy of each stage operator, same weights and channels, so each kernel's
        persistent data is there at least once. Not so for a stage's explicit PAD, which
        the patches may drop (`_describe_pad`): its OpData is not counted apart, and the
        patches' extra convolutions (their per-channel data) outweigh it; checked on
        cnn5's candidates (tests/test_tflm_patches.py), not proven, and not yet measured
        on the real models' candidates."""
        return self.head + original.tail + self.operators * original.per_operator \
            + self.tensors * original.per_tensor


def _candidates(original, stages: list[list[StageOp]], max_recompute: float, max_grid: int,
                path: str, rectangular: bool, borders: tuple[Border, ...] = (Border.PAD,),
                floors: dict[tuple, Floor] | None = None) -> list[Candidate]:
    """Every split point, grid and border padding within the budget, lowest bound (then
    fewest multiply-accumulates) first; `floors`, when given, gets each candidate's
    `Floor` (by `_key`)."""
    from .inplace import in_place

    skeleton = _without_weights(original)
    macs = model_macs(original)

    def measure(stage: list[StageOp], grid: Grid, border: Border) -> tuple[int, int] | None:
        try:
            patched = _patch(skeleton, stage, grid, border)
        except ValueError:
            return None  # a patch that needs no row of some tensor: no such grid
        # Read as a packed file would be, without packing it (a flatbuffer round trip
        # through the object API costs more than the rest of the search).
        view = tfl.model_view(patched, path)
        if floors is not None:
            was, now = original.subgraphs[0], patched.subgraphs[0]
            floors[stage[0].index, stage[-1].index, grid, border] = Floor(
                _bound(in_place(view)[0]), len(now.operators) - len(was.operators),
                len(now.tensors) - len(was.tensors))
        return _bound(view), model_macs(patched) - macs + _stage_macs(original, stage)

    def output_size(stage: list[StageOp]) -> tuple[int, int]:
        shape = original.subgraphs[0].tensors[stage[-1].output].shape
        return int(shape[1]), int(shape[2])

    found = []
    for border in borders:
        found += [dataclasses.replace(c, border=border) for c in search_grids(
            stages, max_recompute=max_recompute, max_grid=max_grid, model_macs=macs,
            stage_macs=lambda stage: _stage_macs(original, stage),
            measure=lambda stage, grid, b=border: measure(stage, grid, b),
            output_size=output_size, rectangular=rectangular)]
    return sorted(found, key=candidate_order)


def _stage_macs(model, stage: list[StageOp]) -> int:
    return sum(_op_macs(model, model.subgraphs[0].operators[s.index]) for s in stage)


def _packed(model, original: bytes) -> bytes:
    """The model as a file, every constant buffer 16-aligned as the schema asks."""
    model.buffers = [tfl._AlignedBuffer.of(b) for b in model.buffers]
    return tfl._pack(model, len(original) + (1 << 16))


def rewrite_at(model: bytes, split_after: int, grid: Grid, path: str = "model.tflite",
               split_from: int | None = None, border: Border = Border.PAD) -> bytes:
    """The model with operators `split_from`..`split_after` (None: the earliest start) run
    as `grid`'s patches (P: P x P; a (rows, columns) pair), whatever it costs; ValueError
    when they are not a stage that can run patch by patch."""
    tfl.parse_tflite(model, path)  # indices and shapes checked, as rewrite_patches does
    original = tfl._unpack(model, path)
    for stage in candidate_stages(original):
        if stage[-1].index == split_after and split_from in (None, stage[0].index):
            _, height, width, _ = original.subgraphs[0].tensors[stage[-1].output].shape
            rows, cols = grid_shape(grid)
            if not (1 <= rows <= min(MAX_GRID, height) and 1 <= cols <= min(MAX_GRID, width)):
                raise ValueError(f"a {rows} x {cols} grid on a {height} x {width} output")
            return _packed(_patch(original, stage, grid, border), model)
    raise ValueError(f"operators 0..{split_after} are not a stage that runs patch by patch")


def schedule_bound(data: bytes, path: str = "model.tflite") -> int:
    """The lower bound of the model's arena as memplan plans it: the most bytes TFLM's
    lifetimes keep live at once, in-place RESHAPEs sharing, scratch buffers included."""
    return _bound(tfl.parse_tflite(data, path))


def planned_head(data: bytes, path: str = "model.tflite", *, windowed: bool = False) -> int:
    """The head memplan's heuristics plan for the model (no exact search), its in-place
    operators written over their dying inputs (`inplace.py`: a QUANTIZE kept before the
    stage costs its input's bytes only; `windowed`: also the windowed operators
    `window.py` would write below their input): what the search weighs a candidate by,
    with TFLM's tail."""
    from ...buffers import Arena
    from ...plan.driver import plan_arena
    from .front_end import planned_head as measure
    from .front_end import requests
    from .inplace import in_place
    from .window import choose

    model = in_place(tfl.parse_tflite(data, path))[0]
    if windowed:
        model = choose(model, measure)[0]
    buffers = tuple(requests(model))
    return plan_arena(Arena("arena", buffers, tfl.ALIGNMENT), time_limit=None)[0].size


def _bound(model: tfl.TfliteModel) -> int:
    from .front_end import head_bound, requests

    return head_bound(requests(model))


# --- the stage ----------------------------------------------------------------------

# Operators that may come before the stage, kept as they are: they move or convert bytes
# without a spatial window (a TRANSPOSE from NCHW, a RESHAPE of a flat feature vector, the
# QUANTIZE of a float input), so the stage may start at any tensor of their chain.
LEADING = frozenset({"TRANSPOSE", "RESHAPE", "QUANTIZE", "DEQUANTIZE", "EXPAND_DIMS",
                     "SQUEEZE"})


def candidate_stages(model) -> list[list[StageOp]]:
    """Every run of subgraph 0's operators that can run patch by patch, from the start or
    after a leading chain of `LEADING` operators (kept before it), shortest first per start."""
    sg = model.subgraphs[0]
    tensors = sg.tensors or []
    codes = [tfl._op_name(c) for c in model.operatorCodes or []]
    constant = {i for i, t in enumerate(tensors) if _has_data(model, t)}
    sg_inputs = [int(i) for i in _ints(sg.inputs)]
    ops = sg.operators or []
    readers: dict[int, int] = {}
    for op in ops:
        for i in _ints(op.inputs):
            readers[i] = readers.get(i, 0) + 1
    stages = _stages_from(model, 0, None, sg_inputs, constant, codes)
    if len(sg_inputs) != 1:
        return stages
    x = sg_inputs[0]
    for n, op in enumerate(ops):  # the chain: each reads only the one before's output
        outs = _ints(op.outputs)
        acts = [i for i in _ints(op.inputs) if i >= 0 and i not in constant]
        if codes[op.opcodeIndex] not in LEADING or acts != [x] or len(outs) != 1 \
                or readers.get(x, 0) != 1 or int(outs[0]) in {int(i) for i in _ints(sg.outputs)}:
            break
        x = int(outs[0])
        if _spatial(tensors[x]) and readers.get(x, 0) == 1:
            stages += _stages_from(model, n + 1, x, sg_inputs, constant, codes)
    return stages


def _stages_from(model, first: int, source: int | None, sg_inputs: list[int],
                 constant: set[int], codes: list[str]) -> list[list[StageOp]]:
    """The stages starting at operator `first` that read `source` (None: one subgraph
    input), shortest first."""
    sg = model.subgraphs[0]
    tensors = sg.tensors or []
    sg_outputs = {int(i) for i in _ints(sg.outputs)}
    ops = sg.operators or []
    last_use: dict[int, int] = {}
    for n, op in enumerate(ops):
        for i in _ints(op.inputs):
            last_use[i] = n
    stages, stage = [], []
    produced: set[int] = set()
    for n, op in enumerate(ops[first:], first):
        name = codes[op.opcodeIndex]
        described = _describe_pad(n, model, op) if name == "PAD" else \
            _describe(n, name, op, tensors, constant)
        if described is None:
            break
        outside = [i for i in described.inputs if i not in produced]
        if outside:
            if source is None and len(set(outside)) == 1 and outside[0] in sg_inputs:
                source = outside[0]
            elif any(i != source for i in outside):
                break
        stage.append(described)
        produced.add(described.output)
        live_out = [t for t in produced if last_use.get(t, -1) > n or t in sg_outputs]
        if len(live_out) == 1 and live_out[0] == described.output:
            stages.append(list(stage))
    return stages


def _describe(n: int, name: str, op, tensors, constant: set[int]) -> StageOp | None:
    """The operator as the stage walks it, or None when it cannot run on a patch."""
    outs = _ints(op.outputs)
    ins = [i for i in _ints(op.inputs) if i >= 0]
    if len(outs) != 1 or not _spatial(tensors[outs[0]]) or op.intermediates is not None \
            and len(op.intermediates):
        return None
    out = tensors[outs[0]]
    if name in WINDOWED:
        kind = WINDOWED[name]
        if not ins or ins[0] in constant or not _spatial(tensors[ins[0]]):
            return None
        if any(i not in constant for i in ins[1:]):
            return None
        o = op.builtinOptions
        if not isinstance(o, _OPTIONS[kind]):
            return None
        if kind is Kind.CONV:
            filt = tensors[ins[1]].shape if len(ins) > 1 else None
            if filt is None or len(filt) != 4:
                return None
            kernel = filt[1:3]
            dilation = (o.dilationHFactor, o.dilationWFactor)
        else:
            kernel = (o.filterHeight, o.filterWidth)
            dilation = (1, 1)
        shape = tensors[ins[0]].shape
        windows = []
        for axis in (0, 1):
            k, s, d, size = int(kernel[axis]), int((o.strideH, o.strideW)[axis]), \
                int(dilation[axis]), int(shape[1 + axis])
            if min(k, s, d) < 1:
                return None
            span = (k - 1) * d + 1
            produced = int(out.shape[1 + axis])
            pad = 0
            if o.padding == tfl.schema.Padding.SAME:
                pad = max((produced - 1) * s + span - size, 0)
                expected = -(-size // s)
            else:
                expected = (size - span) // s + 1
            if produced != expected:  # the walk trusts the shapes: they must be TFLite's
                return None
            if kind is Kind.AVERAGE_POOL and pad:
                return None
            windows.append(Window(k, s, d, pad // 2, size))
        return StageOp(n, name, kind, (ins[0],), outs[0], *windows)
    if name in ELEMENTWISE:
        acts = [i for i in ins if i not in constant]
        if not acts or any(list(tensors[i].shape) != list(out.shape) for i in acts):
            return None
        for i in ins:  # a constant must broadcast over the height and width
            shape = list(tensors[i].shape if tensors[i].shape is not None else [])
            if i in constant and len(shape) >= 3 and (shape[-3] != 1 or shape[-2] != 1):
                return None
        rows, cols = (Window(size=int(out.shape[a])) for a in (1, 2))
        return StageOp(n, name, Kind.ELEMENTWISE, tuple(acts), outs[0], rows, cols)
    return None


def _describe_pad(n: int, model, op) -> StageOp | None:
    """An explicit PAD of the height and width (what keras.applications puts before a
    stride-2 convolution): a window of one that reads `top` rows before its output. Run on
    a patch it is no operator: the patch's read of its input, padded at the image border
    like any other, is its output (`_patch`)."""
    tensors = model.subgraphs[0].tensors
    ins, outs = _ints(op.inputs), _ints(op.outputs)
    if len(ins) != 2 or len(outs) != 1 or not _spatial(tensors[ins[0]]) \
            or not _spatial(tensors[outs[0]]):
        return None
    x, y = tensors[ins[0]], tensors[outs[0]]
    paddings = _int32s(model, tensors[ins[1]])
    # PAD writes its output's zero point; the patch's border PAD writes its input's.
    if paddings is None or paddings.shape != (4, 2) or (paddings < 0).any() \
            or paddings[0].any() or paddings[3].any() or x.type != y.type \
            or not _same_quantization(x, y):
        return None
    windows = []
    for axis in (1, 2):
        before, after = (int(v) for v in paddings[axis])
        if int(y.shape[axis]) != int(x.shape[axis]) + before + after:
            return None
        windows.append(Window(pad_before=before, size=int(x.shape[axis])))
    return StageOp(n, "PAD", Kind.CONV, (ins[0],), outs[0], *windows)


def _int32s(model, tensor):
    """A constant int32 tensor's values, or None when it holds none in the model."""
    buffers = model.buffers or []
    if tensor.type != tfl.schema.TensorType.INT32 or not 0 < tensor.buffer < len(buffers):
        return None
    data = buffers[tensor.buffer].data
    shape = [int(d) for d in tensor.shape if tensor.shape is not None]
    if data is None or len(data) != 4 * int(np.prod(shape)):
        return None
    return np.frombuffer(np.asarray(data, dtype=np.uint8).tobytes(), dtype="<i4").reshape(shape)


def _same_quantization(a, b) -> bool:
    def params(t):
        q = t.quantization
        if q is None or q.scale is None:
            return None
        return ([float(s) for s in q.scale], [int(z) for z in q.zeroPoint])
    return params(a) == params(b)


def _spatial(tensor) -> bool:
    shape = tensor.shape
    return shape is not None and len(shape) == 4 and int(shape[0]) == 1 \
        and all(int(d) > 0 for d in shape)


# --- the rewrite --------------------------------------------------------------------

class _Emitter:
    """New tensors, constants and operators appended to a copy of the model."""

    def __init__(self, model):
        self.model = model
        self.sg = model.subgraphs[0]
        self.tensors = list(self.sg.tensors)
        self.ops: list = []
        self.constants: dict[tuple, int] = {}

    def code(self, name: str) -> int:
        builtin = getattr(tfl.schema.BuiltinOperator, name)
        for n, c in enumerate(self.model.operatorCodes):
            if max(int(c.builtinCode), int(c.deprecatedBuiltinCode)) == builtin:
                return n
        code = tfl.schema.OperatorCodeT()
        code.builtinCode, code.deprecatedBuiltinCode = builtin, min(builtin, 127)
        code.version = 1
        self.model.operatorCodes.append(code)
        return len(self.model.operatorCodes) - 1

    def like(self, original: int, shape, name: str) -> int:
        """A tensor of `original`'s type and quantization, of another shape."""
        t = copy.copy(self.tensors[original])
        t.shape, t.name, t.buffer = list(shape), name, 0
        t.shapeSignature = None
        self.tensors.append(t)
        return len(self.tensors) - 1

    def constant(self, values, dtype: str, like: int | None = None) -> int:
        array = np.asarray(values, dtype=dtype)
        key = (dtype, array.shape, array.tobytes(), like)
        if key not in self.constants:
            buffer = tfl.schema.BufferT()
            buffer.data = np.frombuffer(array.tobytes(), dtype=np.uint8)
            self.model.buffers.append(buffer)
            t = tfl.schema.TensorT()
            if like is not None:
                t = copy.copy(self.tensors[like])
                t.shapeSignature = None
            else:
                t.type = tfl.schema.TensorType.INT32
            t.shape, t.name = list(array.shape), f"patch_constant_{len(self.constants)}"
            t.buffer = len(self.model.buffers) - 1
            self.tensors.append(t)
            self.constants[key] = len(self.tensors) - 1
        return self.constants[key]

    def op(self, name: str, inputs, outputs, options=None, options_type: int = 0,
           template=None) -> None:
        op = copy.copy(template) if template is not None else tfl.schema.OperatorT()
        op.opcodeIndex = self.code(name) if template is None else template.opcodeIndex
        op.inputs, op.outputs = list(inputs), list(outputs)
        if options is not None:
            op.builtinOptionsType, op.builtinOptions = options_type, options
        self.ops.append(op)

    def slice(self, source: int, region: Region, within: Region, name: str) -> int:
        """`region` of `source`, which holds `within` of its tensor."""
        channels = int(self.tensors[source].shape[3])
        h0, h1, w0, w1 = region
        y = self.like(source, [1, h1 - h0, w1 - w0, channels], name)
        begin = [0, h0 - within[0], w0 - within[2], 0]
        end = [1, h1 - within[0], w1 - within[2], channels]
        self.op("STRIDED_SLICE", [source, self.constant(begin, "int32"),
                                  self.constant(end, "int32"),
                                  self.constant([1, 1, 1, 1], "int32")], [y],
                tfl.schema.StridedSliceOptionsT(), tfl.schema.BuiltinOptions.StridedSliceOptions)
        return y

    def pad(self, source: int, pads: tuple[int, int, int, int], kind: Kind, name: str) -> int:
        _, h, w, c = (int(d) for d in self.tensors[source].shape)
        top, bottom, left, right = pads
        y = self.like(source, [1, h + top + bottom, w + left + right, c], name)
        paddings = self.constant([[0, 0], [top, bottom], [left, right], [0, 0]], "int32")
        if kind is Kind.MAX_POOL:
            dtype = _DTYPES[self.tensors[source].type]
            low = np.iinfo(dtype).min if np.dtype(dtype).kind in "iu" else np.finfo(dtype).min
            value = self.constant([low], dtype, like=source)
            self.op("PADV2", [source, paddings, value], [y], tfl.schema.PadV2OptionsT(),
                    tfl.schema.BuiltinOptions.PadV2Options)
        else:
            self.op("PAD", [source, paddings], [y], tfl.schema.PadOptionsT(),
                    tfl.schema.BuiltinOptions.PadOptions)
        return y

    def concat(self, parts: list[int], axis: int, out: int) -> None:
        options = tfl.schema.ConcatenationOptionsT()
        options.axis = axis
        self.op("CONCATENATION", parts, [out], options,
                tfl.schema.BuiltinOptions.ConcatenationOptions)


_DTYPES = {tfl.schema.TensorType.INT8: "int8", tfl.schema.TensorType.UINT8: "uint8",
           tfl.schema.TensorType.INT16: "int16", tfl.schema.TensorType.FLOAT32: "float32"} \
    if tfl.schema is not None else {}


def _patch(model, stage: list[StageOp], grid: Grid, border: Border = Border.PAD):
    """A copy of `model` whose stage runs as the grid's patches (a row or column of one
    patch needs no CONCATENATION: the patch is the row), each operator padded at the image
    border as `border` says."""
    new = copy.copy(model)
    new.buffers = list(model.buffers)
    new.operatorCodes = list(model.operatorCodes)
    sg = copy.copy(model.subgraphs[0])
    new.subgraphs = [sg, *model.subgraphs[1:]]
    emit = _Emitter(new)
    tensors = model.subgraphs[0].tensors
    shapes = {i: (int(tensors[i].shape[1]), int(tensors[i].shape[2]))
              for op in stage for i in (*op.inputs, op.output)}
    originals = model.subgraphs[0].operators
    split = stage[-1].output
    height, width = shapes[split]
    rows, cols = (cuts(n, k) for n, k in zip((height, width), grid_shape(grid), strict=True))
    strips = []
    for r, (h0, h1) in enumerate(pairwise(rows)):
        pieces = []
        for c, (w0, w1) in enumerate(pairwise(cols)):
            target = (h0, h1, w0, w1)
            grow = _best_growth(originals, tensors, stage, target, shapes) \
                if border is Border.SAME else None
            made = _patch_ops(emit, originals, tensors, stage, target, shapes, border,
                              f"@{r}.{c}", grow)
            x, extent, _ = made[split]
            if extent != target:  # rows SAME computed past the patch: cropped
                x = emit.slice(x, target, extent, f"{_text(tensors[split].name)}@{r}.{c}")
            pieces.append(x)
        if len(rows) == 2:  # one row of patches: it is the split tensor
            emit.concat(pieces, 2, split)
            break
        if len(pieces) == 1:
            strips.append(pieces[0])
            continue
        strip = emit.like(split, [1, h1 - h0, width, int(tensors[split].shape[3])],
                          f"{_text(tensors[split].name)}@{r}")
        emit.concat(pieces, 2, strip)
        strips.append(strip)
    if strips:
        emit.concat(strips, 1, split)
    dropped = {op.output for op in stage} - {split}
    sg.operators = list(originals[:stage[0].index]) + emit.ops \
        + list(originals[stage[-1].index + 1:])
    _renumber(new, sg, emit.tensors, dropped)
    return new


# A patch tensor: its index, the region of the whole tensor it holds, and the part of that
# region whose values are the original's (the rest read SAME's padding at an interior edge).
_Made = tuple[int, Region, Region]


def _patch_ops(emit, originals, tensors, stage: list[StageOp], target: Region, shapes,
               border: Border, tag: str, grow: Region | None = None) -> dict[int, _Made]:
    """Emit one patch's operators; returns each original tensor's patch tensor. With
    `grow` (rows above, below, columns left, right), a SAME window reading the stage's
    input reads that much more of it than it needs (inside the image)."""
    computed, reads = regions(stage, target, shapes)
    if any(t >= b or lf >= rt for t, b, lf, rt in computed.values()):
        raise ValueError(f"patch {tag} reads nothing of a tensor of the stage")
    made: dict[int, _Made] = {}

    def source(i: int) -> _Made:
        whole = (0, shapes[i][0], 0, shapes[i][1])
        return made.get(i, (i, whole, whole))

    def cropped(i: int, region: Region, name: str) -> int:
        x, extent, _ = source(i)
        return x if extent == region else emit.slice(x, region, extent, name)

    for op in stage:
        if op.output not in computed:
            continue
        name = _text(tensors[op.output].name)
        out = computed[op.output]
        if op.kind is Kind.ELEMENTWISE:
            ins = [source(i) for i in op.inputs]
            extents = {extent for _, extent, _ in ins}
            valid = _intersection([v for _, _, v in ins])
            # SAME patches' spoiled rows ride along, unread; an input not yet cut into
            # patches (the stage's own) is sliced, never computed whole per patch
            if border is Border.SAME and len(extents) == 1 and _within(out, valid) \
                    and all(i in made for i in op.inputs):
                args, extent = [x for x, _, _ in ins], extents.pop()
            else:
                args = [cropped(i, out, f"{_text(tensors[i].name)}{tag}/slice{op.index}")
                        for i in op.inputs]
                extent = valid = out
            made[op.output] = (_emit_like(emit, originals[op.index], op, args, extent, None,
                                          tensors, f"{name}{tag}"), extent, valid)
            continue
        (i,) = op.inputs
        need = reads[op.index, i]
        clipped = clip(need, shapes[i])
        slice_name = f"{_text(tensors[i].name)}{tag}/slice{op.index}"
        if op.name == "PAD":  # its input, read and padded as its output is
            x = cropped(i, clipped, slice_name)
            pads = border_pads(need, clipped)
            if any(pads):
                x = emit.pad(x, pads, op.kind, f"{_text(tensors[i].name)}{tag}/pad")
            made[op.output] = (x, out, out)
            continue
        if border is Border.SAME:
            # The split tensor's patch is joined in place into the split tensor (`_joins`
            # in model.py): computed exactly, it needs no cropped copy.
            found = _self_padded(op, source(i), clipped, out, shapes[i], shapes[op.output],
                                 exact=op.output == stage[-1].output, grow=grow)
            if found is not None:
                sliced, same, extent, valid = found
                x = cropped(i, sliced, slice_name) if sliced is not None else source(i)[0]
                made[op.output] = (_emit_like(emit, originals[op.index], op, [x], extent,
                                              same, tensors, f"{name}{tag}"), extent, valid)
                continue
        x = cropped(i, clipped, slice_name)
        pads = border_pads(need, clipped)
        if any(pads):
            x = emit.pad(x, pads, op.kind, f"{_text(tensors[i].name)}{tag}/pad")
        made[op.output] = (_emit_like(emit, originals[op.index], op, [x], out, False, tensors,
                                      f"{name}{tag}"), out, out)
    return made


class _Count:
    """An emitter that only counts: the operators a patch would emit and the elements of
    the tensors it would make (what `_best_growth` weighs)."""

    def __init__(self, tensors):
        self.channels = {i: int(t.shape[3]) for i, t in enumerate(tensors)
                         if t.shape is not None and len(t.shape) == 4}
        self.ops = self.elements = 0

    def _new(self, shape) -> int:
        self.elements += int(np.prod(shape))
        key = -1 - len(self.channels)
        self.channels[key] = int(shape[3])
        return key

    def like(self, original: int, shape, name: str) -> int:
        return self._new(shape)

    def op(self, *args, **kwargs) -> None:
        self.ops += 1

    def slice(self, source: int, region: Region, within: Region, name: str) -> int:
        self.ops += 1
        return self._new([1, region[1] - region[0], region[3] - region[2],
                          self.channels[source]])

    def pad(self, source: int, pads, kind: Kind, name: str) -> int:
        self.ops += 1
        return self._new([1, 1, 1, self.channels[source]])  # a copy, about its input's size


# How much more of the stage's input a SAME patch may read, per end of an axis: SAME's
# offset on a patch depends on the parity of its size, at every strided operator.
_GROWTH = ((0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (0, 3), (2, 0), (3, 0))


def _best_growth(originals, tensors, stage: list[StageOp], target: Region, shapes) -> Region:
    """The extra rows and columns of the stage's input a SAME patch reads that make the
    fewest operators (no slice or PAD where a strided window's offset misses), then the
    fewest elements; rows and columns chosen one after the other (each axis's offsets
    depend on its own sizes only)."""
    def cost(grow: Region) -> tuple[int, int]:
        count = _Count(tensors)
        made = _patch_ops(count, originals, tensors, stage, target, shapes, Border.SAME,
                          "", grow)
        _, extent, _ = made[stage[-1].output]
        return count.ops + (extent != target), count.elements

    rows = min(_GROWTH, key=lambda g: cost((*g, 0, 0)))
    cols = min(_GROWTH, key=lambda g: cost((*rows, *g)))
    return (*rows, *cols)


def _self_padded(op: StageOp, have: _Made, clipped: Region, out: Region,
                 in_shape: tuple[int, int], out_shape: tuple[int, int], exact: bool,
                 grow: Region | None = None) -> tuple[Region | None, bool, Region, Region] | None:
    """How `op` computes `out` with no PAD (`Border.SAME`): (the region of its input to
    slice first, None to read the patch tensor as it is; SAME or VALID; the output's
    extent and valid region), the smallest output of those that work, reading the patch
    tensor as it is before slicing (a slice is an operator too), with `exact` only an
    output of exactly `out`; the whole input read `grow` wider (`_patch_ops`), if given;
    None when none works."""
    _, extent, valid = have
    whole = extent == (0, in_shape[0], 0, in_shape[1])
    windows = (op.rows, op.cols)
    best = None
    if whole and grow is not None:
        slices = tuple(_widened(clip((clipped[0] - grow[0], clipped[1] + grow[1],
                                      clipped[2] - grow[2], clipped[3] + grow[3]), in_shape),
                                valid))
    else:
        slices = ((None,) if not whole else ()) + tuple(_widened(clipped, valid))
    for sliced in slices:
        ext, val = (extent, valid) if sliced is None else (sliced, sliced)
        for same in (True, False):
            axes = [windowed_rows(w, ext[2 * a:2 * a + 2], val[2 * a:2 * a + 2], same,
                                  out_shape[a]) for a, w in enumerate(windows)]
            if any(got is None for got in axes):
                continue
            o_ext = (*axes[0][0], *axes[1][0])
            o_val = (*axes[0][1], *axes[1][1])
            if not _within(out, o_val) or exact and o_ext != out:
                continue
            area = (o_ext[1] - o_ext[0]) * (o_ext[3] - o_ext[2])
            if best is None or area < best[0]:
                best = (area, (sliced, same, o_ext, o_val))
        if best is not None and sliced is None:
            break  # the patch tensor as it is: no slice operator
    return None if best is None else best[1]


def _widened(region: Region, bounds: Region):
    """`region`, then grown by a row or column at an end, inside `bounds` (what the source
    holds of the original's values): SAME's offset on a patch depends on the parity of its
    size, and one more real row can align it."""
    h0, h1, w0, w1 = region
    rows = [(h0, h1)] + [(a, b) for a, b in ((h0 - 1, h1), (h0, h1 + 1), (h0 - 1, h1 + 1))
                         if a >= bounds[0] and b <= bounds[1]]
    cols = [(w0, w1)] + [(a, b) for a, b in ((w0 - 1, w1), (w0, w1 + 1), (w0 - 1, w1 + 1))
                         if a >= bounds[2] and b <= bounds[3]]
    for a, b in rows:
        for c, d in cols:
            yield (a, b, c, d)


def _within(inner: Region, outer: Region) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer[2] <= inner[2] \
        and inner[3] <= outer[3]


def _intersection(regions_: list[Region]) -> Region:
    return (max(r[0] for r in regions_), min(r[1] for r in regions_),
            max(r[2] for r in regions_), min(r[3] for r in regions_))


def _emit_like(emit: _Emitter, template, op: StageOp, args: list[int], extent: Region,
               same: bool | None, tensors, name: str) -> int:
    """`template` run on the patch tensors `args`, writing `extent` of its output; a
    window run SAME or VALID (`same`; None: an elementwise operator)."""
    h0, h1, w0, w1 = extent
    y = emit.like(op.output, [1, h1 - h0, w1 - w0, int(tensors[op.output].shape[3])], name)
    args = list(args)
    inputs = [args.pop(0) if (i >= 0 and i in op.inputs) else i for i in _ints(template.inputs)]
    options = copy.copy(template.builtinOptions)
    if same is not None:
        options.padding = tfl.schema.Padding.SAME if same else tfl.schema.Padding.VALID
    emit.op(op.name, inputs, [y], options, template.builtinOptionsType, template)
    return y


def _renumber(model, sg, tensors: list, dropped: set[int]) -> None:
    """Remove the stage's original intermediates and number the rest densely, in every
    operator, the subgraph's inputs and outputs and the signatures."""
    keep = [i for i in range(len(tensors)) if i not in dropped]
    index = {old: new for new, old in enumerate(keep)}

    def remap(values):
        return None if values is None else [index[int(v)] if v >= 0 else int(v) for v in values]

    sg.tensors = [tensors[i] for i in keep]
    ops = []
    for op in sg.operators:
        op = copy.copy(op)
        op.inputs, op.outputs = remap(op.inputs), remap(op.outputs)
        if op.intermediates is not None and len(op.intermediates):
            op.intermediates = remap(op.intermediates)
        ops.append(op)
    sg.operators = ops
    sg.inputs, sg.outputs = remap(sg.inputs), remap(sg.outputs)
    signatures = []
    for sig in model.signatureDefs or []:
        sig = copy.copy(sig)
        if sig.subgraphIndex == 0:
            for field in ("inputs", "outputs"):
                entries = []
                for entry in getattr(sig, field) or []:
                    entry = copy.copy(entry)
                    entry.tensorIndex = index[entry.tensorIndex]
                    entries.append(entry)
                setattr(sig, field, entries)
        signatures.append(sig)
    model.signatureDefs = signatures or model.signatureDefs
    # An offline plan numbers the old tensors: the rewritten model is planned again.
    model.metadata = [m for m in model.metadata or [] if _text(m.name) != tfl.METADATA_NAME] \
        or None


def _without_weights(model):
    """A copy whose constant buffers hold one byte each: what the search builds and reads
    (lifetimes, sizes and scratch requests never read a weight)."""
    new = copy.copy(model)
    new.buffers = []
    for b in model.buffers or []:
        if b.data is not None and len(b.data) > 0:
            b = copy.copy(b)
            b.data = np.zeros(1, dtype=np.uint8)
        new.buffers.append(b)
    return new


# --- multiply-accumulates -----------------------------------------------------------

def model_macs(model) -> int:
    """Multiply-accumulates of subgraph 0's convolutions and fully connected layers."""
    return sum(_op_macs(model, op) for op in model.subgraphs[0].operators or [])


def _op_macs(model, op) -> int:
    name = tfl._op_name(model.operatorCodes[op.opcodeIndex])
    tensors = model.subgraphs[0].tensors
    ins, outs = _ints(op.inputs), _ints(op.outputs)
    if name not in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED") or len(ins) < 2:
        return 0
    out = int(np.prod([int(d) for d in tensors[outs[0]].shape]))
    filt = [int(d) for d in tensors[ins[1]].shape if tensors[ins[1]].shape is not None]
    if len(filt) != (2 if name == "FULLY_CONNECTED" else 4):
        return 0
    if name == "CONV_2D":
        return out * filt[1] * filt[2] * filt[3]
    if name == "DEPTHWISE_CONV_2D":
        return out * filt[1] * filt[2]
    return out * filt[-1]


def _has_data(model, tensor) -> bool:
    buffers = model.buffers or []
    return 0 < tensor.buffer < len(buffers) and tfl._buffer_len(buffers[tensor.buffer]) > 0


_ints = tfl._ints
_text = tfl._text
