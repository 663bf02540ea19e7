"""Pictures of a plan: time step on x, offset on y, one rectangle per buffer.

Drawn with matplotlib's Agg backend (no display needed). A PatchCollection
keeps 500+ rectangles fast. Rectangles carry short labels (#1 for the largest
buffer, #2 for the next...) where they fit, and a key beside the panel gives each
its name: a long tensor name is never printed over a box. Buffers thinner than a
pixel are drawn one pixel thick and named in a footnote, so none vanishes.
Reference lines at equal heights become one line with a joint label (peak = lower
bound), and the live-bytes profile has its own panel below, with the lower bound,
where it cannot hide a rectangle.

`memplan pack --plot` draws one packing (`draw_layout`); `memplan plan --plot` draws
each arena of a model (`draw_model_plan`): memplan's plan, the runtime's own plan of
the same tensors beside it at the same scale where the runtime has one, the live
bytes, and the arena to declare.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from ..errors import InputError  # noqa: E402
from ..pack import PackResult, Problem, live_bytes_profile  # noqa: E402

if TYPE_CHECKING:
    from ..plan.contract import RunCheck
    from ..plan.driver import ArenaPlan, ModelPlan

PLOT_FORMATS = (".svg", ".png", ".pdf")
DPI = 150
_MIN_PIXELS = 1.5  # thinnest rectangle drawn, in pixels at DPI
_FOOTNOTE_IDS = 6
_KEY_LINES = 40  # a key longer than this would run off the figure


def check_plot_path(path: str | Path) -> str:
    """The format named by the path's suffix; bad input when memplan cannot draw it."""
    suffix = Path(path).suffix.lower()
    if suffix not in PLOT_FORMATS:
        raise InputError(path, f"plot format must be one of {', '.join(PLOT_FORMATS)}")
    return suffix.lstrip(".")


def write_layout_plot(result: PackResult, file: IO[bytes], fmt: str, title: str = "") -> None:
    """Draw the plot into an open binary file (for `files.Outputs`)."""
    figure = draw_layout(result, title)
    try:
        figure.savefig(file, format=fmt, dpi=DPI)
    finally:
        plt.close(figure)


def draw_layout(result: PackResult, title: str = "") -> plt.Figure:
    problem = result.problem
    figure, (axes, live_axes) = plt.subplots(
        2, 1, figsize=(14, 9), sharex=True, gridspec_kw={"height_ratios": [4, 1]})
    heading = title or "memory layout"
    boxes = tuple(Box(b.id, b.start, b.end, off, b.size)
                  for b, off in zip(problem.buffers, result.solution.offsets, strict=True))
    numbers = _numbers(boxes)
    t_span, top = _set_up_panel(axes, result, f"{heading}: {len(problem)} buffers")
    _draw_live_bytes(live_axes, result.problem, result.lower_bound)
    key = _key(boxes, numbers)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    figure.tight_layout(rect=(0, 0.03, 0.8 if key else 1, 1))
    thin = _draw_boxes(figure, axes, boxes, numbers, t_span, top)
    _draw_key(figure, axes.get_position().y1 - 0.12, key)  # below the lines' legend
    _footnote(figure, thin)
    return figure


@dataclass(frozen=True)
class Box:
    """One buffer as one planner placed it."""

    name: str
    start: int
    end: int  # exclusive
    offset: int
    size: int


@dataclass(frozen=True)
class Layout:
    """One memory as one planner laid it out."""

    planner: str  # "memplan", "TFLM greedy"
    boxes: tuple[Box, ...]
    size: int  # the bytes it takes


@dataclass(frozen=True)
class ArenaFigure:
    """What one row of `draw_model_plan` shows for one arena."""

    name: str
    tensors: int  # as the plan's table counts them (in-place sharers included)
    blocks: int  # what was packed: one block per group sharing bytes in place
    lower_bound: int
    declare: int  # the arena to declare
    declare_note: str
    ours: Layout
    theirs: Layout | None  # the runtime's own plan of the same tensors, when it has one
    packing: PackResult  # for the live bytes


