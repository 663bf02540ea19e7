"""TVM Relax arenas: memplan's arena in place of StaticPlanBlockMemory's storages, through
the one driver (`memplan plan ... --runtime tvm`) and as a pipeline for tvm.compile users."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("tvm")

from memplan.cli import main  # noqa: E402
from memplan.errors import InputError  # noqa: E402
from memplan.report.json_schema import plan_json_problems  # noqa: E402

# A two-layer MLP as TVM's torch importer prints it (weights as inputs: no constants).
MLP = (Path(__file__).resolve().parents[1] / "examples" / "tvm_mlp.py").read_text()
# Live at the second matmul: relu's output (4x32 f32, 512 B), the transposed w2
# (32x16, 2048 B) and the product (4x16, 256 B).
MLP_BOUND = 512 + 2048 + 256


@pytest.fixture
def mlp(tmp_path):
    path = tmp_path / "mlp.py"
    path.write_text(MLP)
    return path


def test_plan_relax_script_at_bound_and_runs_identically(mlp, tmp_path, capsys):
    out = tmp_path / "plan.json"
    code = main(["plan", str(mlp), "--runtime", "tvm", "-o", str(out), "--check-run", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert plan_json_problems(document) == []
    written = json.loads(out.read_text())
    assert written["functions"]["main"]["size"] == MLP_BOUND
    assert all(t["offset"] % 64 == 0 for t in written["functions"]["main"]["tensors"])
    text = json.dumps(document)
    assert "outputs identical" in text or '"identical": true' in text


def test_arena_pipeline_for_tvm_compile_users(mlp):
    import tvm

    from memplan.runtimes.tvm.relax_arena import (
        arena_pass,
        arena_pipeline,
        passes_through_planning,
    )
    from memplan.runtimes.tvm.relax_import import load_relax

    mod = load_relax(str(mlp))
    arenas = []
    with tvm.target.Target("llvm"):
        planned = tvm.transform.Sequential([*passes_through_planning(), arena_pass(arenas)])(mod)
        arena_pipeline()(mod)  # the whole pipeline tvm.compile users pass builds too
    (arena,) = arenas
    assert arena.size == MLP_BOUND <= arena.memory.tvm_bytes
    text = planned["main"].script()
    # One storage (the arena) where StaticPlanBlockMemory made one per reused slot.
    assert text.count("R.memory.alloc_storage") == 1 and "memplan_arena" in text
    assert len(arena.memory.storages) > 1
    # Every tensor at a nonzero offset goes through ensure_zero_offset.
    nonzero = sum(1 for off in arena.offsets.values() if off)
    assert nonzero and text.count("ensure_zero_offset") == nonzero


def test_unsound_fixed_plan_is_refused(mlp):
    import tvm

    from memplan.runtimes.tvm.relax_arena import arena_pipeline
    from memplan.runtimes.tvm.relax_import import load_relax

    mod = load_relax(str(mlp))
    everything_at_zero = {"main": (4096, dict.fromkeys(range(7), 0))}  # lv .. lv6
    # Raised inside a TVM pass: TVM's FFI hands it back as a RuntimeError with our line.
    with tvm.target.Target("llvm"), pytest.raises((InputError, RuntimeError), match="unsound"):
        arena_pipeline(fixed=everything_at_zero)(mod)


def test_pt2_through_the_driver(tmp_path):
    import torch

    from memplan.plan.contract import ReadOptions
    from memplan.plan.driver import check_run, plan_model

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
            self.fc = torch.nn.Linear(8 * 8 * 8, 10)

        def forward(self, x):
            y = torch.relu(self.conv1(x))
            # The residual keeps y live across conv2: TVM's whole-storage reuse pays for it.
            return self.fc((torch.relu(self.conv2(y)) + y).flatten(1))

    torch.manual_seed(0)
    path = tmp_path / "net.pt2"
    torch.export.save(torch.export.export(Net().eval(), (torch.randn(1, 3, 8, 8),)), path)
    fe, plan = plan_model(str(path), runtime="tvm", options=ReadOptions(write=True))
    (arena,) = plan.arenas
    # Live at the matmul: the flattened activation (8x8x8 f32), the transposed weight
    # (512x10 f32) and the product (1x10 f32).
    assert arena.size == 2048 + 20480 + 40
    assert arena.size < plan.runtime_total
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena == arena.size < check.original.arena


# Three Relax functions: a helper main calls, and one whose allocations sit under an `if`.
FUNCTIONS = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4, 16), dtype="float32"),
               w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((16, 16), dtype="float32") = R.permute_dims(w, axes=[1, 0])
            lv1: R.Tensor((4, 16), dtype="float32") = R.matmul(x, lv, out_dtype="float32")
            lv2: R.Tensor((4, 16), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((4, 16), dtype="float32") = R.add(lv2, x)
            R.output(lv3)
        return lv3

    @R.function
    def branchy(x: R.Tensor((4, 16), dtype="float32"),
                c: R.Tensor((), dtype="bool")) -> R.Tensor((4, 16), dtype="float32"):
        if c:
            lv: R.Tensor((4, 16), dtype="float32") = R.nn.relu(x)
            lv1: R.Tensor((4, 16), dtype="float32") = R.add(lv, x)
            r: R.Tensor((4, 16), dtype="float32") = R.add(lv1, lv1)
        else:
            r: R.Tensor((4, 16), dtype="float32") = R.add(x, x)
        return r

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"),
             w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((4, 16), dtype="float32") = R.nn.relu(x)
            lv1: R.Tensor((4, 16), dtype="float32") = R.add(lv, x)
            lv2: R.Tensor((4, 16), dtype="float32") = R.multiply(lv1, lv)
            R.output(lv2)
        gv = cls.helper(lv2, w)
        return gv
'''


def test_every_relax_function_planned_control_flow_refused(tmp_path, capsys):
    path = tmp_path / "functions.py"
    path.write_text(FUNCTIONS)
    code = main(["plan", str(path), "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert plan_json_problems(document) == []
    assert [a["name"] for a in document["arenas"]] == ["helper", "main"]
    assert any(n.startswith("@branchy keeps TVM's plan: allocations under control flow")
               for n in document["notes"])
