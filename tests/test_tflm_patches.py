"""Patch-by-patch execution of a TFLite model's first stage (runtimes/tflm/patches.py),
proven on TFLM's interpreter: the rewritten model's outputs are byte-identical to the
original's on the same random input, and it runs in a smaller arena.

The models are int8 CNNs with random weights written operator by operator
(tests/tflite_ops.py); the ones whose output is a feature map compare every element the
patches computed, not only a classifier's few logits.
"""

from __future__ import annotations

import pytest

pytest.importorskip("tflite_micro")

import tflite_ops  # noqa: E402

from memplan.errors import InputError  # noqa: E402
from memplan.plan.patches import (  # noqa: E402
    Border,
    Kind,
    StageOp,
    Window,
    search_grids,
    windowed_rows,
)
from memplan.runtimes.tflm import interpreter as tflm  # noqa: E402
from memplan.runtimes.tflm import model as tfl  # noqa: E402
from memplan.runtimes.tflm import patches  # noqa: E402

ARENA = 4 << 20


def outputs(data: bytes, inputs) -> tuple:
    run = tflm.run(data, ARENA, inputs)
    assert run.ok, run.log
    return run.outputs


def identical(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
        for x, y in zip(a, b, strict=True))


def op_names(data: bytes) -> list[str]:
    return [op.name for op in tfl.parse_tflite(data, "m.tflite").ops]


def mixed_stage() -> tuple[bytes, int]:
    """Odd sizes (asymmetric SAME padding), a strided convolution, a padded 3x3 max pool, a
    dilated depthwise convolution and a residual ADD; the ADD's output is the model's
    output. Returns the model and the index of its last operator."""
    net = tflite_ops.Int8Net.start(45, 3, seed=3)
    net.conv(8, 3, 2).max_pool(3, 2)
    skip, skip_scale = net.x, net.scale
    net.conv(0, 3, depthwise=True, dilation=2)
    net.conv(8, 1, activation=tfl.schema.ActivationFunctionType.NONE).add(skip, skip_scale)
    net.g.outputs = [net.x]
    return net.g.finish(), len(net.g.ops) - 1


@pytest.mark.parametrize("grid", [2, 3, 5])
def test_every_patch_grid_gives_the_same_bytes(grid):
    model, last = mixed_stage()
    rewritten = patches.rewrite_at(model, last, grid)
    names = op_names(rewritten)
    # the border patches pad explicitly: PAD before the convolutions, PADV2 (the int8
    # minimum) before the max pool; every window then runs VALID
    assert {"STRIDED_SLICE", "PAD", "PADV2", "CONCATENATION"} <= set(names)
    assert names.count("ADD") == grid * grid and names.count("CONCATENATION") == grid + 1
    back = tfl._unpack(rewritten, "m.tflite")
    windows = [op.builtinOptions for op in back.subgraphs[0].operators
               if hasattr(op.builtinOptions, "padding")]
    assert windows and all(o.padding == tfl.schema.Padding.VALID for o in windows)
    inputs = tflm.random_inputs(model, seed=grid)
    before, after = outputs(model, inputs), outputs(rewritten, inputs)
    assert len(set(before[0].ravel().tolist())) > 50  # not a saturated, constant output
    assert identical(before, after)


@pytest.mark.parametrize("grid", [(3, 1), (1, 2), (2, 3)])
def test_a_rectangular_grid_gives_the_same_bytes(grid):
    """P x Q grids, rows only and columns only among them: a row (or column) of one patch
    is no CONCATENATION, so a rows-only grid joins once."""
    model, last = mixed_stage()
    rewritten = patches.rewrite_at(model, last, grid)
    names = op_names(rewritten)
    rows, cols = grid
    assert names.count("ADD") == rows * cols
    assert names.count("CONCATENATION") == (rows if cols > 1 else 0) + (rows > 1)
    inputs = tflm.random_inputs(model, seed=rows)
    assert identical(outputs(model, inputs), outputs(rewritten, inputs))


