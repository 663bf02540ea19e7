"""Picture of a packing: time on x, address on y, one rectangle per buffer.

Drawn with matplotlib's Agg backend (no display needed). A PatchCollection
keeps 500+ rectangles fast, labels appear only where they fit, and the
live-bytes profile is drawn so one can see where the lower bound is reached.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from ..errors import InputError  # noqa: E402
from ..files import atomic_output  # noqa: E402
from ..pack import PackResult, live_bytes_profile  # noqa: E402

PLOT_FORMATS = (".svg", ".png", ".pdf")


def save_layout_plot(result: PackResult, path: str | Path, title: str = "") -> None:
    if Path(path).suffix.lower() not in PLOT_FORMATS:
        raise InputError(path, f"plot format must be one of {', '.join(PLOT_FORMATS)}")
    figure = _draw(result, title)
    try:
        with atomic_output(path) as tmp:
            figure.savefig(tmp, format=Path(path).suffix.lstrip(".").lower(), dpi=150)
    finally:
        plt.close(figure)


def _draw(result: PackResult, title: str) -> plt.Figure:
    problem, offsets = result.problem, result.solution.offsets
    figure, axes = plt.subplots(figsize=(14, 8))
    colours = plt.get_cmap("tab20")
    rectangles = [
        Rectangle((b.start, off), b.end - b.start, b.size, facecolor=colours(i % 20))
        for i, (b, off) in enumerate(zip(problem.buffers, offsets, strict=True))
    ]
    axes.add_collection(PatchCollection(rectangles, match_original=True,
                                        edgecolor="black", linewidth=0.3, alpha=0.85))
    _label_large_rectangles(axes, result)
    _draw_reference_lines(axes, result)
    t_min = min((b.start for b in problem.buffers), default=0)
    t_max = max((b.end for b in problem.buffers), default=1)
    top = max(result.peak, problem.capacity or 0, result.lower_bound, 1)
    axes.set_xlim(t_min, t_max)
    axes.set_ylim(0, top * 1.05)
    axes.set_xlabel("time")
    axes.set_ylabel("address (bytes)")
    axes.ticklabel_format(style="plain", axis="y")
    heading = title or "memory layout"
    axes.set_title(f"{heading}: {len(problem)} buffers, peak {result.peak:,} B, "
                   f"lower bound {result.lower_bound:,} B ({result.ratio:.3f}x)")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    figure.tight_layout()
    return figure


def _label_large_rectangles(axes: plt.Axes, result: PackResult) -> None:
    problem = result.problem
    t_span = max((b.end for b in problem.buffers), default=1) - min(
        (b.start for b in problem.buffers), default=0)
    y_span = max(result.peak, 1)
    for b, off in zip(problem.buffers, result.solution.offsets, strict=True):
        # Room for a short label: ~6% of the width and ~2.5% of the height.
        if (b.end - b.start) > 0.06 * t_span and b.size > 0.025 * y_span:
            axes.text((b.start + b.end) / 2, off + b.size / 2, b.id, ha="center",
                      va="center", fontsize=6, clip_on=True)


def _draw_reference_lines(axes: plt.Axes, result: PackResult) -> None:
    profile = live_bytes_profile(result.problem)
    if profile:
        times = [t for t, _ in profile]
        live = [v for _, v in profile]
        axes.step(times, live, where="post", color="dimgray", linewidth=0.8,
                  linestyle=":", label="live bytes")
    axes.axhline(result.lower_bound, color="tab:green", linewidth=1.2,
                 label=f"lower bound {result.lower_bound:,}")
    axes.axhline(result.peak, color="tab:blue", linewidth=1.0, linestyle="--",
                 label=f"peak {result.peak:,}")
    if result.problem.capacity is not None:
        axes.axhline(result.problem.capacity, color="tab:red", linewidth=1.2,
                     label=f"capacity {result.problem.capacity:,}")
