"""Patch-by-patch execution of a .pt2's first stage under ExecuTorch (issue 34): the
rewritten program lowered again, run by executorch.runtime and compared byte for byte
with the program as exported."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")

from torch import nn  # noqa: E402

from memplan.runtimes.executorch import patches  # noqa: E402
from memplan.runtimes.executorch.program import Planner, identical, lower, run  # noqa: E402


def _export(model: nn.Module, size: int = 32):
    torch.manual_seed(0)
    for p in model.parameters():  # away from 0, so that a wrong sum shows
        nn.init.uniform_(p, -1, 1)
    return torch.export.export(model.eval(), (torch.randn(1, 3, size, size),))


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, 1, 1)
        self.b = nn.Conv2d(8, 8, 3, 1, 1, groups=8)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.a(x))
        y = nn.functional.relu6(self.bn(self.b(y))) + y  # a branch inside the stage
        y = self.pool(y)
        return self.head(y.mean((2, 3)))


def _cnn3():
    return nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 16, 5, 1, 2),
                         nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1, dilation=1), nn.Hardswish(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4))


def _same_outputs(original, rewritten) -> bool:
    inputs = [torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(1))]
    a = run(lower(original, Planner.GREEDY).program, inputs)
    b = run(lower(rewritten, Planner.GREEDY).program, inputs)
    return identical(a, b)


@pytest.mark.parametrize(("build", "split_after", "grid"), [
    (Residual, 6, 3),  # conv, relu, dw conv, bn, relu6 (hardtanh), add, max pool
    (_cnn3, 4, 2),  # strides and a 5x5 kernel: uneven halos at the border
    (_cnn3, 4, (3, 1)),  # rows only: one cat, halos on the height alone
    (Residual, 6, (2, 3)),
])
def test_a_forced_split_runs_with_the_same_bytes(build, split_after, grid):
    exported = _export(build())
    done = patches.rewrite_at(exported, split_after, grid)
    targets = {str(n.target) for n in done.model.graph.nodes}
    assert {"aten.slice.Tensor", "aten.constant_pad_nd.default", "aten.cat.default"} <= targets
    assert done.stage_macs_after > done.stage_macs_before  # halos computed twice
    assert _same_outputs(exported, done.model)


def test_the_search_lowers_the_bound_within_the_budget():
    exported = _export(_cnn3(), 64)
    done = patches.rewrite_patches(exported, max_recompute=0.2)
    assert done.model is not None, done.reason
    assert done.lower_bound_after < done.lower_bound_before
    assert 0 < done.recompute <= 0.2
    before = lower(exported, Planner.GREEDY).bound()
    after = lower(done.model, Planner.GREEDY).bound()
    assert after < before  # ExecuTorch's own schedule too, not only the search's model
    # Without recompute only the first convolution alone can be cut (its halo is read,
    # never computed twice), which leaves the bound where it was.
    none = patches.rewrite_patches(exported, max_recompute=0.0)
    assert none.model is None and "not below the original's" in none.reason


def test_a_stage_that_cannot_run_on_patches_is_refused():
    """An average pool that pads divides by a count the patch would change."""
    model = nn.Sequential(nn.AvgPool2d(3, 1, 1), nn.Conv2d(3, 4, 3), nn.Flatten())
    done = patches.rewrite_patches(_export(model, 16))
    assert done.model is None and "no prefix" in done.reason
    with pytest.raises(ValueError, match="not a stage"):
        patches.rewrite_at(_export(model, 16), 0, 2)


def test_patches_through_the_command(tmp_path, capsys):
    from memplan.cli import main
    from memplan.report.json_schema import plan_json_problems

    path, out = tmp_path / "cnn.pt2", tmp_path / "out.pte"
    torch.export.save(_export(_cnn3(), 64), path)
    assert main(["plan", str(path), "--rewrite", "patches", "-o", str(out), "--json",
                 "--check-run", "--time-limit", "0"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert plan_json_problems(document) == []
    (done,) = document["rewrites"]
    assert done["rewrite"] == "patches" and done["kept"], done
    assert 0 < done["mac_overhead"] <= 0.2
    (said,) = done["what"]
    assert said.startswith("call nodes 0-") and "at the image border) assembled into" in said, said
    assert document["arenas"][0]["lower_bound"] < document["original_lower_bound"]
    assert document["check"]["identical"] is True
    assert out.exists()


def test_the_command_folds_a_transposed_weight_that_sets_the_bound(tmp_path, capsys):
    """ExecuTorch's default lowering transposes a linear layer's weight at run time into a
    planned tensor; here it outweighs the activations, so without folding it the bound
    would not drop and the patches would not be kept."""
    from memplan.cli import main

    model = nn.Sequential(*list(_cnn3())[:-1], nn.Linear(16, 12000))  # 768,000 B weight
    path, out = tmp_path / "cnn.pt2", tmp_path / "out.pte"
    torch.export.save(_export(model, 64), path)
    assert main(["plan", str(path), "--rewrite", "patches", "-o", str(out), "--json",
                 "--check-run", "--time-limit", "0"]) == 0
    document = json.loads(capsys.readouterr().out)
    (done,) = document["rewrites"]
    assert done["kept"], done
    assert document["original_lower_bound"] < 768_000
    assert any("constant propagation" in n for n in document["notes"])
    assert document["check"]["identical"] is True


def test_a_patched_program_with_other_outputs_is_not_written(tmp_path, monkeypatch, capsys):
    """Padding with 1 instead of 0 changes the border outputs: the run must catch it."""
    from memplan.cli import main

    path, out = tmp_path / "cnn.pt2", tmp_path / "out.pte"
    torch.export.save(_export(_cnn3(), 64), path)
    pad = torch.ops.aten.constant_pad_nd.default
    real = patches._Builder.call

    def wrong(self, target, args, *rest):
        if target is pad:
            args = (*args[:2], 1.0)
        return real(self, target, args, *rest)

    monkeypatch.setattr(patches._Builder, "call", wrong)
    assert main(["plan", str(path), "--rewrite", "patches", "-o", str(out),
                 "--check-run", "--time-limit", "0", "--summary"]) == 1
    assert "different outputs" in capsys.readouterr().err
    assert not out.exists()


class _Branches(nn.Module):
    """Two branches, each a large intermediate reduced to a small result, written so that
    both large ones are live at once: an order that finishes one branch first halves it."""

    def __init__(self):
        super().__init__()
        self.a1, self.b1 = nn.Linear(16, 2048), nn.Linear(16, 2048)
        self.a2, self.b2 = nn.Linear(2048, 4), nn.Linear(2048, 4)

    def forward(self, x):
        ta, tb = torch.tanh(self.a1(x)), torch.tanh(self.b1(x))
        return torch.cat([self.a2(ta), self.b2(tb)], 1)


def test_reorder_lowers_the_bound_with_the_same_bytes(tmp_path, capsys):
    from memplan.cli import main
    from memplan.report.json_schema import plan_json_problems
    from memplan.runtimes.executorch.reorder import better_order

    torch.manual_seed(0)
    exported = torch.export.export(_Branches().eval(), (torch.randn(1, 16),))
    found = better_order(exported)
    assert not isinstance(found, str), found
    _, before, after, moved = found
    assert after < before and moved > 0
    path, out = tmp_path / "branches.pt2", tmp_path / "out.pte"
    torch.export.save(exported, path)
    assert main(["plan", str(path), "--rewrite", "reorder", "-o", str(out), "--json",
                 "--check-run", "--time-limit", "0"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert plan_json_problems(document) == []
    (done,) = document["rewrites"]
    assert done["rewrite"] == "reorder" and done["kept"] and done["mac_overhead"] == 0.0
    assert document["arenas"][0]["lower_bound"] < document["original_lower_bound"]
    assert document["check"]["identical"] is True


def test_the_stage_input_is_released_in_parts_with_the_same_bytes():
    """The input image, read band by band by the patches' slices, gives its bands back
    as they are done: a lower bound, and the program still runs with the same bytes."""
    from memplan.runtimes.executorch.front_end import memplan_planner

    original = _export(_cnn3(), 32)
    done = patches.rewrite_at(original, 4, (4, 1))
    planner = memplan_planner(time_limit=None)
    whole = lower(done.model, Planner.MEMPLAN, arena_planner=planner)
    parts = lower(done.model, Planner.MEMPLAN, arena_planner=planner, parts=True)
    assert (whole.released, parts.released) == (0, 1)
    assert parts.arenas[0].lower_bound < whole.arenas[0].lower_bound
    inputs = [torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(1))]
    assert identical(run(lower(original, Planner.GREEDY).program, inputs),
                     run(parts.program, inputs))


def test_an_in_place_output_released_in_parts_keeps_its_input_s_bytes_with_the_same_bytes():
    """Patches, in-place outputs and parts together (`--rewrite all` on MobileNetV2 1.0,
    issue 34): each patch's relu is written over its convolution's output and then read
    through slices (the residual add's crop), so it is released in parts. Its bytes are
    the convolution's from the convolution's first step; a plan that reserved them from
    the relu's only put another patch tensor over the live convolution output, which the
    lowering's own check refused."""
    from memplan.runtimes.executorch.front_end import memplan_planner

    original = _export(Residual(), 32)
    done = patches.rewrite_at(original, 6, 2)
    lowered = lower(done.model, Planner.MEMPLAN, arena_planner=memplan_planner(time_limit=None),
                    in_place=True, parts=True)
    assert lowered.released and any(d.kernel == "relu.out" for d in lowered.in_place)
    inputs = [torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(1))]
    assert identical(run(lower(original, Planner.GREEDY).program, inputs),
                     run(lowered.program, inputs))


