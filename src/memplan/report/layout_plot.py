"""Picture of a packing: time on x, address on y, one rectangle per buffer.

Drawn with matplotlib's Agg backend (no display needed). A PatchCollection
keeps 500+ rectangles fast and labels appear only where they fit. Buffers
thinner than a pixel are drawn one pixel thick and named in a footnote, so
none vanishes. Reference lines at equal heights become one line with a joint
label (peak = lower bound), and the live-bytes profile has its own panel
below, where it cannot hide a rectangle.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from ..errors import InputError  # noqa: E402
from ..pack import PackResult, live_bytes_profile  # noqa: E402

PLOT_FORMATS = (".svg", ".png", ".pdf")
DPI = 150
_MIN_PIXELS = 1.5  # thinnest rectangle drawn, in pixels at DPI
_FOOTNOTE_IDS = 6


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
    t_span, top = _set_up_panel(axes, result, f"{heading}: {len(problem)} buffers")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    _draw_live_bytes(live_axes, result)
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    thin = _draw_rectangles(figure, axes, result, t_span, top)
    _footnote(figure, thin)
    return figure


def draw_panels(panels: Sequence[tuple[str, PackResult]], title: str = "") -> plt.Figure:
    """One panel per memory (arena, pool), each with its name, its capacity line when it
    has one, and the buffers named as the plan's table names them."""
    figure, axes_list = plt.subplots(len(panels) or 1, 1, figsize=(14, 3 + 4 * len(panels)),
                                     squeeze=False)
    spans = []
    for axes, (name, result) in zip(axes_list[:, 0], panels, strict=False):
        heading = f"{title}: {name}" if title else name
        spans.append(_set_up_panel(axes, result, f"{heading}: {len(result.problem)} buffers"))
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    thin: list[str] = []
    for axes, (_, result), (t_span, top) in zip(axes_list[:, 0], panels, spans, strict=False):
        thin += _draw_rectangles(figure, axes, result, t_span, top)
    _footnote(figure, thin)
    return figure


def write_panels_plot(panels: Sequence[tuple[str, PackResult]], file: IO[bytes], fmt: str,
                      title: str = "") -> None:
    """Draw one panel per memory into an open binary file (for `files.Outputs`)."""
    figure = draw_panels(panels, title)
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
    axes.set_ylabel("address (bytes)")
    axes.ticklabel_format(style="plain", axis="y")
    axes.set_title(f"{heading}, peak {result.peak:,} B, "
                   f"lower bound {result.lower_bound:,} B ({result.ratio:.3f}x)")
    _draw_reference_lines(axes, result)
    return t_max - t_min, top


def _draw_rectangles(figure: plt.Figure, axes: plt.Axes, result: PackResult, t_span: int,
                     top: float) -> list[str]:
    """The buffers, at least a pixel thick; returns the ids of those drawn thicker."""
    problem = result.problem
    # Data units per pixel, now that the layout is final.
    box = axes.get_window_extent()
    scale = DPI / figure.dpi
    per_px_t = max(t_span, 1) / max(box.width * scale, 1)
    per_px_y = top / max(box.height * scale, 1)
    thin: list[str] = []
    rectangles = []
    colours = plt.get_cmap("tab20")
    for i, (b, off) in enumerate(zip(problem.buffers, result.solution.offsets, strict=True)):
        width, height = b.end - b.start, b.size
        if width < _MIN_PIXELS * per_px_t or height < _MIN_PIXELS * per_px_y:
            thin.append(b.id)
        rectangles.append(Rectangle((b.start, off), max(width, _MIN_PIXELS * per_px_t),
                                    max(height, _MIN_PIXELS * per_px_y),
                                    facecolor=colours(i % 20)))
    axes.add_collection(PatchCollection(rectangles, match_original=True,
                                        edgecolor="black", linewidth=0.3, alpha=0.85))
    _label_large_rectangles(axes, result, max(t_span, 1), top)
    return thin


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


def _draw_live_bytes(axes: plt.Axes, result: PackResult) -> None:
    profile = live_bytes_profile(result.problem)
    if profile:
        axes.step([t for t, _ in profile], [v for _, v in profile], where="post",
                  color="dimgray", linewidth=0.8)
    axes.axhline(result.lower_bound, color="tab:green", linewidth=0.8)
    axes.set_ylim(0, max(result.lower_bound, 1) * 1.1)
    axes.set_ylabel("live bytes")
    axes.set_xlabel("time")
    axes.ticklabel_format(style="plain", axis="y")
