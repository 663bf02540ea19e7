"""The TFLite front end and TFLM offline plans, proven on TFLM's own interpreter.

The two models in tests/data are built by `benchmarks/tflite_build.py --tests` with random
weights: an int8 CNN with a reshape and a float attention block.
"""

from __future__ import annotations

import numpy as np
import pytest

from memplan.buffers import Arena, BufferRequest
from memplan.check.offline_plan import offline_plan_problems
from memplan.errors import InputError
from memplan.plan.contract import ReadOptions
from memplan.plan.driver import check_run, plan_arena, plan_model
from memplan.report.json_schema import plan_json_problems
from memplan.runtimes.tflm import model as tfl
from memplan.runtimes.tflm.front_end import greedy_plan, requests
from memplan.targets import load_target


def plan_tflite(path, *, target=None, output=None, time_limit=10.0):
    return plan_model(path, options=ReadOptions(target, {}, output is not None, time_limit))


def tensors_of(model, in_place=True):
    return requests(model, in_place=in_place)

pytest.importorskip("tflite_micro")


@pytest.fixture
def cnn(data):
    return str(data / "tiny_cnn_int8.tflite")


@pytest.fixture
def attention(data):
    return str(data / "tiny_attention_f32.tflite")


def test_front_end_reads_what_tflm_plans(cnn):
    model = tfl.load_tflite(cnn)
    planned = model.planned()
    # conv, depthwise, conv, pool, reshape, fc, softmax: the input and seven activations
    assert len(planned) == 8 and len(model.ops) == 7
    assert all(t.role is tfl.Role.CONSTANT for t in model.tensors if t not in planned)
    first = planned[0]
    assert (first.key, first.shape, first.nbytes, first.first, first.last) == \
        (model.inputs[0], (1, 16, 16, 1), 256, 0, 1)
    # the model output lives to the last scope; sizes are rounded up to 16 bytes
    out = model.tensors[model.outputs[0]]
    assert out.nbytes == 10 and out.size == 16 and out.last == len(model.ops)
    # the RESHAPE output shares its input's bytes: the input's last use is the reshape
    reshape = next(op for op in model.ops if op.name == "RESHAPE")
    assert model.shares == {reshape.outputs[0]: reshape.inputs[0]}


def test_plan_written_read_back_and_run_under_tflm(cnn, tmp_path):
    out = tmp_path / "planned.tflite"
    before = open(cnn, "rb").read()
    fe, plan = plan_tflite(cnn, target=load_target("cortex-m55+ethos-u55"), output=str(out))
    assert open(cnn, "rb").read() == before  # the input is never modified
    assert not out.exists()  # the caller writes it (the CLI: only when the run succeeds)
    out.write_bytes(plan.written)
    [arena] = plan.arenas
    assert arena.size == arena.lower_bound <= arena.runtime

    back = tfl.load_tflite(out)
    assert all(back.offline_plan[k] == off for k, off in arena.offsets.items()
               if k < len(back.tensors))
    assert len(back.offline_plan) == len(back.tensors)
    offsets = dict(enumerate(back.offline_plan))
    assert offline_plan_problems(tensors_of(back), offsets, tfl.ALIGNMENT) == []
    # every planned tensor has an offset; constants are left to TFLM (-1)
    assert all((offsets[t.key] >= 0) == (t.role is tfl.Role.PLANNED) for t in back.tensors)
    reshape = next(op for op in back.ops if op.name == "RESHAPE")
    assert offsets[reshape.outputs[0]] == offsets[reshape.inputs[0]]

    check = check_run(fe, plan)  # in a child process
    assert check.identical
    assert check.planned.arena <= check.original.arena
    assert check.planned.extra["head"] == arena.size  # no kernel here asks for scratch


def test_planned_model_runs_in_a_smaller_head_where_tflm_is_above(attention, tmp_path):
    """TFLM's greedy plan of the attention block is above the bound; memplan's is at it,
    and TFLM runs the planned model with exactly that head."""
    from memplan.pack.search.decide import node_limit

    out = tmp_path / "planned.tflite"
    # Stopped by nodes, the same at any load: 5 s of wall clock ran out on a loaded
    # machine before the search reached the bound. The time limit is only a backstop.
    with node_limit(1 << 20):
        fe, plan = plan_tflite(attention, output=str(out), time_limit=600.0)
    [arena] = plan.arenas
    assert arena.size == arena.lower_bound < arena.runtime
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena <= check.original.arena
    assert check.original.extra["head"] == arena.runtime
    assert check.planned.extra["head"] == arena.size


