"""Constant destinations: splat -> fill, non-splat -> read-only input; checked by execution."""

from __future__ import annotations

import numpy as np
from tensor_helpers import DATA, EXAMPLES, chunk, ops_named, run_cli

from memplan.analysis.access import written_constants
from memplan.analysis.stream_counts import stream_counts
from memplan.ir import load_mlir, parse_mlir, source_loc
from memplan.report.diagnostics import format_diagnostic
from memplan.run.iree_exec import LoadedProgram, compile_to_stream, compile_to_vmfb
from memplan.run.state_compare import QUIET_FLAGS
from memplan.transforms import rewrite_constant_destinations


def quiet_program(text: str) -> LoadedProgram:
    return LoadedProgram(compile_to_vmfb(text, extra_flags=QUIET_FLAGS))


def rewritten(path):
    ch = load_mlir(path)[0]
    report = rewrite_constant_destinations(ch.module, ch.path)
    assert ch.module.operation.verify()
    assert written_constants(ch) == []  # no constant is a destination any more
    return ch, report


def test_reduce_into_nonsplat_constant_compiles_and_matches_numpy():
    ch, report = rewritten(EXAMPLES / "reduce_into_nonsplat_constant.mlir")
    assert [n.message for n in report.rewritten] == [
        "constant %cst as destination: now a read-only input; result in tensor.empty"]
    (generic,) = ops_named(ch.module, "linalg.generic")
    assert len(generic.inputs) == 2 and ops_named(ch.module, "linalg.index")
    assert str(source_loc(generic, ch.path)).endswith("reduce_into_nonsplat_constant.mlir:4:8")
    program = quiet_program(str(ch.module))  # IREE 3.13 refuses the input itself
    x = np.random.default_rng(0).integers(-1000, 1000, (4, 32)).astype(np.int32)
    (got,) = program.call("reduce_into_const", [x])
    np.testing.assert_array_equal(got, x.sum(axis=0) + np.arange(32, dtype=np.int32))


def test_constant_outs_has_no_constant_destination_and_no_constant_copy():
    ch, report = rewritten(EXAMPLES / "constant_outs.mlir")
    assert len(report.rewritten) == 4 and not report.refused
    fill = ops_named(ch.module, "linalg.fill")[0]
    assert source_loc(fill, ch.path).line == 4  # the constant it materialises
    unfoldable = ops_named(ch.module, "util.unfoldable_constant")
    assert [str(op.results[0].type) for op in unfoldable] == ["f32"]  # still opaque, now scalar
    stream = parse_mlir(compile_to_stream(str(ch.module), extra_flags=QUIET_FLAGS))
    assert all(c.constant_copied_bytes == 0 and c.copied_bytes == 0
               for c in stream_counts(stream))


def test_large_nonsplat_constant_is_no_longer_copied():
    path = EXAMPLES / "large_nonsplat_outs.mlir"
    before = stream_counts(parse_mlir(compile_to_stream(path.read_text(), extra_flags=QUIET_FLAGS)))
    ch, _ = rewritten(path)
    after = stream_counts(parse_mlir(compile_to_stream(str(ch.module), extra_flags=QUIET_FLAGS)))
    assert before[0].constant_copied_bytes == 4096
    assert after[0].constant_copied_bytes == 0 and after[0].copied_bytes == 0


NAMED_AND_SHARED = """
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>)
                     outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %m : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<2x2xf32>
  return %m, %s : tensor<2x2xf32>, tensor<2x2xf32>
}
"""


def test_named_op_is_generalized_and_other_readers_stay_correct():
    ch = chunk(NAMED_AND_SHARED)
    report = rewrite_constant_destinations(ch.module, ch.path)
    assert ch.module.operation.verify() and len(report.rewritten) == 1
    assert not ops_named(ch.module, "linalg.matmul")
    add = ops_named(ch.module, "linalg.generic")[-1]
    assert add.inputs[0] == ops_named(ch.module, "arith.constant")[0].results[0]  # still reads %c
    assert written_constants(ch) == []
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3), np.float32), rng.standard_normal((3, 2), np.float32)
    c = np.array([[1, 2], [3, 4]], np.float32)
    m, s = quiet_program(str(ch.module)).call("f", [a, b])
    np.testing.assert_allclose(m, c + a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, c + c + a @ b, rtol=1e-5, atol=1e-5)


INSERT_INTO_CONSTANT = """
func.func @f(%a: tensor<2xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = tensor.insert_slice %a into %c[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_insert_into_constant_is_refused_with_a_note():
    ch = chunk(INSERT_INTO_CONSTANT)
    before = str(ch.module)
    report = rewrite_constant_destinations(ch.module, ch.path)
    assert not report.changed and str(ch.module) == before
    assert format_diagnostic(report.refused[0]).startswith(
        "case.mlir:4:8: note: tensor.insert_slice inserts into constant %c")


def test_opt_writes_output_whole_and_leaves_input(tmp_path, capsys):
    source = EXAMPLES / "constant_outs.mlir"
    text = source.read_text()
    out = tmp_path / "out.mlir"
    code, stdout, err = run_cli(["opt", str(source), "--target", "x86_64", "-o", str(out)],
                                capsys)
    assert code == 0 and stdout == "" and err.count("remark:") == 4
    assert source.read_text() == text
    assert written_constants(load_mlir(out)[0]) == []
    code, _, err = run_cli(["opt", str(out), "--target", "x86_64", "-o", str(out)], capsys)
    assert code == 2 and "refusing to overwrite the input file" in err


def test_opt_output_file_holds_what_stdout_shows(tmp_path, capsys):
    """With -o the rewritten text is printed only once the run has succeeded: the same text."""
    source = EXAMPLES / "constant_outs.mlir"
    code, shown, _ = run_cli(["opt", str(source), "--target", "x86_64"], capsys)
    out = tmp_path / "out.mlir"
    assert run_cli(["opt", str(source), "--target", "x86_64", "-o", str(out)], capsys)[0] == 0
    assert code == 0 and "linalg.fill" in shown and out.read_text() == shown


def test_immutable_global_destination_becomes_a_read_only_input():
    ch, report = rewritten(DATA / "immutable_global_outs.mlir")
    assert report.rewritten[0].message.startswith("constant %bias as destination: now a "
                                                  "read-only input")
    a = np.random.default_rng(2).standard_normal((4, 8), np.float32)
    (got,) = quiet_program(str(ch.module)).call("f", [a])  # IREE refuses the input
    np.testing.assert_allclose(got, a.sum(axis=1) + [1, 2, 3, 4], rtol=1e-5, atol=1e-5)
