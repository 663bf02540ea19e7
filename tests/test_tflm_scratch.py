"""Every TFLM reference kernel that requests scratch, one small model each (tests/tflite_ops).

For each, the scratch requests memplan reads from the operator must be exactly TFLM's: the
reproduction of TFLM's greedy planner over tensors and scratch gives the very head TFLM's
recording allocator reports (scratch is live with the operator's inputs and outputs, so a
missing or mis-sized request changes the head), and the model written with memplan's
plan runs in no more head than TFLM's own plan, with identical outputs.
"""

from __future__ import annotations

import pytest

pytest.importorskip("tflite_micro")

import tflite_ops  # noqa: E402

from memplan.plan.contract import ReadOptions  # noqa: E402
from memplan.plan.driver import check_run, plan_model  # noqa: E402
from memplan.runtimes.tflm import model as tfl  # noqa: E402
from memplan.runtimes.tflm.front_end import ARENA, greedy_plan, requests  # noqa: E402
from memplan.runtimes.tflm.scratch import REFERENCE_OPERATORS  # noqa: E402

CASES = {
    "SVDF": [tflite_ops.svdf(), tflite_ops.svdf("int8")],
    "UNIDIRECTIONAL_SEQUENCE_LSTM": [tflite_ops.lstm()],
    "CUSTOM:TFLite_Detection_PostProcess": [tflite_ops.detection_postprocess()],
    "CUSTOM:SignalRfft": [tflite_ops.rfft()],
    "MIRROR_PAD": [tflite_ops.mirror_pad()],
    "ADD_N": [tflite_ops.add_n()],
    "MEAN": [tflite_ops.reduce("MEAN"), tflite_ops.reduce("MEAN", "int8")],
    "SUM": [tflite_ops.reduce("SUM")],
    "REDUCE_MAX": [tflite_ops.reduce("REDUCE_MAX")],
    "REDUCE_MIN": [tflite_ops.reduce("REDUCE_MIN")],
    "TRANSPOSE_CONV": [tflite_ops.transpose_conv()],
}
# Scratch only for int4 weights or bool inputs, which the builder does not make: covered
# by the rules' own tests below.
NOT_BUILT = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "REDUCE_ALL"}

MODELS = [pytest.param(data, id=f"{name}-{i}") for name, models in CASES.items()
          for i, data in enumerate(models)]


def test_every_scratch_kernel_has_a_case():
    assert set(REFERENCE_OPERATORS) == set(CASES) | NOT_BUILT


@pytest.mark.parametrize("data", MODELS)
def test_scratch_requests_are_tflms(data):
    from memplan.runtimes.tflm import interpreter as tflm

    model = tfl.parse_tflite(data, "model.tflite")
    assert model.scratch, "the kernel requests scratch"
    greedy = tflm_greedy(model)
    inputs = tflm.random_inputs(data)
    assert tflm.arena_use(data, 1 << 16, inputs).head == greedy


@pytest.mark.parametrize("data", MODELS)
def test_written_plan_needs_no_more_than_tflms_own(data, tmp_path):
    source = tmp_path / "model.tflite"
    source.write_bytes(data)
    fe, plan = plan_model(str(source), options=ReadOptions(write=True, time_limit=2))
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.extra["head"] <= check.original.extra["head"]
    assert check.planned.arena <= check.original.arena
    assert check.planned.extra["head"] == plan.arenas[0].size  # the scratch fits inside


