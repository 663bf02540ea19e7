"""The geometry of patch-by-patch execution (the idea of MCUNetV2, Lin et al., NeurIPS
2021; memplan's own code), shared by the runtimes that rewrite a model's first stage
(`runtimes/tflm/patches.py`, `runtimes/executorch/patches.py`).

A stage is a run of windowed operators (convolutions, pooling) and elementwise ones on
[N, H, W, C] or [N, C, H, W] activations that reads one input and hands one tensor (the
split tensor) on. Its output is cut into a grid of patches; per patch, walking back from
the patch, each tensor is computed on the bounding box of what its consumers read
(`regions`), each read extended past the image border where the original padded (the
rewrite pads there explicitly and runs the operator unpadded). The split point and grid
are searched (`search_grids`) within a budget of extra multiply-accumulates: a share of the
whole model's (`within_budget`), as MCUNetV2 reports its overhead, one definition for every
runtime.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any


class Kind(enum.Enum):
    CONV = "conv"  # a window over H and W, zero padding
    MAX_POOL = "max pool"  # a window; padding never wins the max
    AVERAGE_POOL = "average pool"  # a window; padding changes the divisor: never padded
    ELEMENTWISE = "elementwise"  # each output element from the same position of each input


@dataclass(frozen=True)
class Window:
    """How one axis of an operator's output reads its input: output row o reads input rows
    o * stride - pad_before + j * dilation, j < kernel."""

    kernel: int = 1
    stride: int = 1
    dilation: int = 1
    pad_before: int = 0
    size: int = 0  # the input's extent on this axis

    def need(self, lo: int, hi: int) -> tuple[int, int]:
        """Input rows [lo', hi') that output rows [lo, hi) read, before clipping."""
        span = (self.kernel - 1) * self.dilation + 1
        return lo * self.stride - self.pad_before, (hi - 1) * self.stride - self.pad_before + span


Region = tuple[int, int, int, int]  # rows [h0, h1), columns [w0, w1)
Rows = tuple[int, int]  # [lo, hi) of one axis, in the whole tensor's coordinates


class Border(enum.Enum):
    """How a patch's operator gets the padding its window reads past the image border."""

    PAD = "pad"  # a PAD operator before it, the operator run VALID on exactly what it needs
    # The operator run SAME on the patch: at the image border SAME adds what the original
    # padded; at an interior edge it pads too, and the rows that read that padding are
    # wrong ("garbage"): they are never read by a kept element (`windowed_rows`) and are
    # cropped by the slice that feeds a consumer or the join. No PAD operators, but the
    # garbage rows are computed (and counted as multiply-accumulates).
    SAME = "same"


