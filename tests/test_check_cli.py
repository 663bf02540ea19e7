"""`memplan check`: census table, compiler-style diagnostics, exit codes, JSON."""

from __future__ import annotations

import json

from memplan.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_in_loop_and_unbounded_allocations_are_reported(capsys, data):
    path = data / "loop_alloca_memref.mlir"
    code, out, _ = run(capsys, "check", path, "--target", "x86_64")
    assert code == 1
    assert f"{path}:13:12: error: stack allocation of memref<8x?xi32> (at most 1024 bytes) " \
           "inside a loop" in out
    assert f"{path}:11:3: note: inside this loop" in out
    assert f"{path}:59:12: warning: heap allocation" in out
    assert "argument %n of @loop_invariant_dynamic_alloc, which has no upper bound" in out
    assert "1 error(s), 3 warning(s)" in out


def test_frame_limit_comes_from_the_target(capsys, data, small_stack_target):
    path = data / "entry_alloca.mlir"
    code, out, _ = run(capsys, "check", path, "--target", "x86_64")
    assert code == 0 and "stack frame @entry_alloca: 1040 of 32768 bytes" in out
    code, out, _ = run(capsys, "check", path, "--target", small_stack_target)
    assert code == 1
    assert f"{path}:6:10: error: stack frame of @entry_alloca needs 1040 bytes" in out
    assert f"{path}:6:10: note: memref<8x32xi32> contributes 1024 bytes" in out


def test_json_output(capsys, data):
    code, out, _ = run(capsys, "check", data / "loop_alloca_memref.mlir", "--target", "x86_64",
                       "--json", "--assume", "n<=64")
    report = json.loads(out)
    assert code == 1 and report["errors"] == 1
    assert report["allocations"][2]["bound_bytes"] == 8 * 64 * 4
    assert report["diagnostics"][0]["code"] == "stack-in-loop"
    assert report["diagnostics"][0]["location"]["line"] == 13


def test_unparsable_mlir_is_one_line_with_its_place(capsys, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %x = arith.constant 1 : index\n  %y = foo.bar\n}\n")
    code, out, err = run(capsys, "check", bad, "--target", "x86_64")
    assert code == 2 and out == ""
    assert err.startswith(f"memplan: {bad}:3:") and len(err.strip().splitlines()) == 1


def test_unknown_target_and_bad_assumption(capsys, data):
    code, _, err = run(capsys, "check", data / "entry_alloca.mlir", "--target", "nope")
    assert code == 2 and "unknown target 'nope'" in err
    code, _, err = run(capsys, "check", data / "entry_alloca.mlir", "--target", "x86_64",
                       "--assume", "n<")
    assert code == 2 and "--assume" in err and len(err.strip().splitlines()) == 1
