"""memplan's TIR pipeline on a generated corpus (tests/tir_corpus.py), every preset that
names a TVM target: each module builds, and each frame read from the machine code is
within the preset's max_frame (buffers memplan cannot keep go to the workspace)."""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("tvm")

from tir_corpus import HEADER, Buf, CorpusModule, Func, corpus_module  # noqa: E402

from memplan.cli import main  # noqa: E402
from memplan.runtimes.tvm.built_frames import is_c  # noqa: E402
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
        # The buffers memplan keeps fit the frame less the reserve build found...
        assert plan.memplan_frame <= max_frame - built.reserve
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


@pytest.mark.parametrize("preset", ["cortex-m4", "cortex-m0plus"])
def test_check_reports_both_builds_of_the_corpus(tmp_path, capsys, preset):
    module = corpus_module(len(TIR_PRESETS))
    path = tmp_path / "corpus.py"
    path.write_text(module.text)
    code = main(["check", str(path), "--target", preset, "--json"])
    doc = json.loads(capsys.readouterr().out)
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
    out = capsys.readouterr().out
    assert code == 0
    assert "warning: frames not measured (arm-none-eabi-gcc " in out
    assert "arm-none-eabi-gcc failed on TVM's C: " in out