def windowed_rows(window: Window, extent: Rows, valid: Rows, same: bool, out_size: int
                  ) -> tuple[Rows, Rows] | None:
    """Run on one axis of a patch tensor that holds rows `extent` of the whole input, of
    which `valid` hold the original's values, an operator with `window` and SAME (else
    VALID) padding on the patch computes output rows (extent, valid): the rows it writes
    and those equal to the original's. None when its rows do not fall on the original's
    (SAME's offset on the patch is not the original's modulo the stride) or it writes none.
    SAME on the patch follows TFLite: out = ceil(n / stride), pad_before = max((out - 1)
    * stride + span - n, 0) // 2 (span: the dilated kernel), VALID: out = (n - span) //
    stride + 1. A row is valid when every row its window reads inside the image is valid:
    what it reads outside the image the patch pads as the original did (zero point for a
    convolution, skipped by a max pool), since the patch's own padding there lies past the
    image border too. Rows outside the original output (`out_size` rows) are never valid."""
    lo, hi = extent
    n, stride = hi - lo, window.stride
    span = (window.kernel - 1) * window.dilation + 1
    if same:
        out = -(-n // stride)
        pad = max((out - 1) * stride + span - n, 0) // 2
    else:
        out, pad = (n - span) // stride + 1, 0
    if out < 1 or (lo + window.pad_before - pad) % stride:
        return None
    base = (lo + window.pad_before - pad) // stride
    kept = [g for g in range(base, base + out)
            if max(g * stride - window.pad_before, 0) >= valid[0]
            and min(g * stride - window.pad_before + span, window.size) <= valid[1]]
    kept = [g for g in kept if 0 <= g < out_size]  # (`out_size`: the original output's)
    if not kept:
        return (base, base + out), (base, base)
    return (base, base + out), (kept[0], kept[-1] + 1)


@dataclass(frozen=True)
class StageOp:
    index: int  # the operator's position in the runtime's list
    name: str
    kind: Kind
    inputs: tuple[int, ...]  # its activations (constants left out), by the runtime's ids
    output: int
    rows: Window
    cols: Window


def regions(stage: Sequence[StageOp], target: Region, shapes: Mapping[int, tuple[int, int]]
            ) -> tuple[dict[int, Region], dict[tuple[int, int], Region]]:
    """Walking back from the patch `target` of the stage's output: the region each tensor
    is computed on (the bounding box of what its consumers read, inside the tensor), and
    the region each (operator, input) reads, before clipping to the input (`shapes`: each
    tensor's height and width)."""
    computed: dict[int, Region] = {stage[-1].output: target}
    reads: dict[tuple[int, int], Region] = {}
    for op in reversed(stage):
        if op.output not in computed:
            continue  # nothing of the patch depends on it
        h0, h1, w0, w1 = computed[op.output]
        need = (*op.rows.need(h0, h1), *op.cols.need(w0, w1))
        for i in op.inputs:
            reads[op.index, i] = need
            clipped = clip(need, shapes[i])
            old = computed.get(i)
            computed[i] = clipped if old is None else (
                min(old[0], clipped[0]), max(old[1], clipped[1]),
                min(old[2], clipped[2]), max(old[3], clipped[3]))
    return computed, reads


def clip(region: Region, shape: tuple[int, int]) -> Region:
    height, width = shape
    return (max(region[0], 0), min(region[1], height), max(region[2], 0), min(region[3], width))


def border_pads(need: Region, clipped: Region) -> tuple[int, int, int, int]:
    """What a read reaches past the image: (top, bottom, left, right)."""
    return (clipped[0] - need[0], need[1] - clipped[1], clipped[2] - need[2],
            need[3] - clipped[3])


def cuts(size: int, parts: int) -> list[int]:
    """`parts` + 1 boundaries splitting [0, size) as evenly as integers allow."""
    return [round(k * size / parts) for k in range(parts + 1)]


Grid = int | tuple[int, int]  # P (P x P patches) or (rows of patches, columns)


def grid_shape(grid: Grid) -> tuple[int, int]:
    return (grid, grid) if isinstance(grid, int) else grid


def patches(height: int, width: int, grid: Grid) -> list[list[Region]]:
    """The grid's patches of a height x width output, by row of patches."""
    rows, cols = grid_shape(grid)
    return [[(h0, h1, w0, w1) for w0, w1 in pairwise(cuts(width, cols))]
            for h0, h1 in pairwise(cuts(height, rows))]


def patched_macs(stage: Sequence[StageOp], grid: Grid, shapes: Mapping[int, tuple[int, int]],
                 per_position: Mapping[int, int]) -> int:
    """Multiply-accumulates of the stage run as the grid's patches: per patch, each
    operator's computed area times its multiply-accumulates per output position
    (`per_position`, by operator index; 0 when absent)."""
    total = 0
    height, width = shapes[stage[-1].output]
    for row in patches(height, width, grid):
        for target in row:
            computed, _ = regions(stage, target, shapes)
            for op in stage:
                if op.output in computed:
                    h0, h1, w0, w1 = computed[op.output]
                    total += (h1 - h0) * (w1 - w0) * per_position.get(op.index, 0)
    return total


def whole_macs(stage: Sequence[StageOp], shapes: Mapping[int, tuple[int, int]],
               per_position: Mapping[int, int]) -> int:
    """Multiply-accumulates of the stage run whole."""
    return sum(shapes[op.output][0] * shapes[op.output][1] * per_position.get(op.index, 0)
               for op in stage)


def within_budget(extra_macs: int, model_macs: int, max_recompute: float) -> bool:
    """Whether a rewrite that adds `extra_macs` multiply-accumulates stays within the budget:
    the patched model's at most (1 + `max_recompute`) times the original model's
    (`model_macs`). The model's, not the stage's: a stage that is a small share of the
    model may recompute more of itself for the same cost to the whole."""
    return extra_macs <= max_recompute * model_macs


@dataclass(frozen=True)
class Candidate:
    bound: int  # the lower bound of the schedule with the stage patched
    stage_macs: int  # of the patched stage
    stage: list[StageOp]
    grid: Grid  # an int unless the search was `rectangular`
    border: Border = Border.PAD


def candidate_order(c: Candidate) -> tuple:
    """The search's preference: lowest bound, then fewest multiply-accumulates, then fewest
    patches (a rectangle only where it does better than the squares)."""
    return (c.bound, c.stage_macs, _count(c.grid), c.grid, c.border.value)


def search_grids(stages: Sequence[list[StageOp]], *, max_recompute: float, max_grid: int,
                 model_macs: int, stage_macs: Callable[[list[StageOp]], int],
                 measure: Callable[[list[StageOp], Grid], tuple[int, int] | None],
                 output_size: Callable[[list[StageOp]], tuple[int, int]],
                 rectangular: bool = False) -> list[Candidate]:
    """Every split point and square grid from 2 x 2 up whose patched model stays within
    (1 + `max_recompute`) of the model's multiply-accumulates (`model_macs`; `stage_macs`:
    the stage's run whole, so the extra is the patched stage's minus it), lowest bound (then fewest
    multiply-accumulates, then the coarsest grid) first. `measure(stage, grid)` is the
    candidate's (bound, patched stage multiply-accumulates), or None when the runtime
    cannot run that grid (left out). With `rectangular`, every
    P x Q grid (rows of patches x columns, each up to `max_grid`, 1 x 1 left out) instead,
    `grid` a (P, Q) pair: rows only (P x 1) concatenate once and recompute halo on one
    axis; on a tie of bound and multiply-accumulates the fewest patches win, so a
    rectangle is chosen only where it does better than the squares."""
    found = []
    for stage in stages:
        whole = stage_macs(stage)
        height, width = output_size(stage)
        if not rectangular:
            for grid in range(2, min(max_grid, height, width) + 1):
                got = measure(stage, grid)
                if got is None:
                    continue
                bound, macs = got
                if not within_budget(macs - whole, model_macs, max_recompute):
                    break  # a finer grid recomputes more halo
                found.append(Candidate(bound, macs, stage, grid))
            continue
        for rows in range(1, min(max_grid, height) + 1):
            for cols in range(1, min(max_grid, width) + 1):
                if rows == cols == 1:
                    continue
                got = measure(stage, (rows, cols))
                if got is None:
                    continue
                bound, macs = got
                if not within_budget(macs - whole, model_macs, max_recompute):
                    break  # more columns recompute more halo
                found.append(Candidate(bound, macs, stage, (rows, cols)))
    return sorted(found, key=candidate_order)


def _count(grid: Grid) -> int:
    rows, cols = grid_shape(grid)
    return rows * cols


@dataclass(frozen=True)
class PatchRewrite:
    """The patch rewrite a runtime chose, or why none was (`model` None, `reason` said)."""

    model: Any  # the rewritten model in the runtime's form: .tflite bytes, an ExportedProgram
    reason: str
    split_tensor: str | None = None  # the stage's output, assembled from the patches
    split_after: int | None = None  # the stage's last operator, in the runtime's order
    grid: tuple[int, int] | None = None  # patches along the height, the width
    macs_before: int = 0  # the whole model's multiply-accumulates
    macs_after: int = 0
    stage_macs_before: int = 0
    stage_macs_after: int = 0
    lower_bound_before: int = 0  # of the schedule, as the runtime's search measures it
    lower_bound_after: int = 0
    # Memory the runtime keeps beside the planned arena, measured on it (TFLM's persistent
    # tail, when the search weighs it; else None)
    tail_before: int | None = None
    tail_after: int | None = None
    split_from: int = 0  # the stage's first operator (those before it kept as they are)
    border: Border = Border.PAD  # how the patches pad at the image border

    @property
    def recompute(self) -> float:
        """Extra multiply-accumulates, as a share of the original model's: what
        `max_recompute` bounds."""
        return self.macs_after / self.macs_before - 1 if self.macs_before else 0.0

    @property
    def stage_recompute(self) -> float:
        """Extra multiply-accumulates of the stage, as a share of the original stage's."""
        return self.stage_macs_after / self.stage_macs_before - 1 if self.stage_macs_before \
            else 0.0

    def said(self, operators: str, bound: str) -> str:
        """The rewrite in one line, for `--rewrite`'s `what`: `operators` names the runtime's
        unit ("operators", "call nodes"), `bound` what the bounds measure."""
        rows, cols = self.grid or (1, 1)
        return (f"{operators} {self.split_from}-{self.split_after} run as {rows}x{cols} "
                f"patches ({self.border.value} at the image border) assembled into "
                f"{self.split_tensor}: model multiply-accumulates "
                f"+{self.recompute:.1%} (stage +{self.stage_recompute:.1%}), {bound} "
                f"{self.lower_bound_before:,} B -> {self.lower_bound_after:,} B")