def test_the_search_counts_in_place_outputs_and_the_input_s_bands_as_the_lowering_plans():
    """The grid search weighs each candidate as the driver plans it: with `--rewrite
    inplace` asked, a relu over its convolution's dying output costs no bytes of its own;
    the stage input read by row slices lives band by band (`parts.py`). Counting either
    whole made the search pass over the candidates the lowered program does best with."""
    from memplan.runtimes.executorch.front_end import memplan_planner

    original = _export(_cnn3(), 32)
    planner = memplan_planner(time_limit=None)
    # The second convolution's 16 x 16 x 16 float32 output and its relu's: apart, or the
    # relu over it, where the peak is that convolution's input (8 x 16 x 16) and output.
    assert patches.rewrite_at(original, 4, 2).lower_bound_before == 2 * 16384
    in_place = patches.rewrite_at(original, 4, (4, 1), in_place=True)
    assert in_place.lower_bound_before == 8192 + 16384 == lower(
        original, Planner.MEMPLAN, arena_planner=planner, in_place=True).arenas[0].lower_bound
    lowered = lower(in_place.model, Planner.MEMPLAN, arena_planner=planner, in_place=True,
                    parts=True)
    assert lowered.released == 1  # the input, in bands
    # Up to the lowering's 16-byte alignment of each tensor, no more: the input whole
    # (12,288 B) would count a band of it again.
    assert lowered.arenas[0].lower_bound - 16 < in_place.lower_bound_after <= \
        lowered.arenas[0].lower_bound