@pytest.mark.parametrize("grid", [2, 3])
def test_an_explicit_pad_runs_in_the_patches(grid):
    """keras.applications pads explicitly before a stride-2 depthwise convolution run
    VALID (PAD, then the convolution): the stage goes through the PAD, which each patch
    does as part of its read (a PAD only where the patch meets the image border)."""
    net = tflite_ops.Int8Net.start(33, 3, seed=5)
    net.conv(8, 3, 2).pad(0, 1, 0, 1).conv(0, 3, 2, depthwise=True, padding="VALID")
    net.conv(8, 1, activation=tfl.schema.ActivationFunctionType.NONE)
    net.g.outputs = [net.x]
    model = net.g.finish()
    rewritten = patches.rewrite_at(model, len(net.g.ops) - 1, grid)
    names = op_names(rewritten)  # rewrite_at refuses a prefix that is not a stage
    assert names.count("DEPTHWISE_CONV_2D") == grid * grid
    inputs = tflm.random_inputs(model, seed=grid)
    before, after = outputs(model, inputs), outputs(rewritten, inputs)
    assert len(set(before[0].ravel().tolist())) > 50
    assert identical(before, after)


@pytest.mark.parametrize("grid", [2, 3, (3, 1), (1, 2), (2, 3)])
def test_same_padded_patches_give_the_same_bytes_with_no_pad(grid):
    """Border.SAME: each window pads itself (SAME on the patch), no PAD or PADV2 operator;
    the rows SAME's padding spoils at interior edges are never joined, and the stage
    recomputes them (more multiply-accumulates than Border.PAD's patches)."""
    model, last = mixed_stage()
    padded = patches.rewrite_at(model, last, grid)
    same = patches.rewrite_at(model, last, grid, border=Border.SAME)
    names = op_names(same)
    assert not {"PAD", "PADV2"} & set(names)
    assert len(names) < len(op_names(padded))
    back = tfl._unpack(same, "m.tflite")
    assert any(getattr(op.builtinOptions, "padding", None) == tfl.schema.Padding.SAME
               for op in back.subgraphs[0].operators)
    assert patches.model_macs(back) > patches.model_macs(tfl._unpack(padded, "m.tflite"))
    inputs = tflm.random_inputs(model, seed=11)
    before, after = outputs(model, inputs), outputs(same, inputs)
    assert len(set(before[0].ravel().tolist())) > 50
    assert identical(before, after)


def test_a_misplaced_crop_of_same_patches_changes_the_output():
    """The comparison can fail for SAME patches too: the first patch's crop (the slice
    that drops the columns it computed past its own) moved by one column towards them,
    the same size so the model still runs, gives other bytes."""
    model, last = mixed_stage()
    same = tfl._unpack(patches.rewrite_at(model, last, (1, 2), border=Border.SAME), "m")
    sg = same.subgraphs[0]
    codes = [tfl._op_name(c) for c in same.operatorCodes]
    concat = next(op for op in sg.operators if codes[op.opcodeIndex] == "CONCATENATION")
    crop = next(op for op in sg.operators if codes[op.opcodeIndex] == "STRIDED_SLICE"
                and op.outputs[0] == concat.inputs[0])
    wide = sg.tensors[crop.inputs[0]].shape[2]
    begin, end = (same.buffers[sg.tensors[crop.inputs[k]].buffer].data.view("<i4").copy()
                  for k in (1, 2))
    assert end[2] < wide  # the first patch computed columns past its own
    for k, values in ((1, begin + [0, 0, 1, 0]), (2, end + [0, 0, 1, 0])):
        buffer = tfl.schema.BufferT()
        buffer.data = values.astype("<i4").view("uint8")
        same.buffers.append(buffer)
        t = tfl.schema.TensorT()
        t.shape, t.type, t.buffer = [4], tfl.schema.TensorType.INT32, len(same.buffers) - 1
        sg.tensors.append(t)
        crop.inputs[k] = len(sg.tensors) - 1
    broken = tfl._pack(same, 1 << 20)
    inputs = tflm.random_inputs(model, seed=1)
    assert not identical(outputs(model, inputs), outputs(broken, inputs))