def test_a_plan_that_overlaps_is_found(cnn):
    model = tfl.load_tflite(cnn)
    tensors = tensors_of(model)
    offsets = {t.key: 0 for t in tensors}  # everything at offset 0
    found = offline_plan_problems(tensors, offsets, tfl.ALIGNMENT)
    assert found and "overlap" in found[0]
    # tensors that may share bytes must sit at the same offset to overlap
    src, dst = next((t.shares_with, t.key) for t in tensors if t.shares_with is not None)
    [planned] = plan_arena(Arena("arena", tuple(tensors), 16), time_limit=None)
    good = dict(planned.offsets)
    assert offline_plan_problems(tensors, good, 16) == []
    moved = {**good, dst: good[src] + 16}
    assert offline_plan_problems(tensors, moved, 16)


@pytest.mark.parametrize("name", ["tiny_cnn_int8", "tiny_attention_f32"])
def test_tflm_greedy_gives_the_head_tflm_reports(data, name):
    """The reproduction of TFLM's GreedyMemoryPlanner, scratch buffers included, gives the
    head TFLM's recording allocator reports; on the attention block it is above the bound."""
    from memplan.runtimes.tflm import interpreter as tflm

    path = data / f"{name}.tflite"
    data_bytes = path.read_bytes()
    model = tfl.parse_tflite(data_bytes, str(path))
    greedy = greedy_plan(tensors_of(model, in_place=False), tfl.ALIGNMENT)
    inputs = tflm.random_inputs(data_bytes)
    assert tflm.arena_use(data_bytes, 1 << 16, inputs).head == greedy.sizes["arena"]
    if name == "tiny_attention_f32":
        assert greedy.sizes["arena"] > greedy.lower_bound


def test_greedy_places_largest_first_at_the_lowest_fit():
    t = [BufferRequest(0, "a", 32, 0, 2), BufferRequest(1, "b", 64, 1, 3),
         BufferRequest(2, "c", 32, 2, 4)]
    assert greedy_plan(t, 16).offsets == {1: 0, 0: 64, 2: 64}
    # equal sizes: the buffer added last is placed first (TFLM fills its list from the back)
    t = [BufferRequest(0, "a", 32, 0, 2), BufferRequest(1, "b", 32, 1, 3)]
    assert greedy_plan(t, 16).offsets == {1: 0, 0: 32}


@pytest.mark.parametrize("content, reason", [
    (b"", "too short"),
    (b"\x00" * 4 + b"ABCD" + b"\x00" * 32, "file identifier"),
    (b"\x10\x00\x00\x00TFL3" + b"\xff" * 24, "not a readable TFLite flatbuffer"),
])
def test_bad_tflite_is_one_line(tmp_path, content, reason):
    path = tmp_path / "bad.tflite"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        tfl.load_tflite(path)
    assert reason in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith(str(path))


def test_offsets_of_another_length_are_refused(cnn):
    data = open(cnn, "rb").read()
    with pytest.raises(ValueError):
        tfl.with_offline_plan(data, [0, 1], cnn)


def test_constant_buffers_stay_16_aligned(cnn):
    data = open(cnn, "rb").read()
    model = tfl.parse_tflite(data, cnn)
    new = tfl.with_offline_plan(data, [-1] * len(model.tensors), cnn)
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    base = np.frombuffer(new, np.uint8).ctypes.data
    root = schema.Model.GetRootAs(new, 0)
    starts = [root.Buffers(i).DataAsNumpy().ctypes.data - base
              for i in range(root.BuffersLength()) if root.Buffers(i).DataLength()]
    assert starts and all(start % 16 == 0 for start in starts)


# --- memplan plan -------------------------------------------------------------------

