"""Hostile CSV and TOML: one line naming the place, exit 2, bounded memory (issue 16)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from memplan.cli import main
from memplan.errors import InputError
from memplan.limits import MAX_TOTAL, MAX_VALUE, PACK_MAX_VALUE, read_int, shorten
from memplan.pack import read_problem
from memplan.pack.problem import Solution
from memplan.pack.validate import violations
from memplan.targets.load import parse_target

HEADER = "id,lower,upper,size\n"
REPO = Path(__file__).resolve().parents[1]

CSV_CASES = [
    (HEADER + "b,0,1," + "9" * 200_000 + "\n", "field larger than field limit", 2),
    (HEADER + "b,0,1,9223372036854775808\n", "size 9223372036854775808 is above", 2),
    (HEADER + "b,0,1," + "9" * 5000 + "\n", "too long for an integer", 2),
    (HEADER + f"b,0,1,{2**62 + 1}\n", f"size {2**62 + 1} is above memplan's limit 2**62", 2),
    (HEADER + "".join(f"b{i},0,1,{2**61}\n" for i in range(3)), "add up to more than 2**62", 3),
    ("id,lower,upper,size,offset\n" + f"a,0,4,{2**61},{2**61}\nb,5,6,1,\n",
     "highest fixed buffer's end plus", 3),
    (HEADER + f"b,0,{2**62 + 1},4\n", "above memplan's limit 2**62", 2),
    (HEADER + f"b,0,{2**64},4\n", "upper 18446744073709551616 is above", 2),
    (HEADER + "b,-1,4,4\n", "lower -1 is negative", 2),
    ("id,lower,upper,size,alignment\n" + f"b,0,4,4,{2**62 + 1}\n", "alignment", 2),
    ("id,lower,upper,size,offset\n" + f"b,0,4,4,{2**62 + 1}\n", "offset", 2),
    (HEADER + 'b,0,1,"4\nc,0,1,4\nd,0,1,4\n', "unmatched quote", 2),
    (HEADER + "\n\n\nb,0,1,4\nc,0,1,4,\n", "expected 4 fields, found 5", 6),
    (HEADER + "b,0,1,4\r\n\r\nc,0,1,4,\r\n", "expected 4 fields, found 5", 4),
    (HEADER + "b,0,1,4" + " " * 3_000_000 + "\n", "line longer than 1,048,576 characters", 2),
]


@pytest.mark.parametrize(("text", "reason", "line"), CSV_CASES)
def test_hostile_csv_is_one_line_naming_the_line(tmp_path, capsys, text, reason, line):
    path = tmp_path / "hostile.csv"
    path.write_text(text)
    out = tmp_path / "plan.csv"
    assert main(["pack", str(path), "--exact", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 300, err[:400]
    assert err.startswith(f"memplan: {path}:{line}: ")
    assert reason in err
    assert not out.exists()


def test_capacity_limits(tmp_path, capsys):
    path = tmp_path / ("a." + "9" * 200 + ".csv")
    path.write_text(HEADER + "b,0,1,4\n")
    assert main(["pack", str(path)]) == 2
    assert "capacity in the file name" in capsys.readouterr().err
    ok = tmp_path / "b.csv"
    ok.write_text(HEADER + "b,0,1,4\n")
    with pytest.raises(InputError, match=r"outside \[0, 2\*\*62\]"):
        read_problem(ok, capacity=PACK_MAX_VALUE + 1)
    assert read_problem(ok, capacity=PACK_MAX_VALUE).capacity == PACK_MAX_VALUE


def test_largest_accepted_values_pack(tmp_path, capsys):
    # Three buffers live together whose sizes and alignments add up to MAX_TOTAL
    # exactly: the peak is the largest any plan can have, yet fits an int64.
    size = MAX_TOTAL // 4
    path = tmp_path / "big.csv"
    path.write_text("id,lower,upper,size,alignment\n"
                    + f"b0,0,{PACK_MAX_VALUE},{size},{size}\n"
                    + f"b1,0,{PACK_MAX_VALUE},{size - 1},1\n"
                    + f"b2,{PACK_MAX_VALUE - 1},{PACK_MAX_VALUE},{size - 1},1\n")
    out = tmp_path / "plan.csv"
    for mode in ([], ["--exact"]):
        assert main(["pack", str(path), "--summary", *mode, "-o", str(out)]) == 0
        assert f"peak                {3 * size - 2}" in capsys.readouterr().out
        # The plan read back, every buffer pinned at its offset, is within the limits too.
        plan = read_problem(out)
        assert violations(read_problem(path), Solution(tuple(b.offset for b in plan.buffers))) == []


@pytest.mark.parametrize("mode", [[], ["--exact"]])
def test_capacities_past_2_40_pack_and_validate(tmp_path, mode):
    # Sizes around 2**48 under a capacity of 2**50: refused before item 4 of issue 35.
    capacity = 2**50
    rows = [(f"b{i}", i, i + 2 + i % 2, 2**48 - 4096 * (i * 37 % 11)) for i in range(40)]
    path = tmp_path / f"big.{capacity}.csv"
    path.write_text(HEADER + "".join(f"{b},{lo},{hi},{size}\n" for b, lo, hi, size in rows))
    out = tmp_path / "plan.csv"
    assert main(["pack", str(path), *mode, "-o", str(out)]) == 0
    problem = read_problem(path)
    assert problem.capacity == capacity
    plan = read_problem(out, capacity=capacity)
    offsets = Solution(tuple(b.offset for b in plan.buffers))
    assert violations(problem, offsets) == []


def test_blank_lines_cost_no_memory(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text(HEADER + "\n" * 300_000 + "b,0,1,4\n")
    tracemalloc.start()
    try:
        problem = read_problem(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(problem) == 1
    # Holding 300,000 empty rows took ~20 MB; streaming holds one read buffer.
    assert peak < 2_000_000, peak


def test_read_int_and_shorten():
    assert read_int(" 42 ") == 42
    with pytest.raises(ValueError, match="too long"):
        read_int("1" * 4301)
    assert shorten("a\nb" * 100).endswith("...'")
    assert "\n" not in shorten("a\nb")


TOML_CASES = [
    ("name = 'x'\ndevices = []\n", "devices", "at least one device"),
    ("name = 'x'\ndevices = ['cpu']\n[stack]\nmax_frame = " + "9" * 5000 + "\n", "", "integer"),
    ("name = 'x'\ndevices = ['cpu']\n[stack]\nmax_frame = 9223372036854775807\n",
     "stack.max_frame", "above memplan's limit"),
    ("name = 'x'\ndevices = ['cpu']\nx = " + "[" * 1200 + "]" * 1200 + "\n", "",
     "nested 1200 deep; memplan reads at most 100 levels"),
    ("name = 'x'\ndevices = ['cpu']\nx = " + "[" * 101 + "]" * 101 + "\n", "", "nested 101"),
    ("name = 'x'\ndevices = ['cpu']\nx = " + "{a=" * 1200 + "1" + "}" * 1200 + "\n", "",
     "nested"),
]


@pytest.mark.parametrize(("text", "place", "reason"), TOML_CASES)
def test_hostile_toml_is_one_line(tmp_path, capsys, text, place, reason):
    path = tmp_path / "t.toml"
    path.write_text(text)
    assert main(["targets", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 300, err[:400]
    assert err.startswith(f"memplan: {path}:{place}" if place else f"memplan: {path}: ")
    assert reason in err


def test_toml_sizes_at_the_limit_load():
    target = parse_target(f"name = 'x'\ndevices = ['cpu']\n[stack]\nmax_frame = {MAX_VALUE}\n",
                          "t.toml")
    assert target.stack is not None and target.stack.max_frame == MAX_VALUE


@pytest.mark.parametrize(("op", "dim", "size"), [
    ("memref.alloca", 2**62, 2**64),  # overflowed the greedy packer (found by the fuzz test)
    ("memref.alloc", 2**63 - 1, 4 * (2**63 - 1)),  # OverflowError before; check said 0 errors
])
def test_mlir_allocation_above_the_limit_is_one_line(tmp_path, capsys, op, dim, size):
    path = tmp_path / "big.mlir"
    path.write_text(f"func.func @f() {{\n  %a = {op}() : memref<{dim}xf32>\n  return\n}}\n")
    for command in ("check", "opt", "place"):
        assert main([command, str(path), "--target", "cortex-m55"]) == 2
        err = capsys.readouterr().err
        assert err == (f"memplan: {path}:2:8: {op} in @f needs {size} bytes, above memplan's "
                       "limit of 2**40 bytes\n")


def test_a_target_file_over_its_size_limit_is_refused_unread(tmp_path, capsys):
    from memplan.targets.load import MAX_TARGET_BYTES

    target = tmp_path / "t.toml"
    target.write_text('devices = ["cpu"]\nname = "' + "a" * MAX_TARGET_BYTES + '"\n')
    assert main(["targets", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"memplan: {target}: {target.stat().st_size:,} bytes; a target file holds "
                   f"at most {MAX_TARGET_BYTES:,}"]


def test_long_strings_cost_the_nesting_count_no_memory():
    # The string pattern once kept ~120 bytes of regex stack per character (2.4 GB for 20 MB).
    from memplan.ir.load import nesting_depth as mlir_depth
    from memplan.targets.load import nesting_depth as toml_depth

    text = '"' + "a" * 1_000_000 + '[[\\"' + '"'
    tracemalloc.start()
    assert toml_depth("x = " + text + "\n") == 0
    assert mlir_depth(text + " {") == 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20 * len(text)


def test_an_mlir_file_over_the_allocation_limit_is_refused_before_parsing(tmp_path, capsys,
                                                                          monkeypatch):
    from memplan.ir import load

    monkeypatch.setattr(load, "MAX_ALLOCATIONS", 3)
    path = tmp_path / "many.mlir"
    path.write_text("func.func @f() {\n" + "".join(
        f"  %a{i} = memref.alloca() : memref<4xf32>\n" for i in range(4)) + "  return\n}\n")
    assert main(["check", str(path), "--target", "x86_64"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"memplan: {path}: 4 allocation ops (memref.alloc, memref.alloca, "
        "bufferization.alloc_tensor); memplan reads at most 3 in one file"]


def test_model_dims_past_the_runtimes_integers_are_one_line(tmp_path, capsys):
    import flatbuffers
    import onnx
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    from memplan.runtimes.tflm.model import MAX_TENSOR_BYTES

    data = bytearray((REPO / "tests" / "data" / "tiny_cnn_int8.tflite").read_bytes())
    model = schema.ModelT.InitFromPackedBuf(data, 0)
    sg = model.subgraphs[0]
    sg.tensors[sg.inputs[0]].shape = [2, 2**30, 1, 1]  # int8: 2**31 bytes, one past int32
    builder = flatbuffers.Builder(len(data) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    tflite = tmp_path / "huge.tflite"
    tflite.write_bytes(bytes(builder.Output()))
    assert main(["plan", str(tflite), "-o", str(tmp_path / "out.tflite")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"memplan: {tflite}:subgraph 0 tensor ")
    assert line.endswith(f"takes 2,147,483,648 bytes; TFLM counts tensor bytes in 32-bit ints "
                         f"(at most {MAX_TENSOR_BYTES:,})")

    graph = onnx.load(str(REPO / "tests" / "data" / "small_cnn.onnx"))
    dims = graph.graph.input[0].type.tensor_type.shape.dim
    dims[0].dim_value = 2**62
    onnx_path = tmp_path / "huge.onnx"
    onnx.save(graph, str(onnx_path))
    assert main(["plan", str(onnx_path)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"memplan: {onnx_path}: tensor ")
    assert line.endswith("bytes; memplan plans at most 2**40")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.onnx", "huge.tflite"]


_TRANSPOSE = ("func.func @f(%a: memref<4x8xf32>, %b: memref<8x4xf32>) {{\n"
              "  linalg.transpose ins(%a : memref<4x8xf32>) outs(%b : memref<8x4xf32>) "
              "permutation = [{value}, 0]\n  return\n}}\n")


@pytest.mark.parametrize(("value", "reason"), [
    ("18446744073709551617", "an integer of 65 bits"),  # issue 31: SIGSEGV in the parser
    ("9223372036854775808", "an integer of 64 bits"),
    ("-9223372036854775809", "an integer of 64 bits"),
    ("0x1FFFFFFFFFFFFFFFF", "an integer of 65 bits"),
    ("7" * 140_000, "a number of 140,000 digits"),  # issue 31: 200 s in the parser
])
def test_mlir_integers_the_parser_cannot_hold_are_refused_before_it(tmp_path, capsys, value,
                                                                     reason):
    path = tmp_path / "wide.mlir"
    path.write_text(_TRANSPOSE.format(value=value))
    for argv in (["check", "--target", "cortex-m55"], ["opt", "--target", "cortex-m55"],
                 ["place", "--target", "cortex-m55"], ["plan", "--runtime", "iree"]):
        assert main([argv[0], str(path), *argv[1:]]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"{path}:2:88: error: {reason}")


def test_the_refused_integer_crashes_the_bare_parser(tmp_path):
    # Why the scan exists: without it, IREE's parser kills the process (no exception).
    import subprocess
    import sys

    path = tmp_path / "wide.mlir"
    path.write_text(_TRANSPOSE.format(value="18446744073709551617"))
    run = subprocess.run([sys.executable, "-c", "import sys\nfrom iree.compiler import ir\n"
                          "ir.Module.parse(open(sys.argv[1]).read(), ir.Context())", str(path)],
                         capture_output=True, timeout=120)
    assert run.returncode < 0


def test_numbers_in_range_in_strings_names_and_floats_are_read(tmp_path, capsys):
    from memplan.ir.load import check_numbers

    text = ("func.func @f() {\n"
            "  %c = arith.constant -9223372036854775808 : i64\n"
            "  %d = arith.constant 9223372036854775807 : i64\n"
            "  %e = arith.constant 0x7FC0000000000000 : f64\n"
            "  %g = arith.constant 1.18446744073709551617 : f64\n"
            '  %s = arith.constant dense<"0x0000000000000000000000000000000000000000"> : '
            "tensor<20xi8> // 18446744073709551617\n"
            "  return\n}\n")
    check_numbers("x.mlir", text.encode())
    path = tmp_path / "ok.mlir"
    path.write_text(text)
    assert main(["check", str(path), "--target", "cortex-m55"]) == 0


def test_an_mlir_file_over_the_op_limit_is_refused_before_parsing(tmp_path, capsys,
                                                                  monkeypatch):
    from memplan.ir import load

    monkeypatch.setattr(load, "MAX_OPS", 5)
    path = tmp_path / "many.mlir"
    path.write_text("func.func @f(%a: i32) {\n" + "".join(
        f"  %v{i} = arith.addi %a, %a : i32\n" for i in range(5)) + "  return\n}\n")
    assert main(["check", str(path), "--target", "x86_64"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"memplan: {path}: 7 op names; memplan reads at most 5 ops in one file"]
    assert load.count_op_names(b"%0 = hal.executable.variant 1.5 loc(\"a\":1:2)") == 2


def test_ops_written_without_their_dialect_are_counted(tmp_path, capsys, monkeypatch):
    from memplan.ir import load

    monkeypatch.setattr(load, "MAX_OPS", 5)
    path = tmp_path / "calls.mlir"
    path.write_text("func.func private @g()\nfunc.func @f() {\n"
                    + "  call @g() : () -> ()\n" * 4 + "  return\n}\n")
    assert main(["check", str(path), "--target", "x86_64"]) == 2
    assert "7 op names" in capsys.readouterr().err
    assert load.count_op_names(b"func.return\nfunc.call @g() : () -> ()") == 2


def test_an_mlir_file_over_the_byte_limit_is_refused_unread(tmp_path, capsys, monkeypatch):
    from memplan.ir import load

    monkeypatch.setattr(load, "MAX_MLIR_BYTES", 100)
    path = tmp_path / "big.mlir"
    path.write_text("func.func @f() {\n" + " " * 200 + "return\n}\n")
    assert main(["check", str(path), "--target", "x86_64"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"memplan: {path}: more than 100 bytes; memplan reads MLIR files of at most that"]


def test_a_target_file_without_a_size_is_read_up_to_the_limit(capsys):
    # Issue 31 fuzzing of options: `--target /dev/zero` was read forever (stat says 0).
    from memplan.targets.load import MAX_TARGET_BYTES

    assert main(["targets", "/dev/zero"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"memplan: /dev/zero: more than {MAX_TARGET_BYTES:,} bytes; a target file holds at "
        "most that"]
