"""The layout picture shows every buffer and every reference line (issue 16)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.collections import PatchCollection

from memplan.pack import Buffer, Problem, pack
from memplan.report.layout_plot import draw_layout, reference_lines


def legend_labels(figure) -> list[str]:
    return [t.get_text() for t in figure.axes[0].get_legend().get_texts()]


def test_bound_line_stays_visible_when_the_peak_reaches_it():
    result = pack(Problem([Buffer("a", 0, 2, 8), Buffer("b", 2, 4, 8)], capacity=16))
    assert result.peak == result.lower_bound == 8
    assert [label for _, label, _ in reference_lines(result)] == [
        "lower bound = peak 8", "capacity 16"]
    figure = draw_layout(result)
    try:
        assert legend_labels(figure) == ["lower bound = peak 8", "capacity 16"]
    finally:
        plt.close(figure)


def test_sub_pixel_buffers_are_drawn_and_named():
    result = pack(Problem([Buffer("big", 0, 10, 1_000_000), Buffer("tiny", 0, 10, 1),
                           Buffer("blip", 3, 4, 500_000)]))
    figure = draw_layout(result)
    try:
        patches = figure.axes[0].collections[0]
        assert isinstance(patches, PatchCollection)
        heights = [p.get_extents().height for p in patches.get_paths()]
        # in data units: the 1-byte buffer is drawn at least as tall as a pixel's worth
        assert min(heights) > 100
        notes = [t.get_text() for t in figure.texts]
        assert any("1 buffer thinner than a pixel" in n and "tiny" in n for n in notes)
    finally:
        plt.close(figure)


def test_live_bytes_have_their_own_panel():
    result = pack(Problem([Buffer("a", 0, 4, 8), Buffer("b", 2, 6, 4)]))
    figure = draw_layout(result)
    try:
        layout, live = figure.axes
        # Only horizontal reference lines cross the rectangles.
        for line in layout.get_lines():
            assert len(set(line.get_ydata())) == 1
        assert max(max(line.get_ydata()) for line in live.get_lines()) == 12
    finally:
        plt.close(figure)
