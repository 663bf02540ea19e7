"""Windowed operators written over their dying input (`runtimes/tflm/window.py`, issue 34):
the shift is checked against a byte-by-byte walk of the kernel's loops, each kind runs at
its shift on TFLM's interpreter with outputs identical to TFLM's own plan, and a smaller
shift changes the outputs (the run can fail)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("tflite_micro")

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema  # noqa: E402
from tflite_ops import Graph, Int8Net  # noqa: E402

from memplan.buffers import BufferRequest, pieces  # noqa: E402
from memplan.plan.contract import ReadOptions  # noqa: E402
from memplan.plan.driver import check_run, plan_model  # noqa: E402
from memplan.plan.rewrites import RewriteKind, RewriteOptions  # noqa: E402
from memplan.runtimes.tflm import model as tfl  # noqa: E402
from memplan.runtimes.tflm import window  # noqa: E402


def _walk_shift(win: window.Window) -> int:
    """The smallest shift, by walking the kernel's loops element by element: the lowest
    input byte each output element reads, then each write against every later read."""
    n, h, w, c = win.input_shape
    _, oh, ow, oc = win.output_shape
    reads = []
    for b, oy, ox, ch in itertools.product(range(n), range(oh), range(ow), range(oc)):
        lowest = None
        for fy, fx in itertools.product(range(win.kernel[0]), range(win.kernel[1])):
            iy = oy * win.stride[0] - win.padding[0] + fy * win.dilation[0]
            ix = ox * win.stride[1] - win.padding[1] + fx * win.dilation[1]
            if 0 <= iy < h and 0 <= ix < w:
                at = ((b * h + iy) * w + ix) * c + int(win.channel_base[ch])
                lowest = at if lowest is None else min(lowest, at)
        reads.append(None if lowest is None else lowest * win.input_item)
    need = 0
    for i in range(len(reads)):
        later = [r for r in reads[i + 1:] if r is not None]
        if later:
            need = max(need, (i + 1) * win.output_item - min(later))
    return need


def _runs_clean(win: window.Window, d: int) -> bool:
    """Whether the kernel's loops, run over memory holding the input with the output
    starting `d` bytes below it (negative: above), read only input bytes not yet
    overwritten: each output element reads its window, then writes its bytes."""
    n, h, w, c = win.input_shape
    _, oh, ow, oc = win.output_shape
    size, ii, oi = n * h * w * c * win.input_item, win.input_item, win.output_item
    low = min(0, -d)
    memory = np.full(max(size, -d + n * oh * ow * oc * oi) - low, -1, dtype=np.int64)
    memory[-low:-low + size] = np.arange(size)
    for j, (b, oy, ox, ch) in enumerate(itertools.product(range(n), range(oh), range(ow),
                                                          range(oc))):
        channels = range(c) if win.dense else [int(win.channel_base[ch])]
        for fy, fx in itertools.product(range(win.kernel[0]), range(win.kernel[1])):
            iy = oy * win.stride[0] - win.padding[0] + fy * win.dilation[0]
            ix = ox * win.stride[1] - win.padding[1] + fx * win.dilation[1]
            if 0 <= iy < h and 0 <= ix < w:
                for k in channels:
                    q = (((b * h + iy) * w + ix) * c + k) * ii
                    if (memory[q - low:q - low + ii] != np.arange(q, q + ii)).any():
                        return False
        memory[-d + j * oi - low:-d + (j + 1) * oi - low] = -1
    return True


def _window_of(data: bytes, name: str) -> tuple[tfl.TfliteModel, tfl.TfliteOp]:
    model = tfl.parse_tflite(data, "m.tflite")
    return model, next(op for op in model.ops if op.name == name)


def _net(size: int, channels: int, dtype: str = "int8") -> Int8Net:
    return Int8Net.start(size, channels, seed=3, dtype=dtype)


def _avg_pool(net: Int8Net, size: int, stride: int, padding: str) -> Int8Net:
    _, h, w, c = net.shape
    options = schema.Pool2DOptionsT()
    options.padding = getattr(schema.Padding, padding)
    options.strideH = options.strideW = stride
    options.filterHeight = options.filterWidth = size
    oh, ow = (-(-h // stride), -(-w // stride)) if padding == "SAME" else \
        ((h - size) // stride + 1, (w - size) // stride + 1)
    shape = [1, oh, ow, c]
    y = net.g.tensor("avg_pool", shape, net.dtype, scale=net.scale)
    net.g.op("AVERAGE_POOL_2D", [net.x], [y], options=options,
             options_type=schema.BuiltinOptions.Pool2DOptions)
    net.x, net.shape = y, shape
    return net


def _float(kind: str, size: int, channels: int, out: int = 0, kernel: int = 3,
           stride: int = 1, multiplier: int = 1) -> SimpleNamespace:
    """A float32 image through one CONV_2D, DEPTHWISE_CONV_2D, pool or PAD (SAME)."""
    g = Graph(rng=np.random.default_rng(5))
    x = g.tensor("input", [1, size, size, channels])
    g.inputs = [x]
    side = -(-size // stride)
    inputs = [x]
    if kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        depthwise = kind == "DEPTHWISE_CONV_2D"
        out = channels * multiplier if depthwise else out
        shape = [1, kernel, kernel, out] if depthwise else [out, kernel, kernel, channels]
        inputs += [g.weights("w", shape), g.weights("b", [out])]
        options = schema.DepthwiseConv2DOptionsT() if depthwise else schema.Conv2DOptionsT()
        if depthwise:
            options.depthMultiplier = multiplier
        code = getattr(schema.BuiltinOptions, "DepthwiseConv2DOptions" if depthwise
                       else "Conv2DOptions")
        options.dilationHFactor = options.dilationWFactor = 1
    elif kind == "PAD":
        inputs.append(g.tensor("paddings", [4, 2], "int32", data=np.array(
            [[0, 0], [1, 1], [1, 1], [0, 0]], np.int32)))
        options, code, out, side = schema.PadOptionsT(), schema.BuiltinOptions.PadOptions, \
            channels, size + 2
    else:
        options, code, out = schema.Pool2DOptionsT(), schema.BuiltinOptions.Pool2DOptions, \
            channels
        options.filterHeight = options.filterWidth = kernel
    if kind != "PAD":
        options.padding, options.strideH, options.strideW = schema.Padding.SAME, stride, stride
    y = g.tensor("output", [1, side, side, out])
    g.op(kind, inputs, [y], options=options, options_type=code)
    return SimpleNamespace(g=g, x=y)


# One model per kind and geometry: the image in, the operator, its output out (the only
# step, so it holds the bound).
MODELS = {
    "conv 1x1 expanding": ("CONV_2D", lambda: _net(12, 8).conv(24, 1)),
    "conv 3x3 stride 1": ("CONV_2D", lambda: _net(12, 8).conv(16, 3)),
    "conv 3x3 stride 2 valid": ("CONV_2D", lambda: _net(13, 8).conv(16, 3, 2, padding="VALID")),
    "conv 3x3 dilated": ("CONV_2D", lambda: _net(12, 8).conv(16, 3, dilation=2)),
    "depthwise 3x3 stride 1": ("DEPTHWISE_CONV_2D",
                               lambda: _net(12, 16).conv(0, 3, depthwise=True)),
    "depthwise 3x3 stride 2": ("DEPTHWISE_CONV_2D",
                               lambda: _net(12, 16).conv(0, 3, 2, depthwise=True)),
    "max pool 3x3 stride 1": ("MAX_POOL_2D", lambda: _net(12, 16).max_pool(3, 1)),
    "max pool 2x2 stride 2": ("MAX_POOL_2D", lambda: _net(12, 16).max_pool(2, 2)),
    "average pool 3x3 stride 1": ("AVERAGE_POOL_2D", lambda: _avg_pool(_net(12, 16), 3, 1,
                                                                       "SAME")),
    "pad 1 all round": ("PAD", lambda: _net(12, 16).pad(1, 1, 1, 1)),
    "pad 0 1 0 1": ("PAD", lambda: _net(13, 8).pad(0, 1, 0, 1)),
    "depthwise 3x3 multiplier 2": ("DEPTHWISE_CONV_2D",
                                   lambda: _net(12, 8).conv(0, 3, depthwise=True, multiplier=2)),
    "depthwise 3x3 stride 2 multiplier 3": (
        "DEPTHWISE_CONV_2D", lambda: _net(12, 8).conv(0, 3, 2, depthwise=True, multiplier=3)),
    "float conv 3x3 stride 1": ("CONV_2D", lambda: _float("CONV_2D", 10, 4, 8)),
    "float conv 1x1 expanding": ("CONV_2D", lambda: _float("CONV_2D", 10, 4, 12, kernel=1)),
    "float depthwise 3x3 stride 1": ("DEPTHWISE_CONV_2D",
                                     lambda: _float("DEPTHWISE_CONV_2D", 10, 8)),
    "float depthwise 3x3 stride 2 multiplier 2": (
        "DEPTHWISE_CONV_2D", lambda: _float("DEPTHWISE_CONV_2D", 10, 4, stride=2, multiplier=2)),
    "float max pool 3x3 stride 1": ("MAX_POOL_2D", lambda: _float("MAX_POOL_2D", 10, 8)),
    "float average pool 3x3 stride 1": ("AVERAGE_POOL_2D",
                                        lambda: _float("AVERAGE_POOL_2D", 10, 8)),
    "float pad 1 all round": ("PAD", lambda: _float("PAD", 10, 8)),
    "int16 conv 3x3 stride 1": ("CONV_2D", lambda: _net(12, 8, "int16").conv(16, 3)),
    "int16 conv 1x1 expanding": ("CONV_2D", lambda: _net(12, 8, "int16").conv(24, 1)),
    "int16 depthwise 3x3 stride 1": ("DEPTHWISE_CONV_2D",
                                     lambda: _net(12, 16, "int16").conv(0, 3, depthwise=True)),
    "int16 max pool 3x3 stride 1": ("MAX_POOL_2D", lambda: _net(12, 16, "int16").max_pool(3, 1)),
    "int16 average pool 3x3 stride 1": ("AVERAGE_POOL_2D", lambda: _avg_pool(
        _net(12, 16, "int16"), 3, 1, "SAME")),
    "int16 pad 1 all round": ("PAD", lambda: _net(12, 16, "int16").pad(1, 1, 1, 1)),
}


def _model(key: str) -> tuple[str, bytes]:
    kind, build = MODELS[key]
    net = build()
    net.g.outputs = [net.x]
    return kind, net.g.finish()


@pytest.mark.parametrize("key", [k for k in MODELS if "dilated" in k or "stride 2" in k
                                 or "1x1" in k or "max pool 3x3" in k or "pad" in k
                                 or "multiplier" in k or "float" in k or "int16" in k])
def test_shift_is_the_kernels_loop_walked_byte_by_byte(key):
    kind, data = _model(key)
    model, op = _window_of(data, kind)
    win = window.window(model, op)
    assert win is not None
    assert window.shift(win) == _walk_shift(win)


@pytest.mark.parametrize("key", [k for k in MODELS if "stride 2" in k or "2x2" in k
                                 or k == "depthwise 3x3 stride 1"])
def test_above_is_the_least_aligned_place_above_the_input_the_walk_finds_safe(key):
    kind, data = _model(key)
    model, op = _window_of(data, kind)
    win = window.window(model, op)
    d = window.shift(win)
    assert _runs_clean(win, d) and (d == 0 or not _runs_clean(win, d - 1))
    a = window.above(win)
    top = a if a is not None else 8 * tfl.ALIGNMENT
    assert not any(_runs_clean(win, -b) for b in range(tfl.ALIGNMENT, top, tfl.ALIGNMENT))
    assert a is None or _runs_clean(win, -a)


def test_shift_of_known_shapes():
    # A 3x3 stride-1 depthwise over 12x12x16: the row above and one pixel more.
    kind, data = _model("depthwise 3x3 stride 1")
    model, op = _window_of(data, kind)
    assert window.shift(window.window(model, op)) == (12 + 1) * 16
    # A 1x1 conv from 8 to 24 channels: 16 bytes per pixel before the last, whose 8 input
    # bytes are read until its 23rd output byte is written.
    kind, data = _model("conv 1x1 expanding")
    model, op = _window_of(data, kind)
    assert window.shift(window.window(model, op)) == 16 * (12 * 12 - 1) + 23


def _plan(path):
    options = ReadOptions(write=True, time_limit=None,
                          rewrites=RewriteOptions((RewriteKind.INPLACE,)))
    return plan_model(str(path), options=options)


@pytest.mark.parametrize("key", list(MODELS))
def test_each_kind_runs_at_its_shift_with_identical_outputs(key, tmp_path):
    kind, data = _model(key)
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    fe, plan = _plan(path)
    (done,) = plan.rewrites
    assert done.kept, done.reason
    model = plan.view.source.model
    op = next(op for op in model.ops if op.name == kind)
    out, src = op.outputs[0], op.slots[0]
    d = window.aligned_shift(window.window(model, op))
    assert model.shares[out] == src and model.share_offsets[out] == -d
    offsets = plan.arenas[0].offsets
    assert offsets[out] == offsets[src] - d
    assert any(f"{kind} #{op.index} writes over" in line for line in done.what)
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena < check.original.arena


@pytest.mark.parametrize("key,less", [
    ("conv 1x1 expanding", 16), ("conv 3x3 stride 1", 16), ("depthwise 3x3 stride 1", 16),
    ("max pool 3x3 stride 1", 16), ("average pool 3x3 stride 1", 16),
    ("conv 3x3 stride 2 valid", 16),  # its shift is 16: at its input's own offset
    ("depthwise 3x3 stride 2", 48),  # its shift is 0: three pixels above its input's start
    ("depthwise 3x3 multiplier 2", 16), ("depthwise 3x3 stride 2 multiplier 3", 16),
    ("float conv 3x3 stride 1", 16), ("float conv 1x1 expanding", 16),
    ("float depthwise 3x3 stride 1", 16), ("float depthwise 3x3 stride 2 multiplier 2", 16),
    ("float max pool 3x3 stride 1", 16), ("float average pool 3x3 stride 1", 16),
    ("float pad 1 all round", 16),
    ("pad 1 all round", 16), ("pad 0 1 0 1", 16),
    ("int16 conv 3x3 stride 1", 16), ("int16 conv 1x1 expanding", 16),
    ("int16 depthwise 3x3 stride 1", 16), ("int16 max pool 3x3 stride 1", 16),
    ("int16 average pool 3x3 stride 1", 16), ("int16 pad 1 all round", 16),
])
def test_a_smaller_shift_changes_the_outputs(key, less, tmp_path, monkeypatch):
    """The run can fail: `less` bytes less than the shift overwrites input bytes a later
    output element still reads, and the outputs change."""
    kind, data = _model(key)
    model, op = _window_of(data, kind)
    d = window.aligned_shift(window.window(model, op))
    # Fewer bytes below the input is never refused by the plan: only the run catches it.
    monkeypatch.setattr(window, "aligned_shift", lambda win: d - less)
    monkeypatch.setattr(window, "above", lambda win: None)
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    fe, plan = _plan(path)
    (done,) = plan.rewrites
    assert done.kept, done.reason
    written = plan.view.source.model
    out, src = op.outputs[0], op.slots[0]
    offsets = plan.arenas[0].offsets
    assert written.share_offsets[out] == less - d
    assert offsets[out] == offsets[src] - d + less
    assert not check_run(fe, plan).identical


@pytest.mark.parametrize("key,up,safe", [
    ("depthwise 3x3 stride 2", 16, True), ("max pool 2x2 stride 2", 16, True),
    ("depthwise 3x3 stride 2", 32, False), ("max pool 2x2 stride 2", 48, False)])
def test_a_strided_window_runs_above_its_input(key, up, safe, tmp_path, monkeypatch):
    """At `above` (16 B over its input's start) the outputs are TFLM's own; at a place the
    walk finds unsafe they change (the run can fail)."""
    kind, data = _model(key)
    model, op = _window_of(data, kind)
    win = window.window(model, op)
    assert (window.above(win) == up) is safe and _runs_clean(win, -up) is safe
    monkeypatch.setattr(window, "aligned_shift", lambda win: -up)
    monkeypatch.setattr(window, "above", lambda win: None)
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    fe, plan = _plan(path)
    (done,) = plan.rewrites
    assert done.kept, done.reason
    out, src = op.outputs[0], op.slots[0]
    assert plan.view.source.model.share_offsets[out] == up
    offsets = plan.arenas[0].offsets
    assert offsets[out] == offsets[src] + up
    assert check_run(fe, plan).identical is safe


def test_a_staggered_group_packs_as_pieces_per_step():
    # x (100 B, steps 0-1) written over by y (60 B, steps 1-3) 40 bytes below it.
    x = BufferRequest(0, "x", 100, 0, 2)
    y = BufferRequest(1, "y", 60, 1, 4, shares_with=0, share_offset=-40)
    got = pieces([x, y])
    assert [(p.offset, p.size, p.start, p.end) for p in got] == [
        (40, 100, 0, 1), (0, 140, 1, 2), (0, 60, 2, 4)]


def test_cmsis_nn_kernels_get_no_windowed_rewrite(tmp_path):
    kind, data = _model("conv 1x1 expanding")
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    options = ReadOptions(write=False, time_limit=None,
                          rewrites=RewriteOptions((RewriteKind.INPLACE,)),
                          extra={"kernels": "cmsis-nn", "core": "cortex-m55"})
    _, plan = plan_model(str(path), options=options)
    (done,) = plan.rewrites
    assert not done.kept and not plan.view.source.model.share_offsets


def test_a_chain_is_taken_only_where_it_lowers_the_plan(tmp_path):
    """A MobileNetV1-like chain: each windowed output drifts below its input, so taking
    every one would stretch the group past the peak; the plan keeps what lowers it and
    runs with identical outputs."""
    net = _net(24, 8).conv(8, 3).conv(0, 3, depthwise=True).conv(16, 1)
    net.conv(0, 3, 2, depthwise=True).conv(32, 1).conv(0, 3, depthwise=True).conv(32, 1)
    net.g.outputs = [net.x]
    path = tmp_path / "chain.tflite"
    path.write_bytes(net.g.finish())
    fe, plan = _plan(path)
    (done,) = plan.rewrites
    assert done.kept and done.bound_after < done.bound_before
    model = plan.view.source.model
    assert 0 < len(model.share_offsets) < sum(1 for op in model.ops
                                              if window.eligible(tfl.parse_tflite(
                                                  path.read_bytes(), str(path)), op))
    # The floor counts a shifted pair as the span it holds: never above the bound.
    assert plan.floor <= plan.lower_bound
    check = check_run(fe, plan)
    assert check.identical and check.planned.arena < check.original.arena