def test_lstm_batch_follows_time_major():
    """Time-major input is [steps, batch, size]: the batch is the second dimension."""
    from memplan.runtimes.tflm.scratch import OpView, TensorInfo, scratch_requests

    x = TensorInfo("FLOAT32", (5, 3, 4))
    state = TensorInfo("FLOAT32", (3, 8))
    inputs = (x, *([None] * 17), state, state)

    class Options:
        timeMajor = True

    major = scratch_requests(OpView("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, (), Options()))
    minor = scratch_requests(OpView("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, (), None))
    assert major == [3 * 8 * 4] * 4 and minor == [5 * 8 * 4] * 4


def test_int4_weights_are_unpacked_in_scratch():
    from memplan.runtimes.tflm.scratch import OpView, TensorInfo, scratch_requests

    x = TensorInfo("INT8", (1, 8))
    for name in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
        int4 = OpView(name, (x, TensorInfo("INT4", (16, 8))), ())
        int8 = OpView(name, (x, TensorInfo("INT8", (16, 8))), ())
        assert scratch_requests(int4) == [128] and scratch_requests(int8) == []


def test_a_resource_handle_is_not_in_the_head():
    """VAR_HANDLE points its output at its own persistent data in Prepare, so TFLM never
    plans the 4-byte handle: counting it (16 B aligned) would put the head above TFLM's."""
    from memplan.runtimes.tflm import interpreter as tflm

    data = tflite_ops.resource_variable()
    model = tfl.parse_tflite(data, "model.tflite")
    handle = next(t for t in model.tensors if t.dtype == "RESOURCE")
    assert handle.role is tfl.Role.KERNEL_OWNED
    greedy = tflm_greedy(model)
    assert greedy == tflm.arena_use(data, 1 << 16, tflm.random_inputs(data)).head


def test_baseline_is_tflms_planner_not_the_plan_the_input_carries(tmp_path):
    """An input whose offline plan is broken (every tensor at offset 0) is measured against
    TFLM planning the model on its own: the sound new plan is identical to that and no
    larger, not "not identical" to the broken one."""
    data = tflite_ops.two_adds()
    model = tfl.parse_tflite(data, "model.tflite")
    broken = tfl.with_offline_plan(data, [0 if t.role is tfl.Role.PLANNED else tfl.ONLINE
                                          for t in model.tensors], "model.tflite")
    assert tfl.without_offline_plan(broken, "x").find(tfl.METADATA_NAME.encode()) < 0
    source = tmp_path / "broken.tflite"
    source.write_bytes(broken)
    fe, plan = plan_model(str(source), options=ReadOptions(write=True, time_limit=2))
    check = check_run(fe, plan)
    assert check.identical and check.no_larger


def tflm_greedy(model: tfl.TfliteModel) -> int:
    """The head TFLM's own planner needs for the model (its view: nothing shared)."""
    return greedy_plan(requests(model, in_place=False), tfl.ALIGNMENT).sizes[ARENA]



def test_cmsis_nn_scratch_through_plan(data, capsys):
    """`plan --kernels cmsis-nn`: the plan holds CMSIS-NN's scratch for the target's core
    (an int8 CNN asks for im2col buffers on an M55, none from the reference kernels); no
    core, or one CMSIS-NN does not know, is one line, exit 2."""
    from memplan.cli import main

    model = str(data / "tiny_cnn_int8.tflite")
    reference = tfl.parse_tflite((data / "tiny_cnn_int8.tflite").read_bytes(), model)
    m55 = tfl.parse_tflite((data / "tiny_cnn_int8.tflite").read_bytes(), model,
                           tfl.KernelSet.CMSIS_NN, "cortex-m55")
    assert sum(n for _, n in m55.scratch) > sum(n for _, n in reference.scratch)
    assert main(["plan", model, "--summary", "--kernels", "cmsis-nn", "--target",
                 "cortex-m55"]) == 0
    assert "CMSIS-NN kernels built for cortex-m55" in capsys.readouterr().out
    for extra in ([], ["--core", "cortex-m99"]):
        assert main(["plan", model, "--summary", "--kernels", "cmsis-nn", *extra]) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert "depend on the Cortex-M core" in line
    # --core without --kernels cmsis-nn would be ignored: said, not silently dropped.
    assert main(["plan", model, "--summary", "--core", "cortex-m4"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (f"memplan: {model}: --core cortex-m4: the core decides CMSIS-NN's scratch "
                    "sizes only; add --kernels cmsis-nn (the default, reference, has the same "
                    "kernels on every core)")