def model_figures(plan: ModelPlan, check: RunCheck | None = None) -> list[ArenaFigure]:
    """Each arena of a model's plan, with the runtime's plan of it where the runtime has
    one covering exactly its tensors, and the arena to declare (TFLM's measured by a run)."""
    figures = []
    for arena in plan.arenas:
        ours = Layout("memplan", tuple(Box(b.name, *b.lifetime, arena.offsets[b.key],
                                           b.packed_size) for b in arena.buffers), arena.size)
        declare, note = arena.size, "memplan's plan"
        if (check is not None and check.planned.arena is not None and len(plan.arenas) == 1
                and check.planned.arena != arena.size):
            declare = check.planned.arena
            note = f"measured on {check.runtime}: the plan plus what the runtime adds"
        figures.append(ArenaFigure(
            arena.name, len(arena.buffers), len(arena.packing.problem), arena.lower_bound,
            declare, note, ours, _runtime_layout(plan, arena), arena.packing))
    return figures


def _runtime_layout(plan: ModelPlan, arena: ArenaPlan) -> Layout | None:
    for view in plan.view.arenas:
        theirs = view.runtime
        if theirs is None:
            continue
        keys = [b.key for b in arena.buffers]
        in_space = all(k in theirs.offsets and theirs.spaces.get(k, arena.name) == arena.name
                       for k in keys) if theirs.spaces else all(k in theirs.offsets
                                                                 for k in keys)
        if not keys or not in_space:
            continue
        boxes = tuple(Box(b.name, *b.lifetime, theirs.offsets[b.key], b.packed_size)
                      for b in arena.buffers)
        size = theirs.sizes.get(arena.name, arena.runtime)
        if size is None:
            size = max(b.offset + b.size for b in boxes)
        return Layout(theirs.planner, boxes, size)
    return None


def draw_model_plan(plan: ModelPlan, check: RunCheck | None = None,
                    title: str = "") -> plt.Figure:
    """One row per arena: memplan's layout and the runtime's beside it at the same scale,
    the live bytes with the lower bound below, the arena to declare in the row's title."""
    rows = model_figures(plan, check)
    columns = 2 if any(r.theirs is not None for r in rows) else 1
    figure = plt.figure(figsize=(9 * columns + 4, 6.5 * max(len(rows), 1)))
    grid = figure.add_gridspec(2 * max(len(rows), 1), columns, height_ratios=[4, 1] *
                               max(len(rows), 1))
    panels = []
    row_axes = []
    for i, row in enumerate(rows):
        numbers = _numbers(row.ours.boxes)
        # The arena to declare is in the row's title, not a line: TFLM's adds persistent
        # data many times the plan's size, which would flatten the layouts to a strip.
        top = max(row.ours.size, row.theirs.size if row.theirs else 0, row.lower_bound,
                  1) * 1.05
        t_min = min((b.start for b in row.ours.boxes), default=0)
        t_max = max((b.end for b in row.ours.boxes), default=1)
        layouts = [row.ours] + ([row.theirs] if row.theirs is not None else [])
        first = None
        for j, layout in enumerate(layouts):
            axes = figure.add_subplot(grid[2 * i, j], sharey=first)
            if first is None:
                first = axes
                row_axes.append(axes)
            axes.set_xlim(t_min, t_max)
            axes.set_ylim(0, top)
            axes.set_xlabel("time step")
            axes.set_ylabel("offset (bytes)")
            axes.ticklabel_format(style="plain", axis="y")
            gap = (f" ({layout.size / row.lower_bound:.3f}x the bound)"
                   if row.lower_bound else "")
            axes.set_title(f"{layout.planner}: {layout.size:,} B{gap}", fontsize="medium")
            axes.axhline(row.lower_bound, color="tab:green", linewidth=1.2,
                         label=f"lower bound {row.lower_bound:,}")
            axes.legend(loc="upper right", fontsize="small")
            panels.append((axes, layout.boxes, numbers, t_max - t_min, top))
        live = figure.add_subplot(grid[2 * i + 1, :])
        live.set_xlim(t_min, t_max)
        _draw_live_bytes(live, row.packing.problem, row.packing.lower_bound)
    keys = [_key(row.ours.boxes, _numbers(row.ours.boxes)) for row in rows]
    figure.tight_layout(rect=(0, 0.03, 0.78, 1 - 0.1 / max(len(rows), 1)), h_pad=5.0)
    for axes, row in zip(row_axes, rows, strict=True):
        # Placed once the layout is final, so it widens no panel.
        shared = (f", {row.blocks} blocks after in-place sharing"
                  if row.blocks != row.tensors else "")
        name = f"{title}: {row.name}" if title else row.name
        figure.text(0.01, axes.get_position().y1 + 0.065 / max(len(rows), 1),
                    f"{name}: {row.tensors} tensors{shared}; lower bound "
                    f"{row.lower_bound:,} B; arena to declare {row.declare:,} B "
                    f"({row.declare_note})", fontsize="large", fontweight="bold")
    thin: list[str] = []
    for axes, boxes, numbers, t_span, top in panels:
        thin += _draw_boxes(figure, axes, boxes, numbers, t_span, top)
    for axes, key in zip(row_axes, keys, strict=True):
        _draw_key(figure, axes.get_position().y1, key)
    _footnote(figure, sorted(set(thin)))
    return figure


