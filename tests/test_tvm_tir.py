"""TVM seed 003: TIR stack policy per target (memplan check KERNELS.py, memplan's TIR
pipeline, frames read from the built assembly, outputs against TVM's own build)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("tvm")

from memplan.cli import main  # noqa: E402
from memplan.runtimes.tvm.asm_frame import frame_of, prologue_frame, prologue_parts  # noqa: E402
from memplan.runtimes.tvm.built_frames import BuiltFrames  # noqa: E402
from memplan.runtimes.tvm.llvm_frames import parse_warnings, with_stack_warnings  # noqa: E402
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
    out, err = capsys.readouterr()
    assert code == 1
    # The tables on stdout, the diagnostics on stderr as MLIR's tools print them.
    assert "frames from the assembly TVM's LLVM emitted, cross-checked by LLVM's own " \
        "frame size" in out
    # The second source: LLVM's own count, the assembly's frame less its realignment.
    assert "frame TVM 0.27 3016 B (LLVM 3008 B + 8 B realignment), memplan 2024 B " \
        "(LLVM 2016 B + 8 B realignment)" in out
    assert "1 error(s), 0 warning(s) for target 'cortex-m4'" in out and "error:" not in out
    # 2960 B of buffers, 16 B of pushed registers, 8 B the 16-byte realignment may add.
    assert f"{kernels}:7:1: error: @three: TVM 0.27 builds a 3016-byte frame, over " \
        "cortex-m4's 2048-byte max_frame: 2960 bytes of it are the 3 buffer(s)" in err
    assert f"{kernels}:7:1: note: memplan's TIR pipeline builds a 2024-byte frame: it keeps " \
        "x (1000 B), z (960 B) on the stack and sends y to the workspace" in err


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
    assert "TVMBackendAllocWorkspace" in built.code and "TVMBackendAllocWorkspace" not in theirs


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
    ('T.func_attr({"a": __import__("os").system("true")})', "attribute 'system' refused"),
    ('T.func_attr({"a": __import__("os")})', "name '__import__' refused"),
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
    assert "TVMBackendAllocWorkspace" not in built.code
    # The same pipeline by name, as a user's tvm.compile takes it.
    executable = tvm.compile(mod, tvm.target.Target(tvm_target_of(target)),
                             tir_pipeline=tir_pipeline(preset))
    assert "TVMBackendAllocWorkspace" not in executable.mod.inspect_source("asm")


def test_buffer_kept_past_tvms_rule_runs_like_tvms_build():
    (result,) = compare_with_tvm(load_script("one.py", one_buffer(256)),
                                 load_target("cortex-m4"))
    assert result.equal and result.bytes_compared == 2048


# Two 1020-byte buffers: 2040 B, under a 2 KiB frame as buffers, over it as TVM builds it.
TWO = one_buffer(255).replace(
    "        x = T.alloc_buffer((255,))\n",
    "        x = T.alloc_buffer((255,))\n        y = T.alloc_buffer((255,))\n").replace(
    "            x[i] = A[i] * T.float32(2.0)\n",
    "            x[i] = A[i] * T.float32(2.0)\n            y[i] = A[i] + x[i]\n").replace(
    "B[i] = x[254 - i] + T.float32(1.0)", "B[i] = x[254 - i] + y[i]")


@pytest.mark.parametrize("preset", ["cortex-m4", "cortex-m33"])
def test_tvms_own_frame_over_2k_is_an_error_with_the_frame_memplan_builds(tmp_path, capsys,
                                                                          preset):
    path = tmp_path / "two.py"
    path.write_text(TWO)
    code = main(["check", str(path), "--target", preset, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["errors"] == 1
    (f,) = doc["functions"]
    assert f["tvm_frame"] == 2048 <= doc["max_frame"]  # the buffers alone fit
    assert f["tvm_built_frame"] > 2048  # the frame TVM's build has does not
    (diag,) = doc["diagnostics"]
    assert diag["code"] == "tvm-frame-over-budget"
    # The note states the frame memplan's build has and what it keeps: the build's own.
    built = build(load_script("two.py", TWO), load_target(preset))
    (frame,) = built.frames
    assert frame.frame == f["memplan_built_frame"] <= 2048
    kept = [d.allocation.name for d in frame.plan.decisions if d.memplan.value == "stack"]
    (note,) = diag["notes"]
    assert f"builds a {frame.frame}-byte frame: it keeps {kept[0]} (1020 B) on the stack" \
        in note["message"]
    assert f'tir_pipeline("{preset}", reserve={built.reserve})' in note["message"]
    assert [a["memplan"] for a in f["allocations"]].count("stack") == 1


def test_frames_of_a_four_function_module_are_read_per_function(tmp_path, capsys):
    funcs = [one_buffer(255), one_buffer(250), TWO.replace("def one(", "def pair(")]
    text = funcs[0] + "".join(t.split("class Module:\n", 1)[1].replace("def one(", f"def k{i}(")
                              for i, t in enumerate(funcs[1:] + [one_buffer(16)]))
    path = tmp_path / "four.py"
    path.write_text(text)
    code = main(["check", str(path), "--target", "cortex-m4", "--json"])
    doc = json.loads(capsys.readouterr().out)
    frames = {f["function"]: f["tvm_built_frame"] for f in doc["functions"]}
    assert len(frames) == 4 and all(v is not None for v in frames.values())
    assert frames["pair"] > 2048 and max(v for k, v in frames.items() if k != "pair") < 2048
    assert code == 1 and [d["message"].split(":")[0] for d in doc["diagnostics"]] == ["@pair"]


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None,
                    reason="Debian's gcc-arm-none-eabi is not installed (.ci/run installs it)")
@pytest.mark.parametrize("preset", ["cortex-m0plus", "cortex-m55"])
def test_c_presets_frames_from_the_c_compilers_stack_usage(tmp_path, capsys, preset):
    path = tmp_path / "kernels.py"
    path.write_text(THREE)
    code = main(["check", str(path), "--target", preset, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["frames_measured_by"].startswith("arm-none-eabi-gcc ")
    assert doc["frames_unmeasured"] is None
    (f,) = doc["functions"]
    # GCC's frame holds the 2960 B of buffers TVM keeps on the stack, and more.
    assert f["tvm_built_frame"] > 2960
    assert f["memplan_built_frame"] <= doc["max_frame"]
    assert code == (1 if f["tvm_built_frame"] > doc["max_frame"] else 0)
    # GCC's figure is the only one: no second source for C.
    assert doc["frames_cross_checked_by"] is None and f["tvm_llvm_frame"] is None


def test_cortex_m85_frames_come_from_llvms_machine_code(tmp_path, capsys):
    path = tmp_path / "kernels.py"
    path.write_text(THREE)
    code = main(["check", str(path), "--target", "cortex-m85", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["frames_measured_by"] == "the assembly TVM's LLVM emitted"
    (f,) = doc["functions"]
    assert f["tvm_built_frame"] - f["realignment"] == f["tvm_llvm_frame"] > 2960
    assert f["memplan_built_frame"] == f["memplan_llvm_frame"] <= doc["max_frame"] == 256
    assert code == 1


def test_a_c_preset_without_its_compiler_compares_buffers_and_says_so(tmp_path, capsys):
    if shutil.which("xtensa-esp32s3-elf-gcc"):
        pytest.skip("ESP-IDF's compiler is installed here: the frames are measured")
    path = tmp_path / "kernels.py"
    path.write_text(THREE)
    code = main(["check", str(path), "--target", "esp32-s3"])
    err = capsys.readouterr().err
    assert code == 1
    assert "warning: frames not measured (xtensa-esp32s3-elf-gcc -mlongcalls -O2 " \
        "-fstack-usage: xtensa-esp32s3-elf-gcc is not on PATH)" in err
    assert "error: @three: TVM 0.27 keeps 2960 bytes of buffers on the stack" in err


@pytest.mark.parametrize("argv, refused", [
    ('["/tmp/gcc"]', "must start with a C compiler's name on PATH"),
    ('["sh", "-c"]', "must start with a C compiler's name on PATH"),
    ('["gcc", "-B/tmp/evil"]', "'-B/tmp/evil' refused"),
    ('["gcc", "-fplugin=x.so"]', "'-fplugin=x.so' refused"),
])
def test_a_target_files_c_compiler_runs_no_other_program_or_option(tmp_path, capsys, argv,
                                                                      refused):
    board = tmp_path / "board.toml"
    board.write_text(f'name = "b"\ndevices = ["cpu"]\ntvm_target = "c"\nc_compiler = {argv}\n'
                     "[stack]\nmax_frame = 512\n")
    path = tmp_path / "kernels.py"
    path.write_text(THREE)
    code = main(["check", str(path), "--target", str(board)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert f"{board}:c_compiler: {refused}" in err


@pytest.mark.parametrize("lines, frame", [
    # TVM's Cortex-M4 prologue: 4 registers, 2992 B, a 16-byte realignment (up to 8 B more).
    (["push {r4, r5, r7, lr}", "add r7, sp, #8", "sub.w sp, sp, #2992", "mov r4, sp",
      "bfc r4, #0, #4", "mov sp, r4", "cmp r2, #2"], 3016),
    # A constant the prologue loads into a register, then subtracts.
    (["push.w {r4, r5, r6, r7, r8, lr}", "movw r6, #4100", "sub sp, r6", "cmp r2, #2"], 4124),
    (["push {r7, lr}", "movw r6, #4", "movt r6, #1", "sub sp, r6", "bx lr"], 8 + 65540),
    (["str r11, [sp, #-4]!", "vpush {d8-d9}", "sub sp, #8", "mov r0, r1"], 4 + 16 + 8),
    (["push {r4, lr}", "sub sp, r3", "bx lr"], None),  # a run-time amount: no bound
    # x86-64: five pushes; realignment to 64 under an rsp 16-aligned after push %rbp.
    (["pushq %r15", "pushq %r14", "pushq %r13", "pushq %r12", "pushq %rbx",
      "subq $680, %rsp", "cmpl $2, %edx"], 720),
    (["pushq %rbp", "movq %rsp, %rbp", "andq $-64, %rsp", "subq $128, %rsp",
      "cmpl $2, %edx"], 8 + 48 + 128),
])
def test_prologue_frame(lines, frame):
    assert prologue_frame(["\t" + line for line in lines]) == frame


def test_realignment_is_apart_from_what_llvm_counts():
    arm = ["push {r4, r5, r7, lr}", "add r7, sp, #8", "sub.w sp, sp, #2992", "mov r4, sp",
           "bfc r4, #0, #4", "mov sp, r4", "cmp r2, #2"]
    assert prologue_parts(["\t" + line for line in arm]) == (3008, 8)
    x86 = ["pushq %rbp", "movq %rsp, %rbp", "andq $-64, %rsp", "subq $128, %rsp", "cmpl $2, %edx"]
    assert prologue_parts(["\t" + line for line in x86]) == (136, 48)


LL = """define dllexport i32 @__tvm_ffi_k(ptr %self, ptr %args, i32 %n) #0 !dbg !5 {
define internal fastcc void @__tvm_set_raised_6(ptr %0) unnamed_addr #1 {
define weak dllexport i32 @__tvm_ffi_main(ptr %0, ptr %1) local_unnamed_addr {
attributes #0 = { "target-cpu"="cortex-m4" }
attributes #1 = { noinline }
"""


def test_llvm_is_asked_for_every_frame_and_its_warnings_read():
    text, covered = with_stack_warnings(LL)
    assert covered == {"__tvm_ffi_k", "__tvm_set_raised_6"}  # main names no group
    assert text.count('"warn-stack-size"="0"') == 2
    stderr = ("warning: IRModule.CodeGenLLVM:0:0: stack frame size (3008) exceeds limit (0) "
              "in function '__tvm_ffi_k'\nsome other line\n")
    # A covered function LLVM says nothing of has an empty frame; main has no figure.
    assert parse_warnings(stderr, covered) == {"__tvm_ffi_k": 3008, "__tvm_set_raised_6": 0}


def test_two_sources_that_differ_are_a_finding():
    frames = BuiltFrames({"k": 3016, "j": 40, "d": None}, "asm", "", llvm={
        "k": 3008, "j": 32, "d": 16}, realignment={"k": 8, "j": 0})
    assert frames.disagreements() == ["j"]  # d: no constant frame in the assembly
