"""TVM Relax arenas: memplan's arena in place of StaticPlanBlockMemory's storages, through
the one driver (`memplan plan ... --runtime tvm`) and as a pipeline for tvm.compile users."""

from __future__ import annotations

import json
import subprocess
import sys
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


# After the fused pipeline (FoldConstant, FuseOps): matmul+add+relu is one kernel and the
# second matmul+add+add writes the result, which TVM allocates outside the plan; live at
# it: relu's output (512 B) and the transposed w2 (2048 B).
MLP_FUSED_BOUND = 512 + 2048


def test_plan_relax_script_at_bound_and_runs_identically(mlp, tmp_path, capsys):
    out = tmp_path / "plan.json"
    code = main(["plan", str(mlp), "--runtime", "tvm", "-o", str(out), "--check-run", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert plan_json_problems(document) == []
    written = json.loads(out.read_text())
    assert written["pipeline"] == "fused"
    assert written["functions"]["main"]["size"] == MLP_FUSED_BOUND
    assert all(t["offset"] % 64 == 0 for t in written["functions"]["main"]["tensors"])
    assert document["check"]["identical"] is True
    assert "fused pipeline: ran @main" in document["check"]["runtime"]


def test_unfused_pipeline_on_request(mlp, tmp_path, capsys):
    out = tmp_path / "plan.json"
    code = main(["plan", str(mlp), "--relax-pipeline", "unfused", "-o", str(out), "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    written = json.loads(out.read_text())
    assert written["pipeline"] == "unfused"
    assert written["functions"]["main"]["size"] == MLP_BOUND > MLP_FUSED_BOUND
    assert any("unfused Relax pipeline" in n for n in document["notes"])


def test_arena_pipeline_for_tvm_compile_users(mlp):
    import numpy as np
    import tvm
    from tvm import relax

    import memplan.tvm
    from memplan.runtimes.tvm.relax_arena import (
        RelaxPipeline,
        arena_pass,
        passes_through_planning,
    )
    from memplan.runtimes.tvm.relax_import import load_relax

    mod = load_relax(str(mlp))
    arenas = []
    with tvm.target.Target("llvm"):
        planned = tvm.transform.Sequential([*passes_through_planning(RelaxPipeline.UNFUSED),
                                            arena_pass(arenas)])(mod)
    (arena,) = arenas
    assert arena.size == MLP_BOUND <= arena.memory.tvm_bytes
    text = planned["main"].script()
    # One storage (the arena) where StaticPlanBlockMemory made one per reused slot.
    assert text.count("R.memory.alloc_storage") == 1 and "memplan_arena" in text
    assert len(arena.memory.storages) > 1
    # Every tensor at a nonzero offset goes through ensure_zero_offset.
    nonzero = sum(1 for off in arena.offsets.values() if off)
    assert nonzero and text.count("ensure_zero_offset") == nonzero
    # The form the README gives builds and runs, as TVM's own fused build computes.
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal([int(d) for d in p.ty.shape.values]).astype("float32")
              for p in mod["main"].params]
    outputs = []
    for pipeline in (memplan.tvm.arena_pipeline(), relax.get_default_pipeline(
            tvm.target.Target("llvm"))):
        vm = relax.VirtualMachine(tvm.compile(mod, "llvm", relax_pipeline=pipeline), tvm.cpu())
        outputs.append(vm["main"](*[tvm.runtime.tensor(a) for a in inputs])[0].numpy())
    assert outputs[0].tobytes() == outputs[1].tobytes()


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
    unfused = ReadOptions(write=True, extra={"relax_pipeline": "unfused"})
    _, plan = plan_model(str(path), runtime="tvm", options=unfused)
    # Unfused, live at the matmul: the flattened activation (8x8x8 f32), the transposed
    # weight (512x10 f32) and the product (1x10 f32).
    assert plan.arenas[0].size == 2048 + 20480 + 40 < plan.runtime_total
    fe, plan = plan_model(str(path), runtime="tvm", options=ReadOptions(write=True))
    (arena,) = plan.arenas
    # Fused, FoldConstant makes the transposed weight a constant: live at the fused
    # conv2+relu+add are y and the sum (8x8x8 f32 each).
    assert arena.size == 2048 + 2048 == plan.runtime_total  # TVM's plan is at the bound too
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena == arena.size == check.original.arena


# Four Relax functions: a helper main calls, one whose allocations sit under an `if`, and
# one of symbolic batch `n`.
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
    def dyn(x: R.Tensor(("n", 16), dtype="float32"),
            w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor(("n", 16), dtype="float32"):
        with R.dataflow():
            lv = R.nn.relu(x)
            lv1 = R.matmul(lv, w, out_dtype="float32")
            lv2 = R.add(lv1, lv)
            R.output(lv2)
        return lv2

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"),
             w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((4, 16), dtype="float32") = R.nn.relu(x)
            lv1: R.Tensor((4, 16), dtype="float32") = R.matmul(lv, w, out_dtype="float32")
            lv2: R.Tensor((4, 16), dtype="float32") = R.add(lv1, lv)
            R.output(lv2)
        gv = cls.helper(lv2, w)
        return gv
'''


@pytest.fixture
def functions(tmp_path):
    path = tmp_path / "functions.py"
    path.write_text(FUNCTIONS)
    return path


def test_every_relax_function_run_symbolic_one_named(functions, capsys):
    code = main(["plan", str(functions), "--check-run", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert plan_json_problems(document) == []
    assert [a["name"] for a in document["arenas"]] == ["helper", "main"]
    assert any(n.startswith("@branchy keeps TVM's plan: allocations under control flow")
               for n in document["notes"])
    assert any(n.startswith("@dyn: TVM's storage") and "dynamic shape" in n
               for n in document["notes"])
    check = document["check"]
    assert check["identical"] is True
    assert "ran @branchy, @helper, @main" in check["runtime"]
    assert "skipped @dyn takes x of symbolic shape [n, 16] (pin it with --dim NAME=N)" \
        in check["runtime"]


def test_dim_pins_a_relax_symbolic_shape(functions, capsys):
    code = main(["plan", str(functions), "--dim", "n=8", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    dyn = next(a for a in document["arenas"] if a["name"] == "dyn")
    # relu's output (8x16 f32) lives across the fused matmul+add, which writes the result.
    assert dyn["memplan"] == dyn["lower_bound"] == 8 * 16 * 4
    assert "dimensions pinned: n=8" in document["notes"]
    capsys.readouterr()
    assert main(["plan", str(functions), "--dim", "batch=8"]) == 2
    assert "--dim batch: no Relax function's signature has a symbolic dimension of that " \
        "name (the module's: n)" in capsys.readouterr().err


# The failures the run check names by stage: an op TVM 0.27 has no CPU lowering for
# (its VM code generator refuses it), and one that builds but needs a Disco worker to run.
UNBUILDABLE = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        with R.dataflow():
            a = R.nn.relu(x)
            b = R.OP(a, x)
            c = R.add(b, a)
            d = R.matmul(c, R.permute_dims(c))
            R.output(d)
        return d
'''


@pytest.mark.parametrize("op, line", [
    ("ewise_fma(a, x, x)", "TVM's Relax VM cannot run this model: TVM build failed: TVM's "
     "own build: CodeGenVM cannot emit this Relax operator directly"),
    ("ccl.allreduce(a, \"sum\")", "TVM's Relax VM cannot run this model: TVM VM run failed: "
     "@main:"),
])
def test_failures_say_the_stage(tmp_path, capsys, op, line):
    path = tmp_path / "model.py"
    text = UNBUILDABLE.replace("OP(a, x)", op)
    if "allreduce" in op:
        text = text.replace("R.add(b, a)", "R.add(b, x)")
    path.write_text(text)
    assert main(["plan", str(path), "--check-run"]) == 2
    err = capsys.readouterr().err
    assert line in err and "internal error" not in err


def test_dim_specialises_a_pt2_for_tvm(tmp_path, capsys):
    import torch

    from memplan.runtimes.pt2 import load_exported, symbolic_dims

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(16, 32)
            self.fc2 = torch.nn.Linear(32, 16)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x))) + x

    torch.manual_seed(0)
    batch = torch.export.Dim("batch", min=1, max=64)
    path = tmp_path / "dyn.pt2"
    torch.export.save(torch.export.export(Net().eval(), (torch.randn(4, 16),),
                                          dynamic_shapes=({0: batch},)), path)
    (symbol,) = symbolic_dims(load_exported(path))
    code = main(["plan", str(path), "--runtime", "tvm", "--dim", f"{symbol}=8", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    (arena,) = document["arenas"]
    # fc1+relu fused: its output (8x32 f32) is the one tensor; fc2+add writes the result.
    assert arena["memplan"] == arena["lower_bound"] == 8 * 32 * 4
    # Left symbolic, StaticPlanBlockMemory sizes the storage at the exported bound of 64.
    assert main(["plan", str(path), "--runtime", "tvm", "--json"]) == 0
    (arena,) = json.loads(capsys.readouterr().out)["arenas"]
    assert arena["memplan"] == 64 * 32 * 4


# Two 4 GiB tensors TVM's FoldConstant would materialise in memplan's process (it reached
# 24 GB before the kernel was killed). N is the broadcast's length.
FOLDED_HUGE = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            a = R.broadcast_to(R.const(1.0, "float32"), R.shape([N]))
            b = R.add(a, a)
            c = R.add(x, x)
            R.output(c)
        return c
'''


def test_a_tensor_over_the_limit_is_refused_before_constant_folding(tmp_path):
    path = tmp_path / "huge.py"
    path.write_text(FOLDED_HUGE.replace("N", "2**30"))
    child = _plan_in_capped_child(path)
    assert child.returncode == 2, child.stderr
    assert child.stderr.strip() == (
        f"memplan: {path}:@main, binding a: R.Tensor((1073741824,), dtype=\"float32\") is "
        "4294967296 bytes, over the 2147483648 a tensor may have (limits.MAX_TENSOR_BYTES): "
        "TVM's constant folding would allocate it in memplan's process")


def test_what_folding_never_makes_over_the_limit_passes_the_bound(tmp_path):
    from memplan.runtimes.tvm.relax_import import load_relax

    at_limit = tmp_path / "at.py"
    at_limit.write_text(FOLDED_HUGE.replace("N", "2**29"))  # 2 GiB of float32
    assert "main" in [gv.name_hint for gv in load_relax(str(at_limit)).functions]
    # A 4 GiB input and its sum: computed from an input, so never folded.
    from_input = tmp_path / "input.py"
    from_input.write_text(FOLDED_HUGE.replace("N", "4").replace("(4,)", "(1073741824,)"))
    assert "main" in [gv.name_hint for gv in load_relax(str(from_input)).functions]
    symbolic = tmp_path / "sym.py"
    symbolic.write_text(FOLDED_HUGE.replace('x: R.Tensor((4,), dtype="float32")',
                                            'x: R.Tensor(("n",), dtype="float32")')
                        .replace('-> R.Tensor((4,), dtype="float32")',
                                 '-> R.Tensor(("n",), dtype="float32")')
                        .replace("[N]", "[n]"))
    assert "main" in [gv.name_hint for gv in load_relax(str(symbolic)).functions]
    # Pinning the dimension makes the shape static: the bound holds after --dim.
    with pytest.raises(InputError, match="@main, binding a: .* is 4294967296 bytes"):
        load_relax(str(symbolic), dims={"n": 2**30})


# A kernel R.call_tir runs on a constant: folding compiles and runs it in memplan's process,
# with the buffer it allocates. BODY is its body, flat or in a schedulable block.
FOLDED_KERNEL = '''\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def big(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
BODY

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        c = R.broadcast_to(R.const(1.0, "float32"), R.shape([4]))
        y = R.call_tir(cls.big, (c,), out_ty=R.Tensor((4,), dtype="float32"))
        z = R.add(x, y)
        w = R.multiply(z, z)
        return w
'''
_FLAT = '''\
        C = T.alloc_buffer((N,), "float32")
        for i in range(4):
            C[i] = A[i] + T.float32(1.0)
        for i in range(4):
            B[i] = C[i]'''
_BLOCK = '''\
        with T.sblock("root"):
            C = T.alloc_buffer((N,), "float32")
            for i in range(4):
                with T.sblock("c"):
                    vi = T.axis.spatial(4, i)
                    C[vi] = A[vi] + T.float32(1.0)
            for i in range(4):
                with T.sblock("b"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = C[vi]'''


@pytest.mark.parametrize("body", [_FLAT, _BLOCK], ids=["flat", "block"])
def test_a_kernel_folding_runs_may_not_allocate_over_the_limit(tmp_path, body):
    from memplan.runtimes.tvm.relax_import import load_relax

    path = tmp_path / "kernel.py"
    path.write_text(FOLDED_KERNEL.replace("BODY", body.replace("N", "2**30")))
    with pytest.raises(InputError, match=r"@main, binding y: kernel @big allocates C of "
                       r"4294967296 bytes, over the 2147483648"):
        load_relax(str(path))
    path.write_text(FOLDED_KERNEL.replace("BODY", body.replace("N", "16")))
    assert "big" in [gv.name_hint for gv in load_relax(str(path)).functions]


def _plan_in_capped_child(path: Path) -> subprocess.CompletedProcess:
    """`memplan plan PATH --runtime tvm` in a child with 9 GB of address space: a
    regression fails there, not in the test run."""
    import resource

    return subprocess.run(
        [sys.executable, "-m", "memplan", "plan", str(path), "--runtime", "tvm",
         "-o", str(path.with_suffix(".json"))],
        capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (9 * 10**9, 9 * 10**9)))


def test_a_kernel_that_faults_in_constant_folding_is_one_line(tmp_path):
    # Writes 4 floats 1 GiB apart into a 4-float buffer: memplan died of SIGSEGV (139)
    # while TVM folded it in memplan's own process.
    path = tmp_path / "fault.py"
    path.write_text(FOLDED_KERNEL.replace("@T.prim_func(s_tir=True)", "@T.prim_func").replace(
        "BODY", "        for i in range(4):\n            B[i * 268435456] = A[i]"))
    child = _plan_in_capped_child(path)
    assert child.returncode == 2, child.stderr
    assert child.stderr.strip() == (
        f"memplan: {path}: TVM's constant folding of the script's kernels died (SIGSEGV); "
        "limits: 600 s, 8 GiB of address space")


def test_a_sound_kernel_folded_first_in_a_child_still_plans(tmp_path, capsys):
    path = tmp_path / "kernel.py"
    path.write_text(FOLDED_KERNEL.replace("BODY", _FLAT.replace("N", "16")))
    out = tmp_path / "k.json"
    assert main(["plan", str(path), "--runtime", "tvm", "-o", str(out)]) == 0, \
        capsys.readouterr().err
    assert "main" in json.loads(out.read_text())["functions"]