def test_cli_plan_writes_and_proves(cnn, tmp_path, capsys):
    from memplan.cli import main

    out = tmp_path / "planned.tflite"
    assert main(["plan", cnn, "--target", "cortex-m55+ethos-u55", "-o", str(out),
                 "--check-run", "--summary"]) == 0
    text = capsys.readouterr().out
    assert "execution check             outputs identical (TFLM's interpreter" in text
    assert tfl.load_tflite(out).offline_plan is not None


def test_cli_json_plot_and_check_in_one_document(cnn, tmp_path, capsys):
    import json

    from memplan.cli import main

    out, plot = tmp_path / "planned.tflite", tmp_path / "layout.svg"
    assert main(["plan", cnn, "-o", str(out), "--check-run", "--json", "--plot",
                 str(plot)]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)  # one document, nothing after it
    assert plan_json_problems(data) == []
    assert data["check"]["ran"] and data["check"]["identical"]
    assert data["arenas"][0]["status"] == "at_bound"
    assert plot.read_bytes().startswith(b"<?xml") and str(plot) in captured.err
    assert data["written"] == str(out) and out.exists()


def test_cli_json_names_no_file_when_the_write_is_refused(cnn, tmp_path, capsys):
    import json

    from memplan.cli import main

    out = tmp_path / "planned.tflite"
    assert main(["plan", cnn, "-o", str(out), "--budget", "1", "--json",
                 "--time-limit", "0"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["written"] is None and not out.exists()


def test_cli_bad_tflite_is_one_line_exit_2(tmp_path, capsys):
    from memplan.cli import main

    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"\x00" * 64)
    out = tmp_path / "out.tflite"
    assert main(["plan", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and "not a TFLite flatbuffer" in err
    assert not out.exists()


def test_cli_refuses_to_overwrite_the_input(cnn, tmp_path, capsys):
    from memplan.cli import main

    copy = tmp_path / "m.tflite"
    copy.write_bytes(open(cnn, "rb").read())
    assert main(["plan", str(copy), "-o", str(copy)]) == 2
    assert copy.read_bytes() == open(cnn, "rb").read()


def test_tensors_split_across_pools_when_sram_is_short(cnn, tmp_path):
    path = tmp_path / "small.toml"
    path.write_text('name = "small"\ndevices = ["cpu"]\n\n'
                    '[[pools]]\nname = "sram"\ncapacity = 4096\nalignment = 16\n'
                    'reachable_by = ["cpu"]\n\n'
                    '[[pools]]\nname = "dram"\ncapacity = 1048576\nalignment = 16\n'
                    'reachable_by = ["cpu"]\n')
    _, plan = plan_tflite(cnn, target=load_target(str(path)))
    assert plan.total > 4096 and plan.split is not None
    usage = {u.space: u for u in plan.split.placement.usage}
    assert usage["sram"].peak <= 4096 and usage["dram"].buffers >= 1
    spaces = {d.space for d in plan.split.placement.decisions}
    assert spaces == {"sram", "dram"}


def test_scratch_of_reference_kernels_is_reserved(attention):
    """Layer norms are MEANs: TFLM's reference MEAN asks for the input's rank and the axis
    count in int scratch buffers, which the plan holds room for."""
    model = tfl.load_tflite(attention)
    means = [n for op, n in model.scratch if op.name == "MEAN"]
    assert means and set(means) == {12, 4}  # rank 3 and one axis, four bytes each
    scratch = [t for t in tensors_of(model) if t.key >= len(model.tensors)]
    assert len(scratch) == len(model.scratch) and all(t.end == t.start + 1 for t in scratch)


def test_a_vela_compiled_model_is_refused(cnn, tmp_path):
    """Vela's command stream finds the input and output inside its scratch area at the
    offsets of its own plan; a model with an ethos-u operator is not replanned."""
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(bytearray(open(cnn, "rb").read()), 0)
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    code.customCode = "ethos-u"
    model.operatorCodes.append(code)
    model.subgraphs[0].operators[0].opcodeIndex = len(model.operatorCodes) - 1
    builder = flatbuffers.Builder(0)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    path = tmp_path / "vela.tflite"
    path.write_bytes(bytes(builder.Output()))
    with pytest.raises(InputError, match="compiled by Vela"):
        plan_tflite(str(path), output=str(tmp_path / "out.tflite"))
    assert not (tmp_path / "out.tflite").exists()
