"""llvm.alloca, as kernels after the LLVM conversion have them: counted, sized, checked."""

from __future__ import annotations

import json
from pathlib import Path

from memplan.analysis.census import take_census
from memplan.cli import main
from memplan.ir import load_mlir


def test_census_sizes_llvm_allocas(data: Path) -> None:
    census = {}
    for chunk in load_mlir(data / "llvm_alloca.mlir"):
        for a in take_census(chunk):
            census.setdefault(a.function, []).append(a)
    kernel = census["kernel"]
    assert [(a.shape, a.element_type, a.exact_bytes) for a in kernel] == [
        ((1,), "!llvm.array<4 x f32>", 16), ((1,), "!llvm.array<4 x f32>", 16),
        ((8192,), "f32", 32768)]
    assert [a.alignment for a in kernel] == [64, 64, None]
    (dynamic,) = census["dynamic"]
    assert dynamic.bytes_or_bound is None and "argument %count" in dynamic.unbounded_reason
    (looped,) = census["in_block_loop"]  # llvm.cond_br back to its own block
    assert looped.scope_loop_depth == 1 and looped.exact_bytes == 64


def test_check_reports_them_and_opt_says_it_leaves_them(capsys, data: Path) -> None:
    code = main(["check", str(data / "llvm_alloca.mlir"), "--target", "x86_64", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    errors = sorted((d["code"], d["location"]["line"]) for d in report["diagnostics"]
                    if d["severity"] == "error")
    assert errors == [("stack-in-loop", 22), ("stack-unbounded", 14)]
    frame = next(f for f in report["stack_frames"] if f["function"] == "kernel")
    assert frame["bytes"] == 32768 and frame["limit"] == 32768
    in_loop = next(d for d in report["diagnostics"] if d["code"] == "stack-in-loop")
    assert in_loop["notes"][1]["message"] == "`memplan opt` does not rewrite it"
    code = main(["check", str(data / "llvm_alloca.mlir"), "--target", "cortex-m55"])
    err = capsys.readouterr().err
    assert code == 1 and "exceeds the per-allocation limit of 1024 bytes" in err
