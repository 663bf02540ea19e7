"""ONNX planning: a small CNN exported by PyTorch (benchmarks/onnx_build.py), batch symbolic."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memplan.cli import main
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


def _external_model(folder, location: str, length: int | None = None, input_name: str = "x"):
    """A graph adding a 4-float external weight (in `location`) to its input."""
    import onnx
    from onnx import TensorProto, helper

    weight = helper.make_tensor("w", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    weight.ClearField("float_data")
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"),
                       *((("length", str(length)),) if length is not None else ())):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph(
        [helper.make_node("Add", [input_name, "w"], ["a"]),
         helper.make_node("Softmax", ["a"], ["b"]), helper.make_node("MatMul", ["b", "w"], ["c"]),
         helper.make_node("Add", ["c", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [weight])
    path = folder / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.mark.parametrize("runtime", ["onnx", "tvm"])
@pytest.mark.parametrize(("location", "size", "length", "reason"), [
    # Issue 31: a 4-float weight naming a 3 GB file (sparse here) was read whole by TVM.
    ("big.bin", 3 * 2**30, None, "holds 3,221,225,472 bytes from offset 0"),
    ("big.bin", 3 * 2**30, 2**31, "holds 2,147,483,648 bytes"),
    ("../outside.bin", 16, None, "is not a file inside the model's folder"),
    ("/etc/passwd", 16, None, "is not a file inside the model's folder"),
    ("missing.bin", None, None, "No such file or directory"),
    (".", None, None, "is not a regular file"),
])
def test_external_data_is_checked_before_it_is_read(tmp_path, capsys, runtime, location,
                                                    size, length, reason):
    folder = tmp_path / "model"
    folder.mkdir()
    if size is not None and not location.startswith("/"):
        with open(folder / location, "wb") as file:
            file.truncate(size)
    path = _external_model(folder, location, length)
    code = main(["plan", str(path), "--runtime", runtime])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith(f"memplan: {path}: tensor 'w': external data") and reason in err[0]


@pytest.mark.parametrize("runtime", ["onnx", "tvm"])
def test_external_data_of_the_tensors_size_is_read(tmp_path, capsys, runtime):
    import numpy as np

    (tmp_path / "w.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    path = _external_model(tmp_path, "w.bin")
    assert main(["plan", str(path), "--runtime", runtime]) == 0, capsys.readouterr().err


def test_tvms_warnings_stay_off_stderr(tmp_path, capsys):
    import numpy as np

    (tmp_path / "w.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    # TVM's importer warns "Renaming name x.1 to x_1" (issue 31: stderr of 3 lines).
    path = _external_model(tmp_path, "w.bin", input_name="x.1")
    # In a process of its own: pytest records warnings, so they would never reach stderr here.
    run = subprocess.run([sys.executable, "-m", "memplan", "plan", str(path), "--runtime",
                          "tvm"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stderr == ""
