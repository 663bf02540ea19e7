"""memplan's TIR pipeline on a generated corpus (tests/tir_corpus.py), every preset that
names a TVM target: each module builds, and each frame read from the machine code is
within the preset's max_frame (buffers memplan cannot keep go to the workspace)."""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("tvm")

from json_schema import load_schema, problems  # noqa: E402
from tir_corpus import HEADER, Buf, CorpusModule, Func, corpus_module, random_module  # noqa: E402

from memplan.cli import main  # noqa: E402
from memplan.runtimes.tvm.built_frames import is_c, read_frames  # noqa: E402
from memplan.runtimes.tvm.script import load_script  # noqa: E402
from memplan.runtimes.tvm.stack_policy import Home, align_up  # noqa: E402
from memplan.runtimes.tvm.targets import tvm_target_of  # noqa: E402
from memplan.runtimes.tvm.tir_pipeline import build  # noqa: E402
from memplan.targets import list_presets, load_target  # noqa: E402

TIR_PRESETS = [p for p in list_presets() if load_target(p).tvm_target]


def measurable(target) -> bool:  # noqa: ANN001 - a Target
    import tvm

    if not is_c(tvm.target.Target(tvm_target_of(target))):
        return True
    return shutil.which(target.c_compiler[0]) is not None


@pytest.mark.parametrize("seed, preset", list(enumerate(TIR_PRESETS)))
def test_corpus_builds_within_the_frame_on_every_preset(seed, preset):
    target = load_target(preset)
    module = corpus_module(seed)
    built = build(load_script(f"{module.name}.py", module.text), target)
    names = {f.name for f in module.funcs}
    assert names <= {f.function for f in built.frames}
    max_frame = target.stack.max_frame
    for frame in built.frames:
        plan = frame.plan
        # The buffers memplan keeps fit the frame less the reserve build found for it...
        assert plan.memplan_frame <= plan.budget == max_frame - dict(built.reserves)[
            frame.function]
        for d in plan.decisions:
            if d.allocation.size is None:  # a dynamic extent: the workspace, as in TVM
                assert d.memplan is Home.WORKSPACE
        # ...and the frame the machine code has is within max_frame.
        if measurable(target):
            assert built.unmeasured is None
            assert frame.frame is not None and frame.frame <= max_frame, frame
        else:
            assert f"{target.c_compiler[0]} is not on PATH" in built.unmeasured
        # A buffer TVM keeps on the stack moves to the workspace only when it does not fit.
        budget, limit = plan.budget, target.stack.max_allocation
        for d in plan.decisions:
            if d.tvm is Home.STACK and d.memplan is Home.WORKSPACE:
                size = align_up(d.allocation.size, plan.policy.alignment)
                assert plan.memplan_frame + size > budget or \
                    (limit is not None and d.allocation.size > limit), d


# One corpus module and one random one per LLVM preset (a different one each, so that
# prologues with and without realignment, helpers and several functions are all met).
@pytest.mark.parametrize("seed, preset", [(1, "cortex-m4"), (2, "cortex-m85"), (3, "x86_64")])
def test_the_assembly_and_llvms_own_count_agree_on_the_corpus(seed, preset):
    import tvm

    target = load_target(preset)
    tvm_target = tvm.target.Target(tvm_target_of(target))
    for name, mod in ((f"corpus_{seed}", load_script("c.py", corpus_module(seed).text)),
                      (f"random_{seed}", tvm.script.from_source(random_module(seed).text))):
        names = [gv.name_hint for gv in mod.functions]
        for lib in (tvm.tirx.build(mod, target=tvm_target), build(mod, target).module):
            read = read_frames(lib, tvm_target, target, names, cross_check=True)
            assert read.llvm_unread is None
            own = [n for n in names if n not in read.inlined]
            # Every function with code of its own has both figures...
            assert own and all(read.llvm[n] is not None for n in own), (name, read.llvm)
            constant = [n for n in own if read.frames[n] is not None]
            assert constant, name
            # ...and they agree: the assembly's frame is LLVM's plus what realignment adds.
            assert read.disagreements() == [], (name, preset, read.frames, read.llvm,
                                                read.realignment)


