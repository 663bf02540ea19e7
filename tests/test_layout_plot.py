"""The layout picture shows every buffer and every reference line (issue 16)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
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


def test_long_names_go_to_the_key_and_boxes_carry_short_labels():
    long_name = "model/encoder/layer_norm_with_a_very_long_scope/" * 3
    result = pack(Problem([Buffer(long_name, 0, 10, 1000), Buffer("b", 0, 5, 500)]))
    figure = draw_layout(result)
    try:
        layout = figure.axes[0]
        inside = [t.get_text() for t in layout.texts]
        assert sorted(inside) == ["#1", "#2"]  # the largest first
        key = "\n".join(t.get_text() for t in figure.texts)
        assert "#1 model/encoder/" in key and "(1,000 B)" in key and "#2 b (500 B)" in key
        assert long_name not in key  # shortened in the key too, never smeared
        assert layout.get_ylabel() == "offset (bytes)"
        assert figure.axes[1].get_xlabel() == "time step"
    finally:
        plt.close(figure)


def test_a_model_plot_shows_the_runtimes_plan_beside_and_counts_as_the_table(data):
    pytest.importorskip("tflite_micro")
    from memplan.plan.contract import ReadOptions
    from memplan.plan.driver import plan_model
    from memplan.report.layout_plot import draw_model_plan, model_figures

    _, plan = plan_model(str(data / "tiny_attention_f32.tflite"),
                         options=ReadOptions(time_limit=2.0))
    (row,) = model_figures(plan)
    (arena,) = plan.arenas
    assert row.tensors == len(arena.buffers)  # what the plan's table lists
    assert row.theirs is not None and row.theirs.planner == "TFLM greedy"
    assert row.theirs.size == arena.runtime and row.declare == arena.size
    figure = draw_model_plan(plan, title="m")
    try:
        ours, theirs, live = figure.axes
        assert ours.get_title().startswith("memplan: ") and theirs.get_title().startswith(
            "TFLM greedy: ")
        assert ours.get_ylim() == theirs.get_ylim()  # one scale, so heights compare
        assert ours.get_xlabel() == "time step" and live.get_ylabel() == "live bytes"
        heading = next(t.get_text() for t in figure.texts if t.get_text().startswith("m: "))
        assert f"{len(arena.buffers)} tensors" in heading
        assert f"arena to declare {arena.size:,} B" in heading
        assert all(t.get_text().startswith("#") for t in ours.texts + theirs.texts)
    finally:
        plt.close(figure)