def write_model_plot(plan: ModelPlan, check: RunCheck | None, file: IO[bytes], fmt: str,
                     title: str = "") -> None:
    """Draw `draw_model_plan` into an open binary file (for `files.Outputs`)."""
    figure = draw_model_plan(plan, check, title)
    try:
        figure.savefig(file, format=fmt, dpi=DPI)
    finally:
        plt.close(figure)


def _set_up_panel(axes: plt.Axes, result: PackResult, heading: str) -> tuple[int, float]:
    problem = result.problem
    t_min = min((b.start for b in problem.buffers), default=0)
    t_max = max((b.end for b in problem.buffers), default=1)
    top = max(result.peak, problem.capacity or 0, result.lower_bound, 1) * 1.05
    axes.set_xlim(t_min, t_max)
    axes.set_ylim(0, top)
    axes.set_ylabel("offset (bytes)")
    axes.ticklabel_format(style="plain", axis="y")
    axes.set_title(f"{heading}, peak {result.peak:,} B, "
                   f"lower bound {result.lower_bound:,} B ({result.ratio:.3f}x)")
    _draw_reference_lines(axes, result)
    return t_max - t_min, top


def _numbers(boxes: Sequence[Box]) -> list[int]:
    """Short labels by position (names repeat: ExecuTorch's are op names): 1 for the
    largest buffer (bytes times steps), 2 for the next..."""
    order = sorted(range(len(boxes)), key=lambda i: (-boxes[i].size * (boxes[i].end
                                                                       - boxes[i].start), i))
    numbers = [0] * len(boxes)
    for rank, i in enumerate(order, 1):
        numbers[i] = rank
    return numbers


def _draw_boxes(figure: plt.Figure, axes: plt.Axes, boxes: Sequence[Box],
                numbers: Sequence[int], t_span: int, top: float) -> list[str]:
    """The buffers, at least a pixel thick, numbered where the number fits; returns the
    names of those drawn thicker."""
    # Data units per pixel, now that the layout is final.
    box = axes.get_window_extent()
    scale = DPI / figure.dpi
    per_px_t = max(t_span, 1) / max(box.width * scale, 1)
    per_px_y = top / max(box.height * scale, 1)
    thin: list[str] = []
    rectangles = []
    colours = plt.get_cmap("tab20")
    for b, number in zip(boxes, numbers, strict=True):
        width, height = b.end - b.start, b.size
        if width < _MIN_PIXELS * per_px_t or height < _MIN_PIXELS * per_px_y:
            thin.append(b.name)
        rectangles.append(Rectangle((b.start, b.offset), max(width, _MIN_PIXELS * per_px_t),
                                    max(height, _MIN_PIXELS * per_px_y),
                                    facecolor=colours(number % 20)))
    axes.add_collection(PatchCollection(rectangles, match_original=True,
                                        edgecolor="black", linewidth=0.3, alpha=0.85))
    for b, number in zip(boxes, numbers, strict=True):
        label = f"#{number}"
        # Room for the short label at 6 pt: about 7 px per character and 10 px high.
        if (b.end - b.start) > 7 * len(label) * per_px_t and b.size > 10 * per_px_y:
            axes.text((b.start + b.end) / 2, b.offset + b.size / 2, label, ha="center",
                      va="center", fontsize=6, clip_on=True)
    return thin


