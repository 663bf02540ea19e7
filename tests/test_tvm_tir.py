"""TVM seed 003: TIR stack policy per target (memplan check KERNELS.py, memplan's TIR
pipeline, frames read from the built assembly, outputs against TVM's own build)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tvm")

from memplan.cli import main  # noqa: E402
from memplan.runtimes.tvm.asm_frame import frame_of  # noqa: E402
from memplan.runtimes.tvm.run import compare_with_tvm  # noqa: E402
from memplan.runtimes.tvm.script import load_script  # noqa: E402
from memplan.runtimes.tvm.targets import tvm_target_of  # noqa: E402
from memplan.runtimes.tvm.tir_pipeline import build  # noqa: E402
from memplan.targets import load_target  # noqa: E402

# Three buffers, each under TVM's 1024-byte rule, 2960 bytes together (the seed's kernel).
THREE = (Path(__file__).resolve().parents[1] / "examples" / "tvm_kernels.py").read_text()


@pytest.fixture
def kernels(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(THREE)
    return path


def test_check_reports_tvm_frame_over_a_2k_target(kernels, capsys):
    code = main(["check", str(kernels), "--target", "cortex-m4"])
    out = capsys.readouterr().out
    assert code == 1
    assert "error: @three: TVM 0.27 keeps 2960 bytes of buffers on the stack" in out
    assert "over cortex-m4's 2048-byte frame" in out
    assert "keeps 1960 bytes on the stack and sends y to the workspace" in out


def test_check_same_module_fine_on_x86_64(kernels, capsys):
    code = main(["check", str(kernels), "--target", "x86_64", "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert '"errors": 0' in out and '"tvm": "stack"' in out


def test_pipeline_builds_within_budget_frame_from_assembly():
    import tvm

    mod = load_script("kernels.py", THREE)
    target = load_target("cortex-m4")
    built = build(mod, target)
    assert built.within_budget
    (frame,) = built.frames
    assert frame.frame is not None and frame.frame <= 2048
    # TVM's own build of the same module for the same Cortex-M4 is over it.
    tvm_target = tvm.target.Target(
        {"kind": "llvm", "mtriple": "thumbv7em-none-eabi", "mcpu": "cortex-m4",
         "mfloat-abi": "hard"})
    theirs = tvm.tirx.build(mod, target=tvm_target).inspect_source("asm")
    assert frame_of(theirs, "three") > 2048
    assert "TVMBackendAllocWorkspace" in built.asm and "TVMBackendAllocWorkspace" not in theirs


def test_outputs_equal_tvms_own_build():
    (result,) = compare_with_tvm(load_script("kernels.py", THREE), load_target("cortex-m4"))
    assert result.equal and result.bytes_compared == 2000


# Buffers declared in a loop body. TVM's own pipeline hoists them to the function body
# before LowerTVMBuiltin, so the workspace allocation memplan emits for `w` and its free
# pair up there, once per call.
LOOPED = '''# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def looped(A: T.Buffer((4, 250), "float32"), B: T.Buffer((4, 250), "float32")):
        T.func_attr({"tir.noalias": True})
        x = T.alloc_buffer((250,))
        for i in range(250):
            x[i] = A[0, i] * T.float32(2.0)
        for j in range(4):
            w = T.alloc_buffer((250,))
            v = T.alloc_buffer((240,))
            for i in range(250):
                w[i] = A[j, i] + x[i]
            for i in range(240):
                v[i] = w[i] * T.float32(3.0)
            for i in range(250):
                B[j, i] = w[i] - T.if_then_else(i < 240, v[T.min(i, 239)], T.float32(0.0))
'''


def test_buffer_in_a_loop_moved_to_workspace_runs_like_tvms_build():
    mod = load_script("looped.py", LOOPED)
    target = load_target("cortex-m4")
    (frame,) = build(mod, target).frames
    homes = {d.allocation.name: d.memplan.value for d in frame.plan.decisions}
    assert homes == {"x": "stack", "w": "workspace", "v": "stack"}
    assert frame.frame is not None and frame.frame <= 2048
    (result,) = compare_with_tvm(mod, target)
    assert result.equal


@pytest.mark.parametrize("body, reason", [
    ('T.func_attr({"a": __import__("os").system("true")})', "name '__import__' refused"),
    ('T.evaluate(open("x"))', "name 'open' refused"),
    ("T.evaluate(Tx.functools.reduce)", "Tx.functools.reduce refused"),
    ("T.evaluate(10 ** 10 ** 10)", "`**` with a right operand"),
])
def test_script_that_would_run_code_is_refused(tmp_path, capsys, body, reason):
    path = tmp_path / "evil.py"
    path.write_text("@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n        "
                    + body + "\n")
    code = main(["check", str(path), "--target", "cortex-m4"])
    err = capsys.readouterr().err
    assert code == 2
    assert reason in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def one_buffer(n: int) -> str:
    """A kernel with one float32 buffer of `n` elements (4n bytes), read backwards so no
    pass can fold it away."""
    return f'''# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def one(A: T.Buffer(({n},), "float32"), B: T.Buffer(({n},), "float32")):
        T.func_attr({{"tir.noalias": True}})
        x = T.alloc_buffer(({n},))
        for i in range({n}):
            x[i] = A[i] * T.float32(2.0)
        for i in range({n}):
            B[i] = x[{n - 1} - i] + T.float32(1.0)
'''


# A buffer of 1 KiB or more that memplan keeps on the stack (TVM would not) is annotated
# disable_lower_builtin; TVM 0.27 read the annotation with a downcast a Python int failed.
@pytest.mark.parametrize("preset, elements", [
    ("cortex-m4", 256), ("cortex-m7", 256), ("cortex-m33", 256), ("x86_64", 1024)])
def test_buffer_of_a_kibibyte_or_more_kept_on_the_stack_builds(preset, elements):
    import tvm

    from memplan.tvm import tir_pipeline

    mod = load_script("one.py", one_buffer(elements))
    target = load_target(preset)
    built = build(mod, target)
    (frame,) = built.frames
    (d,) = frame.plan.decisions
    assert (d.tvm.value, d.memplan.value) == ("workspace", "stack")
    # The buffer is in the frame the machine code reserves, and no workspace call is made.
    assert 4 * elements <= frame.frame <= target.stack.max_frame
    assert "TVMBackendAllocWorkspace" not in built.asm
    # The same pipeline by name, as a user's tvm.compile takes it.
    executable = tvm.compile(mod, tvm.target.Target(tvm_target_of(target)),
                             tir_pipeline=tir_pipeline(preset))
    assert "TVMBackendAllocWorkspace" not in executable.mod.inspect_source("asm")


def test_buffer_kept_past_tvms_rule_runs_like_tvms_build():
    (result,) = compare_with_tvm(load_script("one.py", one_buffer(256)),
                                 load_target("cortex-m4"))
    assert result.equal and result.bytes_compared == 2048