@pytest.mark.parametrize("preset", ["cortex-m4", "cortex-m0plus"])
def test_check_reports_both_builds_of_the_corpus(tmp_path, capsys, preset):
    module = corpus_module(len(TIR_PRESETS))
    path = tmp_path / "corpus.py"
    path.write_text(module.text)
    code = main(["check", str(path), "--target", preset, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert problems(doc, load_schema("check")) == []
    over = {f["function"] for f in doc["functions"] if f["tvm_built_frame"] is not None
            and f["tvm_built_frame"] > doc["max_frame"]}
    assert code == (1 if over else 0)
    errors = {d["message"].split(":")[0][1:] for d in doc["diagnostics"]
              if d["severity"] == "error"}
    assert errors == over
    for f in doc["functions"]:
        if f["function"] in {g.name for g in module.funcs}:
            assert f["memplan_built_frame"] <= doc["max_frame"]


def test_tvms_c_for_a_reversed_dynamic_buffer_does_not_compile_and_check_says_so(tmp_path,
                                                                                  capsys):
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("Debian's gcc-arm-none-eabi is not installed (.ci/run installs it)")
    module = CorpusModule("rev", (Func("rev", (Buf("x", "float32", 16),), dynamic=True),))
    text = module.text.replace("B[i] = A[i] + d[i]", "B[i] = A[i] + d[n - 1 - i]")
    assert text.startswith(HEADER) and "d[n - 1 - i]" in text
    path = tmp_path / "rev.py"
    path.write_text(text)
    code = main(["check", str(path), "--target", "cortex-m0plus"])
    err = capsys.readouterr().err
    assert code == 0
    assert "warning: frames not measured (arm-none-eabi-gcc " in err
    assert "arm-none-eabi-gcc failed on TVM's C: " in err


# A private helper a kernel calls: LLVM inlines it, so its buffers are in the caller's
# frame and it has no symbol of its own. TVM's own build of main holds both 1020-byte
# buffers (over 2 KiB); memplan's reserves main's non-buffer part, helper's buffer included.
CALLS = HEADER + """    @T.prim_func(private=True)
    def helper(a: T.handle("float32"), b: T.handle("float32")):
        A = T.decl_buffer((64,), "float32", data=a)
        B = T.decl_buffer((64,), "float32", data=b)
        h = T.alloc_buffer((255,), "float32")
        for i in range(255):
            h[i] = A[i % 64] * T.float32(3.0)
        for i in range(64):
            B[i] = B[i] + h[254 - i]

    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"tir.noalias": True})
        x = T.alloc_buffer((255,), "float32")
        for i in range(255):
            x[i] = A[i % 64] * T.float32(2.0)
        for i in range(64):
            B[i] = x[254 - i]
        Module.helper(A.data, B.data)
"""


def test_a_kernel_with_an_inlined_helper_builds_within_the_frame():
    import tvm

    target = load_target("cortex-m4")
    mod = tvm.script.from_source(CALLS)
    theirs = tvm.tirx.build(mod, target=tvm.target.Target(tvm_target_of(target)))
    from memplan.runtimes.tvm.asm_frame import frame_of, has_symbol

    asm = theirs.inspect_source("asm")
    assert not has_symbol(asm, "helper") and frame_of(asm, "main") > 2048
    built = build(mod, target)
    frames = {f.function: f for f in built.frames}
    assert frames["helper"].inlined and frames["helper"].frame is None
    assert not frames["main"].inlined and frames["main"].frame <= 2048
    assert built.within_budget


def test_a_helpers_buffers_stay_on_the_stack_where_the_frame_is_small():
    """A private helper returns nothing, so a workspace allocation there has no way to
    fail (LowerTVMBuiltin's check ends in `return -1`): on cortex-m85's 256 B frame memplan's
    build keeps the helper's 1020 B buffer on the stack, where it sent it to the workspace
    and LLVM refused the IR ("returns non-void in Function of void return type"). The
    frame is what the machine code has: here LLVM folds the inlined buffer away."""
    import tvm

    from memplan.runtimes.tvm.tir_pipeline import build_rounds

    built = build_rounds(tvm.script.from_source(CALLS), load_target("cortex-m85"))
    frames = {f.function: f for f in built.frames}
    assert [d.memplan for d in frames["helper"].plan.decisions] == [Home.STACK]
    assert [d.memplan for d in frames["main"].plan.decisions] == [Home.WORKSPACE]
    # Built (the old decision did not build at all), and the frame read from machine code.
    assert frames["helper"].inlined and frames["main"].frame is not None


# A seeded sample of tir_corpus.random_module (tests/tir_fuzz.py runs many more): blocks
# (s_tir), T.decl_buffer, loops in branches, unrolled/vectorized/parallel fills, dynamic
# extents, a helper a kernel calls; float16/int64/int8 buffers around 1024 and 2048 bytes.
@pytest.mark.parametrize("seed, preset", [(11, "cortex-m4"), (1, "cortex-m7"),
                                          (0, "cortex-m33")])
def test_random_modules_build_within_the_frame(seed, preset):
    import tvm

    target = load_target(preset)
    module = random_module(seed)
    built = build(tvm.script.from_source(module.text), target)
    assert {f.name for f in module.funcs} <= {f.function for f in built.frames}
    assert built.unmeasured is None and built.within_budget
    for frame in built.frames:
        assert frame.inlined or frame.frame <= target.stack.max_frame


def test_the_c_compiler_measuring_frames_is_capped(tmp_path, monkeypatch):
    from memplan.errors import InputError
    from memplan.runtimes.tvm import c_frame

    slow = tmp_path / "slow-gcc"
    slow.write_text("#!/bin/sh\nsleep 120 & wait\n")
    slow.chmod(0o755)
    monkeypatch.setattr(c_frame, "COMPILE_SECONDS", 1)
    with pytest.raises(InputError, match=r"^k.py: slow-gcc did not finish in 1 s$"):
        c_frame.c_frames("int f(void) { return 0; }", (str(slow), "-O2"), "k.py")


def test_check_names_the_inlined_helper_in_its_callers_frame(monkeypatch):
    import tvm

    from memplan.runtimes.tvm import frame_check

    # memplan's guard refuses `@T.prim_func(private=True)` (its decorator reads Python
    # source files, runtimes/tvm/script.py): the frames are what is checked here.
    monkeypatch.setattr(frame_check, "load_script", lambda _p, text: tvm.script.from_source(text))
    check = frame_check.check_tir("calls.py", CALLS, load_target("cortex-m4"))
    doc = check.to_json()
    assert problems(doc, load_schema("check")) == []
    functions = {f["function"]: f for f in doc["functions"]}
    assert functions["helper"]["inlined"] and functions["helper"]["tvm_built_frame"] is None
    assert functions["main"]["tvm_built_frame"] > 2048 >= functions["main"]["memplan_built_frame"]
    (error,) = [d for d in check.diagnostics if d.is_error]
    assert error.message.startswith("@main: TVM 0.27 builds a ")
    assert "the buffers of any of @helper (inlined into their callers) it calls" in error.message
    assert not [d for d in check.diagnostics if d.code == "tvm-frame-dynamic"]
    assert "@helper: inlined into its callers (no frame of its own)" in check.format()