def _key(boxes: Sequence[Box], numbers: Sequence[int]) -> list[str]:
    """The key's lines: each short label with the buffer's name, largest first."""
    lines = [f"#{n} {_short(b.name)} ({b.size:,} B)"
             for n, b in sorted(zip(numbers, boxes, strict=True), key=lambda nb: nb[0])]
    if len(lines) > _KEY_LINES:
        rest = len(lines) - _KEY_LINES + 1
        lines = lines[:_KEY_LINES - 1] + [f"... {rest} more (the plan's table names all)"]
    return lines


def _draw_key(figure: plt.Figure, top: float, lines: list[str]) -> None:
    """The key in the figure's right margin, from height `top` (figure fraction) down."""
    if lines:
        figure.text(0.8, top, "\n".join(lines), fontsize=6, va="top", ha="left",
                    family="monospace")


def _short(name: str, width: int = 36) -> str:
    return name if len(name) <= width else name[:width // 2 - 1] + "…" + name[-(width // 2):]


def _footnote(figure: plt.Figure, thin: list[str]) -> None:
    if thin:
        shown = ", ".join(thin[:_FOOTNOTE_IDS]) + (", ..." if len(thin) > _FOOTNOTE_IDS else "")
        figure.text(0.01, 0.008, f"{len(thin)} buffer{'s' if len(thin) > 1 else ''} thinner "
                    f"than a pixel, drawn {_MIN_PIXELS:g} px thick: {shown}", fontsize=7)


def _label_large_rectangles(axes: plt.Axes, result: PackResult, t_span: int,
                            y_span: float) -> None:
    for b, off in zip(result.problem.buffers, result.solution.offsets, strict=True):
        # Room for a short label: ~6% of the width and ~2.5% of the height.
        if (b.end - b.start) > 0.06 * t_span and b.size > 0.025 * y_span:
            axes.text((b.start + b.end) / 2, off + b.size / 2, b.id, ha="center",
                      va="center", fontsize=6, clip_on=True)


def reference_lines(result: PackResult) -> list[tuple[int, str, str]]:
    """(height, label, colour) per distinct height: equal lines share one label."""
    named = [(result.lower_bound, "lower bound", "tab:green"),
             (result.peak, "peak", "tab:blue")]
    if result.problem.capacity is not None:
        named.append((result.problem.capacity, "capacity", "tab:red"))
    lines: dict[int, tuple[list[str], str]] = {}
    for value, name, colour in named:
        names, _ = lines.setdefault(value, ([], colour))
        names.append(name)
        if name == "capacity":  # the limit's colour wins: it is the line that matters
            lines[value] = (names, colour)
    return [(value, f"{' = '.join(names)} {value:,}", colour)
            for value, (names, colour) in sorted(lines.items())]


def _draw_reference_lines(axes: plt.Axes, result: PackResult) -> None:
    for value, label, colour in reference_lines(result):
        style = "--" if label.startswith("peak ") else "-"
        axes.axhline(value, color=colour, linewidth=1.2, linestyle=style, label=label)


def _draw_live_bytes(axes: plt.Axes, problem: Problem, lower_bound: int) -> None:
    profile = live_bytes_profile(problem)
    if profile:
        axes.step([t for t, _ in profile], [v for _, v in profile], where="post",
                  color="dimgray", linewidth=0.8, label="live bytes")
    axes.axhline(lower_bound, color="tab:green", linewidth=0.8,
                 label=f"lower bound {lower_bound:,}")
    axes.set_ylim(0, max(lower_bound, 1) * 1.1)
    axes.set_ylabel("live bytes")
    axes.set_xlabel("time step")
    axes.ticklabel_format(style="plain", axis="y")
    axes.legend(loc="upper right", fontsize="x-small")
