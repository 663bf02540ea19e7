"""ONNX planning: a small CNN exported by PyTorch (benchmarks/onnx_build.py), batch symbolic."""

from __future__ import annotations

import json

import pytest

from memplan.errors import InputError
from memplan.plan.contract import ReadOptions
from memplan.plan.driver import plan_model
from memplan.report.json_schema import plan_json_problems
from memplan.runtimes.onnx.model import load_onnx

pytest.importorskip("onnx")


@pytest.fixture
def cnn(data):
    return str(data / "small_cnn.onnx")


def test_symbolic_batch_needs_a_value(cnn):
    with pytest.raises(InputError, match="--dim batch=N"):
        load_onnx(cnn)
    with pytest.raises(InputError, match="no input has a dimension"):
        load_onnx(cnn, {"seq": 4})


def test_tensors_lifetimes_and_views(cnn):
    model = load_onnx(cnn, {"batch": 2})
    by_name = {t.name: t for t in model.tensors}
    x, y = by_name["x"], by_name["y"]
    assert (x.shape, x.nbytes, x.start) == ((2, 1, 16, 16), 2 * 256 * 4, 0)
    assert y.shape == (2, 10) and y.end == model.nodes + 2  # outputs live to the end
    flat = next(t for t in model.tensors if "Flatten" in t.name)
    assert flat.shape == (2, 512) and flat.shares_with is not None
    assert model.tensors[flat.shares_with].end == flat.start + 1  # its input dies there
    assert not any("weight" in t.name or "bias" in t.name for t in model.tensors)


def test_plan_reaches_the_bound(cnn):
    _, plan = plan_model(cnn, options=ReadOptions(dims={"batch": 1}))
    [arena] = plan.arenas
    assert arena.size == arena.lower_bound and arena.proof == "at_bound"
    # the plan is sound with the flatten sharing its input's bytes
    from memplan.check.offline_plan import offline_plan_problems

    assert offline_plan_problems(list(arena.buffers), dict(arena.offsets), 64) == []


def test_cli_json(cnn, capsys):
    from memplan.cli import main

    assert main(["plan", cnn, "--dim", "batch=1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert plan_json_problems(data) == []
    assert data["front_end"] == "onnx"
    assert data["total"]["memplan"] == data["total"]["lower_bound"]
    assert main(["plan", cnn, "--dim", "batch=1", "-o", "x.onnx"]) == 2


def test_cli_plot_one_panel(cnn, tmp_path, capsys):
    from memplan.cli import main

    plot = tmp_path / "layout.png"
    assert main(["plan", cnn, "--dim", "batch=1", "--summary", "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert f"wrote layout plot to {plot}" in capsys.readouterr().err


def test_bad_onnx_is_one_line(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\xff\xfe not a protobuf")
    with pytest.raises(InputError) as err:
        load_onnx(bad)
    assert str(err.value).startswith(str(bad)) and "\n" not in str(err.value)


def test_floor_of_any_node_order(cnn):
    _, plan = plan_model(cnn, options=ReadOptions(dims={"batch": 1}, time_limit=None))
    (floor,) = plan.floors
    # The Relu after the first Conv holds the Conv's output and its own, 4 KiB each.
    assert floor.operator.name.startswith("Relu") and floor.bytes == 2 * 4096
    assert floor.bytes <= plan.lower_bound
    by_name = {b.name: b for b in plan.arenas[0].buffers}
    used = [by_name[name] for name, _ in floor.held]
    assert sum(b.size for b in used) == floor.bytes
