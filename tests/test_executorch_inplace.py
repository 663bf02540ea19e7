"""In-place operators under ExecuTorch (issue 34): each kernel kind of
`runtimes/executorch/inplace.py` lowered with its output at its input's offset, run by
executorch.runtime and compared byte for byte with ExecuTorch's own plan."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")

from torch import nn  # noqa: E402

from memplan.runtimes.executorch.front_end import memplan_planner  # noqa: E402
from memplan.runtimes.executorch.inplace import KINDS  # noqa: E402
from memplan.runtimes.executorch.program import Planner, identical, lower, run  # noqa: E402


class EveryKind(nn.Module):
    """One chain through every kind, each reading a tensor that dies there."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(3, 4, 3, 1, 1) for _ in range(4))
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        a, b, c, d = (conv(x) for conv in self.convs)
        y = torch.relu(self.bn(a))
        y = nn.functional.hardtanh(y, -0.5, 2.0)
        y = torch.clamp(y, -0.25, 1.5)
        y = nn.functional.gelu(torch.sigmoid(torch.tanh(y)))
        y = (y + b) * c
        return y - d


class Refused(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, 1, 1)

    def forward(self, x):
        a = self.conv(x)
        kept = torch.relu(a)  # `a` is read again below: not over it
        scale = a.mean((2, 3), keepdim=True)
        return kept * scale + a  # the mul broadcasts `scale`: not in place


def _export(model: nn.Module, size: int = 8):
    torch.manual_seed(0)
    for p in model.parameters():
        nn.init.uniform_(p, -1, 1)
    if isinstance(model, EveryKind):  # batch norm's statistics away from 0 and 1 too
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    return torch.export.export(model.eval(), (torch.randn(1, 3, size, size),))


def test_each_kind_runs_in_place_with_the_same_bytes():
    exported = _export(EveryKind())
    done = lower(exported, Planner.MEMPLAN, arena_planner=memplan_planner(time_limit=None),
                 in_place=True)
    assert {d.kernel for d in done.in_place} == set(KINDS)
    for d in done.in_place:
        assert (d.output.mem_id, d.output.mem_offset) == (d.input.mem_id, d.input.mem_offset)
    own = lower(exported, Planner.GREEDY)
    inputs = [torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(1))]
    assert identical(run(own.program, inputs), run(done.program, inputs))


def test_a_broadcast_and_a_live_input_are_refused():
    exported = _export(Refused())
    done = lower(exported, Planner.MEMPLAN, arena_planner=memplan_planner(time_limit=None),
                 in_place=True)
    kinds = [d.kernel for d in done.in_place]
    assert "relu.out" not in kinds and "mul.out" not in kinds
    assert kinds == ["add.out"]  # the last add takes the mul's output, which dies there


def test_inplace_through_the_command(tmp_path, capsys):
    from memplan.cli import main
    from memplan.report.json_schema import plan_json_problems

    path, out = tmp_path / "kinds.pt2", tmp_path / "out.pte"
    torch.export.save(_export(EveryKind()), path)
    assert main(["plan", str(path), "--rewrite", "inplace", "-o", str(out), "--json",
                 "--check-run", "--time-limit", "0"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert plan_json_problems(document) == []
    (done,) = document["rewrites"]
    assert done["rewrite"] == "inplace" and done["kept"], done
    assert len(done["what"]) == len(KINDS) and done["mac_overhead"] == 0.0
    assert document["arenas"][0]["lower_bound"] < document["original_lower_bound"]
    assert document["check"]["identical"] is True
    assert out.exists()


def test_an_unsafe_in_place_output_is_caught_by_the_run_and_not_written(tmp_path, monkeypatch,
                                                                        capsys):
    """A 3x3 convolution reads the neighbours of each output element: written over its
    input, it changes the result. Forced in place, --check-run must refuse it."""
    from memplan.cli import main
    from memplan.runtimes.executorch import inplace

    model = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1), nn.ReLU(), nn.Conv2d(4, 4, 3, 1, 1))
    path, out = tmp_path / "conv.pt2", tmp_path / "out.pte"
    torch.export.save(_export(model), path)
    monkeypatch.setitem(inplace.KINDS, "convolution.out", (0,))
    assert main(["plan", str(path), "--rewrite", "inplace", "-o", str(out),
                 "--check-run", "--time-limit", "0", "--summary"]) == 1
    assert "different outputs" in capsys.readouterr().err
    assert not out.exists()
