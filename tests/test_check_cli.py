"""`memplan check`: census table, compiler-style diagnostics, exit codes, JSON."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from memplan.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_in_loop_and_unbounded_allocations_are_reported(capsys, data):
    path = data / "loop_alloca_memref.mlir"
    code, out, err = run(capsys, "check", path, "--target", "x86_64")
    assert code == 1
    # MLIR's tools' convention: tables on stdout, diagnostics on stderr at the line's start.
    assert f"\n{path}:13:12: error: stack allocation of memref<8x?xi32> (at most 1024 " \
           "bytes) inside a loop" in "\n" + err
    assert f"{path}:11:3: note: inside this loop" in err
    assert f"{path}:59:12: warning: heap allocation" in err
    assert "argument %n of @loop_invariant_dynamic_alloc, which has no upper bound" in err
    assert "1 error(s), 3 warning(s)" in out and "error:" not in out


def test_frame_limit_comes_from_the_target(capsys, data, small_stack_target):
    path = data / "entry_alloca.mlir"
    code, out, _ = run(capsys, "check", path, "--target", "x86_64")
    assert code == 0
    assert "stack frame @entry_alloca: 1040 of 32768 bytes (2 allocations packed" in out
    code, _, err = run(capsys, "check", path, "--target", small_stack_target)
    assert code == 1
    assert f"{path}:6:10: error: stack frame of @entry_alloca needs 1040 bytes" in err
    assert f"{path}:6:10: note: memref<8x32xi32> contributes 1024 bytes" in err


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
    # No `memplan: ` before FILE:LINE:COL, which editors and CI matchers look for first.
    assert err.startswith(f"{bad}:3:") and ": error: " in err
    assert len(err.strip().splitlines()) == 1


def test_unknown_target_and_bad_assumption(capsys, data):
    code, _, err = run(capsys, "check", data / "entry_alloca.mlir", "--target", "nope")
    assert code == 2 and "unknown target 'nope'" in err
    code, _, err = run(capsys, "check", data / "entry_alloca.mlir", "--target", "x86_64",
                       "--assume", "n<")
    assert code == 2 and "--assume" in err and len(err.strip().splitlines()) == 1


def test_opt_then_check_reports_no_error_and_the_frame(capsys, data, tmp_path,
                                                        small_stack_target):
    out = tmp_path / "out.mlir"
    code, stdout, err = run(capsys, "opt", data / "loop_alloca_memref.mlir", "--target", "x86_64",
                            "-o", out)
    assert code == 0 and stdout == ""
    assert f"{data / 'loop_alloca_memref.mlir'}:13:12: remark: stack allocation of " \
           "memref<8x?xi32> bound to memref<8x32xi32> (1024 bytes)" in err
    assert "stack frame @loop_dynamic_alloca: 1024 of 32768 bytes" in err
    code, report, _ = run(capsys, "check", out, "--target", "x86_64")
    assert code == 0 and "0 error(s), 0 warning(s)" in report
    assert "stack frame @loop_dynamic_alloca: 1024 of 32768 bytes (1 allocation packed" in report
    code, _, diags = run(capsys, "check", out, "--target", small_stack_target)
    assert code == 1
    assert "error: stack frame of @loop_dynamic_alloca needs 1024 bytes" in diags
    assert "note: memref<8x32xi32> contributes 1024 bytes" in diags


def test_opt_refuses_the_unbounded_variant_and_prints_it_unchanged(capsys, tmp_path):
    code, stdout, err = run(capsys, "opt", "examples/loop_alloca_unbounded.mlir",
                            "--target", "x86_64")
    assert code == 1
    assert "loop_alloca_unbounded.mlir:13:12: error: stack allocation of memref<8x?xi32> is " \
           "not hoisted: its size changes in the `scf.for` at line 11 and has no proven " \
           "bound" in err
    assert "      %alloca = memref.alloca(%0) : memref<8x?xi32>" in stdout  # still in the loop


def test_opt_never_overwrites_its_input(capsys, data, tmp_path):
    path = tmp_path / "in.mlir"
    path.write_text((data / "entry_alloca.mlir").read_text())
    code, _, err = run(capsys, "opt", path, "--target", "x86_64", "-o", path)
    assert code == 2 and "refusing to overwrite the input file" in err


def test_opt_check_run_compares_before_and_after_under_iree(capsys, tmp_path):
    code, _, err = run(capsys, "opt", "examples/loop_alloca.mlir", "--target", "x86_64",
                       "-o", tmp_path / "out.mlir", "--check-run", "--run-arg", "n=40")
    assert code == 0
    for name in ("loop_dynamic_alloca", "loop_dynamic_alloc", "loop_invariant_dynamic_alloc",
                 "loop_static_alloc"):
        assert f"execution check: @{name}: identical results before and after" in err


def test_per_allocation_limit_and_a_target_without_stack(capsys, data, tmp_path):
    limited = tmp_path / "limited.toml"
    limited.write_text('name = "limited"\ndevices = ["cpu"]\n[stack]\nmax_frame = 4096\n'
                       'max_allocation = 256\n')
    code, _, err = run(capsys, "check", data / "entry_alloca.mlir", "--target", limited)
    assert code == 1
    assert ":6:10: error: stack allocation of memref<8x32xi32> (1024 bytes) exceeds the " \
           "per-allocation limit of 256 bytes of target 'limited'" in err
    assert ":7:12: error" not in err  # the 16-byte buffer is within the limit
    stackless = tmp_path / "npu.toml"
    stackless.write_text('name = "npu"\ndevices = ["npu"]\n')
    code, _, err = run(capsys, "check", data / "entry_alloca.mlir", "--target", stackless)
    assert code == 1 and err.count("which has no addressable stack") == 2


def test_opt_keeps_input_locations_on_request(capsys, data):
    code, out, _ = run(capsys, "opt", data / "loop_alloca_memref.mlir", "--target", "x86_64",
                       "--keep-locations")
    assert code == 0
    alias = out.split("%alloca = memref.alloca() : memref<8x32xi32> loc(")[1].split(")")[0]
    assert f'{alias} = loc("{data / "loop_alloca_memref.mlir"}":13:12)' in out


def test_tensor_allocation_in_a_loop_is_a_warning(capsys, data):
    code, _, err = run(capsys, "check", data / "alloc_tensor_loop.mlir", "--target", "x86_64")
    assert code == 0
    assert ":8:12: warning: tensor allocation tensor<8x?xi32> (at most 1024 bytes) inside a " \
           "loop bufferizes to one allocation per iteration" in err


def test_an_alloca_scope_inside_the_loop_frees_each_iteration(capsys, tmp_path):
    path = tmp_path / "scoped.mlir"
    path.write_text("""func.func @f(%out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.alloca_scope {
      %buf = memref.alloca() : memref<64xi32>
      %v = memref.load %buf[%i] : memref<64xi32>
      memref.store %v, %out[%i] : memref<4xi32>
    }
  }
  return
}
""")
    code, out, _ = run(capsys, "check", path, "--target", "x86_64")
    assert code == 0 and "stack frame @f: 256 of 32768 bytes" in out


@pytest.mark.parametrize(("command", "source", "reader"), [
    ("pack", "examples/tiny_resnet.pt2", "plan"),
    ("check", "examples/tiny_resnet.pt2", "plan"),
    ("copies", "examples/attention_block.tflite", "plan"),
    ("opt", "tests/data/small_cnn.onnx", "plan"),
    ("place", "examples/tiny_resnet.pt2", "plan"),
    ("check", "examples/mobilenet_blocks.294912.csv", "pack"),
    ("pack", "examples/loop_alloca.mlir", "check"),
])
def test_a_file_of_another_kind_names_the_command_that_reads_it(capsys, command, source,
                                                                 reader):
    target = [] if command in ("pack", "copies") else ["--target", "x86_64"]
    code, out, err = run(capsys, command, REPO / source, *target)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()]  # one line
    assert err.strip().endswith(f"use `memplan {reader} {REPO / source}`"), err


def test_the_kind_is_told_by_the_bytes_when_the_suffix_says_nothing(capsys, tmp_path):
    csv = tmp_path / "buffers"
    csv.write_text((REPO / "examples" / "mobilenet_blocks.294912.csv").read_text())
    zipped = tmp_path / "model.bin"
    zipped.write_bytes((REPO / "examples" / "tiny_resnet.pt2").read_bytes()[:4096])
    mlir = tmp_path / "program.txt"
    mlir.write_text("// a comment first\nfunc.func @f() {\n  return\n}\n")
    for command, path, said in (("check", csv, "an id,lower,upper,size header"),
                                ("check", zipped, "a zip archive"),
                                ("pack", mlir, "its first line is MLIR")):
        target = ["--target", "x86_64"] if command == "check" else []
        code, _, err = run(capsys, command, path, *target)
        assert code == 2 and said in err, err
    # What is not told apart goes to the command's own reader, which says what it finds.
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    code, _, err = run(capsys, "pack", other)
    assert code == 2 and "use `memplan" not in err