@pytest.mark.parametrize("kernel,stride,dilation,size", [
    (3, 1, 1, 17), (3, 2, 1, 16), (3, 2, 1, 17), (5, 2, 1, 23), (3, 1, 2, 20), (7, 3, 1, 31),
    (2, 2, 1, 12), (1, 1, 1, 9), (4, 1, 1, 10)])
def test_windowed_rows_claims_only_rows_equal_to_the_original(kernel, stride, dilation, size):
    """`windowed_rows` against a direct walk of one axis: every row it calls valid reads,
    tap by tap, the rows (or padding) the original's row reads, on every patch extent and
    valid part of a small input, SAME and VALID."""
    span = (kernel - 1) * dilation + 1
    out_size = -(-size // stride)
    pad = max((out_size - 1) * stride + span - size, 0) // 2
    window = Window(kernel, stride, dilation, pad, size)

    def original(g):
        return [t if 0 <= t < size else None
                for t in (g * stride - pad + j * dilation for j in range(kernel))]

    claimed = 0
    for lo in range(size):
        for hi in range(lo + 1, size + 1):
            for valid in ((lo, hi), (lo + 1, hi), (lo, hi - 1)):
                for same in (True, False):
                    got = windowed_rows(window, (lo, hi), valid, same, out_size)
                    if got is None:
                        continue
                    (base, top), (v0, v1) = got
                    n = hi - lo
                    first = max((-(-n // stride) - 1) * stride + span - n, 0) // 2 \
                        if same else 0
                    assert top - base == (-(-n // stride) if same else (n - span) // stride + 1)
                    for g in range(v0, v1):
                        o = g - base
                        taps = [o * stride - first + j * dilation for j in range(kernel)]
                        seen = [None if not 0 <= p < n else
                                lo + p if valid[0] <= lo + p < valid[1] else "garbage"
                                for p in taps]
                        assert seen == original(g), (lo, hi, valid, same, g)
                        claimed += 1
    assert claimed > size  # the check above ran on many rows


def test_a_misplaced_halo_changes_the_output():
    """The comparison above can fail: the same rewrite with one slice's rows shifted by one
    gives other bytes."""
    model, last = mixed_stage()
    rewritten = tfl._unpack(patches.rewrite_at(model, last, 2), "m.tflite")
    sg = rewritten.subgraphs[0]
    codes = [tfl._op_name(c) for c in rewritten.operatorCodes]
    first_slice = next(op for op in sg.operators if codes[op.opcodeIndex] == "STRIDED_SLICE")
    begin, end = (rewritten.buffers[sg.tensors[first_slice.inputs[k]].buffer] for k in (1, 2))
    shifted = tfl.schema.BufferT()
    values = begin.data.view("<i4").copy()
    values[1] += 1
    shifted.data = values.view("uint8")
    rewritten.buffers.append(shifted)
    moved = tfl.schema.TensorT()
    moved.shape, moved.type, moved.buffer = [4], tfl.schema.TensorType.INT32, \
        len(rewritten.buffers) - 1
    sg.tensors.append(moved)
    ends = end.data.view("<i4").copy()
    ends[1] += 1
    grown = tfl.schema.BufferT()
    grown.data = ends.view("uint8")
    rewritten.buffers.append(grown)
    moved_end = tfl.schema.TensorT()
    moved_end.shape, moved_end.type, moved_end.buffer = [4], tfl.schema.TensorType.INT32, \
        len(rewritten.buffers) - 1
    sg.tensors.append(moved_end)
    first_slice.inputs = [first_slice.inputs[0], len(sg.tensors) - 2, len(sg.tensors) - 1,
                          first_slice.inputs[3]]
    broken = tfl._pack(rewritten, 1 << 20)
    inputs = tflm.random_inputs(model, seed=1)
    assert not identical(outputs(model, inputs), outputs(broken, inputs))


def test_cnn_runs_patch_by_patch_in_a_smaller_arena():
    model = tflite_ops.cnn5(64, classify=False)
    result = patches.rewrite_patches(model, max_recompute=0.2, rectangular=False)
    assert result.model is not None, result.reason
    assert result.lower_bound_after < result.lower_bound_before
    assert result.lower_bound_after == patches.schedule_bound(result.model)
    assert result.lower_bound_before == patches.schedule_bound(model)
    assert 0 < result.recompute <= 0.2
    assert result.macs_after - result.macs_before == \
        result.stage_macs_after - result.stage_macs_before
    assert result.macs_after == patches.model_macs(tfl._unpack(result.model, "m"))
    rows, cols = result.grid
    assert op_names(result.model).count("CONCATENATION") == rows + 1
    inputs = tflm.random_inputs(model, seed=7)
    assert identical(outputs(model, inputs), outputs(result.model, inputs))
    original_arena = tflm.smallest_arena(model, inputs)
    patched_arena = tflm.smallest_arena(result.model, inputs)
    assert patched_arena < original_arena


def test_the_join_writes_each_row_where_it_belongs_in_the_split_tensor(tmp_path):
    """A zero-copy CONCATENATION: on cnn5 at 32 patched after its second convolution as
    3 x 3, the height-wise join's inputs (rows of patches) are placed inside its output
    (at their byte offsets), which lowers the bound; memplan's plan of it runs on TFLM with
    identical outputs in a smaller arena than TFLM's own plan of the same model."""
    import dataclasses

    from memplan.plan.contract import ReadOptions
    from memplan.plan.driver import check_run, plan_model

    model = tflite_ops.cnn5(32, classify=False)
    rewritten = patches.rewrite_at(model, 1, 3)
    parsed = tfl.parse_tflite(rewritten, "m.tflite")
    concat = next(op for op in parsed.ops if op.name == "CONCATENATION"
                  and op.options.axis == 1)
    rows = [parsed.tensors[k] for k in concat.inputs]
    assert {k: parsed.joins[k] for k in concat.inputs} == {
        t.key: (concat.outputs[0], sum(r.nbytes for r in rows[:i]))
        for i, t in enumerate(rows)}
    assert patches._bound(parsed) < patches._bound(dataclasses.replace(parsed, joins={}))
    path = tmp_path / "patched.tflite"
    path.write_bytes(rewritten)
    fe, plan = plan_model(str(path), options=ReadOptions(None, {}, True, 10.0))
    [arena] = plan.arenas
    out = arena.offsets[concat.outputs[0]]
    assert [arena.offsets[t.key] - out for t in rows] == [
        parsed.joins[t.key][1] for t in rows]
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena < check.original.arena


def test_mobilenet_v2_residual_stage():
    """The searched split of MobileNetV2 (0.35, 96): its outputs unchanged, its bound lower."""
    model = tflite_ops.mobilenet_v2(0.35, 96)
    result = patches.rewrite_patches(model, objective=patches.Objective.BOUND)
    assert result.model is not None, result.reason
    assert result.lower_bound_after < result.lower_bound_before
    assert result.recompute <= 0.2
    inputs = tflm.random_inputs(model, seed=2)
    assert identical(outputs(model, inputs), outputs(result.model, inputs))


def test_the_budget_is_kept():
    model = tflite_ops.cnn5(64)
    chosen = []
    for budget in (0.0, 0.05, 0.5):
        result = patches.rewrite_patches(model, max_recompute=budget, rectangular=False,
                                         objective=patches.Objective.BOUND)
        if result.model is None:
            assert result.reason and result.lower_bound_after == result.lower_bound_before
        else:
            assert result.recompute <= budget
        chosen.append(result.lower_bound_after)
    # a larger budget admits every candidate a smaller one does
    assert chosen[0] >= chosen[1] >= chosen[2] and chosen[2] < chosen[0]


def test_the_budget_is_a_share_of_the_model_s_multiply_accumulates():
    """A stage of 100 multiply-accumulates in a model of 1,000, with R = 0.2: 200 extra
    are allowed, so a grid that doubles the stage (+100% of it, +10% of the model) is
    kept and the first one past 200 extra ends the grids."""
    stage = [StageOp(0, "conv", Kind.CONV, (0,), 1, Window(3), Window(3))]
    extra = {2: 40, 3: 100, 4: 200, 5: 201, 6: 150}

    def measure(stage, grid):
        return 1000 - grid, 100 + extra[grid]

    found = search_grids([stage], max_recompute=0.2, max_grid=6, model_macs=1000,
                         stage_macs=lambda s: 100, measure=measure,
                         output_size=lambda s: (8, 8))
    assert [c.grid for c in found] == [4, 3, 2]
    assert [c.stage_macs for c in found] == [300, 200, 140]


def test_the_arena_objective_weighs_tflm_s_tail():
    """Each patch adds operators, and TFLM keeps persistent data per operator: minimising
    the head's bound alone picks a finer grid than minimising the planned head plus that
    tail."""
    model = tflite_ops.cnn5(64)
    head = patches.rewrite_patches(model, objective=patches.Objective.BOUND, rectangular=False)
    arena = patches.rewrite_patches(model, objective=patches.Objective.ARENA, rectangular=False)
    assert head.tail_after is None and arena.tail_after is not None
    assert head.lower_bound_after <= arena.lower_bound_after
    head_tail = tflm.allocation(head.model).tail
    assert patches.planned_head(arena.model) + arena.tail_after <= \
        patches.planned_head(head.model) + head_tail
    assert arena.tail_before == tflm.allocation(model).tail < arena.tail_after


def test_the_pruned_search_chooses_what_allocating_every_candidate_chooses(monkeypatch):
    """The arena search skips candidates whose floor (`patches.Floor`) is at or above the
    best total so far: it must choose the same model as the search that builds and
    allocates every candidate, with fewer allocations."""
    model = tflite_ops.cnn5(48)
    allocated = []
    real = tflm.allocation

    def counted(data, *args, **kwargs):
        allocated.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(tflm, "allocation", counted)
    kwargs = {"max_recompute": 1.0, "max_grid": 4, "rectangular": False}
    pruned = patches.rewrite_patches(model, **kwargs)
    skipped = len(allocated)
    allocated.clear()
    every = patches.rewrite_patches(model, prune=False, **kwargs)
    assert pruned.model is not None and pruned.model == every.model
    assert (pruned.split_after, pruned.grid, pruned.border, pruned.tail_after) == \
        (every.split_after, every.grid, every.border, every.tail_after)
    assert skipped < len(allocated)


def test_a_candidate_s_floor_is_below_its_arena():
    """`Floor.total` (the in-place bound, the original's tail, one record per added
    operator and tensor) is never above what the built candidate costs: memplan's planned
    head plus TFLM's tail."""
    model = tflite_ops.cnn5(48)
    original = tfl._unpack(model, "m.tflite")
    use = tflm.allocation(model)
    assert use.per_operator > 0 and use.per_tensor > 0
    floors = {}
    candidates = patches._candidates(original, patches.candidate_stages(original), 1.0, 3,
                                     "m.tflite", True, tuple(Border), floors)
    assert len(candidates) > 4
    for c in candidates[::max(1, len(candidates) // 4)]:
        data = patches._packed(patches._patch(original, c.stage, c.grid, c.border), model)
        floor = floors[patches._key(c)]
        tail = tflm.allocation(data).tail
        assert floor.head <= patches.planned_head(data)
        assert floor.total(use) - floor.head <= tail


def test_a_converted_model_from_tensorflow(data):
    """tests/data/tiny_cnn_int8.tflite comes from TensorFlow's converter, not from the
    builder above."""
    model = (data / "tiny_cnn_int8.tflite").read_bytes()
    result = patches.rewrite_patches(model, max_recompute=1.0,
                                     objective=patches.Objective.BOUND)
    assert result.model is not None, result.reason
    inputs = tflm.random_inputs(model, seed=4)
    assert identical(outputs(model, inputs), outputs(result.model, inputs))


@pytest.mark.parametrize("lead", ["RESHAPE", "TRANSPOSE", "QUANTIZE"])
def test_a_stage_after_a_leading_layout_operator(lead):
    """micro_speech's RESHAPE, a PyTorch model's TRANSPOSE from NCHW, MCUNet's QUANTIZE of
    a float image: kept before the stage, which reads their [1, H, W, C] output."""
    net = tflite_ops.Int8Net.start_after(lead, 24, 3, seed=7)
    net.conv(8, 3, 2).conv(0, 3, depthwise=True)
    net.conv(8, 1, activation=tfl.schema.ActivationFunctionType.NONE)
    net.g.outputs = [net.x]
    model = net.g.finish()
    starts = {stage[0].index for stage in patches.candidate_stages(tfl._unpack(model, "m"))}
    assert 1 in starts  # QUANTIZE is elementwise: it may also be the stage's first operator
    rewritten = patches.rewrite_at(model, len(net.g.ops) - 1, 2, split_from=1)
    names = op_names(rewritten)
    assert names[0] == lead and names.count(lead) == 1 and names.count("CONV_2D") == 8
    inputs = tflm.random_inputs(model, seed=1)
    before, after = outputs(model, inputs), outputs(rewritten, inputs)
    assert len(set(before[0].ravel().tolist())) > 50
    assert identical(before, after)


def test_no_stage_no_rewrite():
    model = tflite_ops.two_adds()  # [4, 16] tensors: nothing spatial to cut
    result = patches.rewrite_patches(model)
    assert result.model is None and "no run of" in result.reason
    with pytest.raises(ValueError, match="not a stage"):
        patches.rewrite_at(model, 0, 2)


def test_shapes_that_lie_are_not_walked():
    """The receptive-field walk trusts the operators' shapes: a convolution whose output
    shape is not the one its padding and stride give ends the stage before it."""
    model, last = mixed_stage()
    tree = tfl._unpack(model, "m.tflite")
    sg = tree.subgraphs[0]
    first = sg.operators[0]
    sg.tensors[first.outputs[0]].shape = [1, 22, 23, 8]  # SAME, stride 2 on 45: 23
    lying = tfl._pack(tree, 1 << 20)
    assert patches.candidate_stages(tfl._unpack(lying, "m")) == []
    assert patches.rewrite_patches(lying).model is None
    with pytest.raises(InputError, match="not a TFLite flatbuffer"):
        patches.rewrite_patches(model[:6])


def test_the_stage_input_is_released_band_by_band(tmp_path):
    """cnn5 at 32 patched as 2 x 2 after its third convolution: the image is read only
    by the patches' slices, so its row bands are released as the last patch reading each
    has run (`TfliteModel.releases`); memplan packs its bands at their relative offsets,
    the bound counting them, and TFLM runs the plan with the
    outputs unchanged."""
    import dataclasses

    from memplan.plan.contract import ReadOptions
    from memplan.plan.driver import check_run, plan_model

    model = tflite_ops.cnn5(32, classify=False)
    rewritten = patches.rewrite_at(model, 2, 2)
    parsed = tfl.parse_tflite(rewritten, "m.tflite")
    [image] = [parsed.tensors[k] for k in parsed.inputs]
    parts = parsed.releases[image.key]
    row = 32 * 3
    assert len(parts) >= 2 and all(p.offset % row == 0 for p in parts)
    assert [p.offset for p in parts] == [0, *(p.offset + p.size for p in parts[:-1])]
    assert parts[-1].offset + parts[-1].size == image.size
    assert max(p.end for p in parts) == image.last + 1
    assert min(p.end for p in parts) < image.last + 1  # the top band dies first
    assert patches._bound(parsed) < patches._bound(dataclasses.replace(parsed, releases={}))
    path = tmp_path / "patched.tflite"
    path.write_bytes(rewritten)
    fe, plan = plan_model(str(path), options=ReadOptions(None, {}, True, 10.0))
    [arena] = plan.arenas
    # Its bands are rectangles of the packing: the bound counts them, and the plan is no
    # larger than the image's held whole (here both 16,512 B: which of the two equal plans
    # is kept, bands reused or not, is the packer's tie).
    from memplan.buffers import Arena
    from memplan.plan.driver import plan_arena

    whole = tuple(dataclasses.replace(b, parts=()) for b in arena.buffers)
    [held] = plan_arena(Arena("arena", whole, tfl.ALIGNMENT), time_limit=None)
    assert arena.lower_bound < held.lower_bound
    assert arena.size <= held.size
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena < check.original.arena


def test_a_slice_of_whole_rows_is_a_view_of_its_input(tmp_path):
    """A rows-only grid slices bands of whole rows of the image: each slice's output is
    one contiguous range of the image, so it sits on those bytes (`TfliteModel.views`),
    where TFLM's kernel copies each element onto itself; the band then lives until the
    slice's reader has run. memplan's plan puts every slice there and TFLM runs it with
    the outputs unchanged. A 2 x 2 grid's slices are not contiguous: no view."""
    from memplan.plan.contract import ReadOptions
    from memplan.plan.driver import check_run, plan_model

    model = tflite_ops.cnn5(32, classify=False)
    assert not tfl.parse_tflite(patches.rewrite_at(model, 2, 2), "m.tflite").views
    rewritten = patches.rewrite_at(model, 2, (3, 1))
    parsed = tfl.parse_tflite(rewritten, "m.tflite")
    [image] = parsed.inputs
    slices = [op for op in parsed.ops if op.name == "STRIDED_SLICE" and op.inputs[0] == image]
    assert len(slices) == 3
    row = 32 * 3
    assert {op.outputs[0]: parsed.views[op.outputs[0]] for op in slices} == {
        op.outputs[0]: (image, v[0] * row) for op in slices
        for v in [tfl._constant_ints(tfl._unpack(rewritten, "m"), 0, op, 1)[1:2]]}
    path = tmp_path / "patched.tflite"
    path.write_bytes(rewritten)
    fe, plan = plan_model(str(path), options=ReadOptions(None, {}, True, 10.0))
    [arena] = plan.arenas
    for op in slices:
        out = op.outputs[0]
        assert arena.offsets[out] == arena.offsets[image] + parsed.views[out][1]
    check = check_run(fe, plan)
    assert check.identical


def test_patches_are_named_only_for_operators_a_stage_can_hold_inside():
    """The floor's note names patches for an operator only when it can run inside a stage
    (its output read by operators a stage holds): the stage's last operator writes its
    whole output while its whole input is live, so patches never lower what it holds (as
    micro_speech's one depthwise convolution, read by a RESHAPE)."""
    from memplan.runtimes.tflm.front_end import operators

    net = tflite_ops.Int8Net.start(24, 3, seed=2)
    net.conv(8, 3, 2).conv(0, 3, depthwise=True).conv(8, 1)
    net.g.outputs = [net.x]
    found = operators(tfl.parse_tflite(net.g.finish(), "m.tflite"))
    assert ["patches" in op.lowered_by for op in found] == [True, True, False]
