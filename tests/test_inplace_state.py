"""In-place state updates: the KV-cache append, its generalisations and its refusals."""

from __future__ import annotations

import pytest
from tensor_helpers import DATA, EXAMPLES, chunk, ops_named, run_cli

from memplan.ir import load_mlir, source_loc
from memplan.ir import tensor_ops as t
from memplan.ir.walk import defining_op, functions, walk
from memplan.runtimes.iree.state_compare import compare_steps
from memplan.transforms import rewrite_inplace_state


def test_kv_cache_append_becomes_insert_of_the_token():
    ch = load_mlir(EXAMPLES / "kv_cache_append.mlir")[0]
    report = rewrite_inplace_state(ch.module, ch.path)
    assert ch.module.operation.verify()
    assert [str(n.loc) for n in report.rewritten] == [f"{ch.path}:29:14"]
    fn = functions(ch.module)[0]
    assert not [op for op in walk(fn) if op.name == "tensor.concat"]
    insert = next(op.opview for op in walk(fn) if op.name == "tensor.insert_slice")
    assert str(insert.operation.operands[0].type) == "tensor<1x1x8x64xf32>"  # only the token
    offsets = t.mixed(insert, "offsets")
    assert defining_op(offsets[1]).name == "util.global.load"  # at the current position
    context = next(op for op in walk(fn) if op.name == "tensor.extract_slice")
    assert context.operation.operands[0] == insert.results[0]  # readers see the updated state
    assert source_loc(insert, ch.path).line == 29 and source_loc(context, ch.path).line == 14


def test_kv_cache_results_and_cache_equal_over_steps():
    before, after = (load_mlir(EXAMPLES / "kv_cache_append.mlir")[0] for _ in range(2))
    rewrite_inplace_state(after.module, after.path)
    result = compare_steps(before.module, after.module, "append_concat", steps=5)
    assert result.equal, result.mismatches
    assert set(result.max_global_diff) == {"k_cache", "seq_step"}


def test_two_ml_program_states_along_dim_0():
    path = DATA / "kv_two_states_mlprogram.mlir"
    before, after = load_mlir(path)[0], load_mlir(path)[0]
    report = rewrite_inplace_state(after.module, after.path)
    assert len(report.rewritten) == 2 and not report.refused
    assert not ops_named(after.module, "tensor.concat")
    result = compare_steps(before.module, after.module, "step", steps=5)
    assert result.equal, result.mismatches


APPEND = """
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
util.global private mutable @other = dense<0.0> : tensor<16x4xf32>
util.global private mutable @pos = 0 : index
func.func @step(%new: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %p = util.global.load @pos : index
  %prefix = tensor.extract_slice %s[OFFSET, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, LENGTH : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1]
      : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @TARGET : tensor<16x4xf32>
  EXTRA
  return %cat : tensor<?x4xf32>
}
"""
SAFE = {"OFFSET": "0", "LENGTH": "%c1", "TARGET": "cache", "EXTRA": ""}


def append_case(**changes: str) -> str:
    text = APPEND
    for key, value in {**SAFE, **changes}.items():
        text = text.replace(key, value)
    return text


def test_template_itself_is_rewritten():
    ch = chunk(append_case())
    assert rewrite_inplace_state(ch.module, ch.path).changed
    assert ch.module.operation.verify()


@pytest.mark.parametrize("changes, line, reason", [
    ({"EXTRA": "util.global.store %s, @other : tensor<16x4xf32>"}, 16,
     "util.global.store reads the old contents of @cache; updating it in place would force "
     "a copy of the whole state"),
    ({"LENGTH": "%c2"}, 13, "the write-back length of @cache along dim 0 is not provably the "
     "prefix length + 1: it is the prefix length + 2"),
    ({"OFFSET": "1"}, 10, "the prefix of @cache does not start at offset 0 along dim 0"),
    ({"TARGET": "other"}, 13, "the write-back is not stored into @cache"),
])
def test_unsafe_appends_are_refused_with_a_note(changes, line, reason):
    ch = chunk(append_case(**changes))
    text = str(ch.module)
    report = rewrite_inplace_state(ch.module, ch.path)
    assert not report.changed and str(ch.module) == text
    (note,) = report.refused
    assert note.loc.line == line
    assert note.message == f"state update left alone: {reason}"


def test_opt_checks_state_by_execution(capsys):
    code, out, err = run_cli(["opt", str(EXAMPLES / "kv_cache_append.mlir"), "--target",
                              "x86_64", "--check-state", "append_concat", "--steps", "3"], capsys)
    assert code == 0 and "tensor.concat" not in out.split("@append_insert_slice")[0]
    assert "@append_concat: 3 steps, outputs max diff 0, @k_cache max diff 0" in err


def test_check_warns_about_appends_and_refusals_with_their_cost(capsys, tmp_path):
    source = tmp_path / "two.mlir"
    source.write_text(append_case() + "// -----\n" + append_case(OFFSET="1"))
    code, _, err = run_cli(["check", str(source), "--target", "x86_64"], capsys)
    assert code == 0
    assert f"{source}:13:10: warning: append to @cache concatenates and writes back" in err
    # 16x4xf32 at the largest size: the concat (built in the returned buffer, so no
    # transient) and the write-back copy 256 B each.
    assert (f"{source}:29:13: warning: state append copies the whole context every step "
            "(512 B copied, 0 B transient at the largest sizes the shapes allow); "
            "`memplan opt` leaves it alone: the prefix of @cache does not start") in err


def test_two_appended_pieces_along_the_inner_dimension():
    path = DATA / "append_two_pieces_dim1.mlir"
    before, after = load_mlir(path)[0], load_mlir(path)[0]
    assert rewrite_inplace_state(after.module, after.path).changed
    inserts = ops_named(after.module, "tensor.insert_slice")
    assert [str(op.operation.operands[0].type) for op in inserts] == [
        "tensor<4x1xf32>", "tensor<4x2xf32>"]  # each piece written once, in order
    result = compare_steps(before.module, after.module, "step", steps=5)
    assert result.equal, result.mismatches


def test_opt_keeps_chunks_and_refuses_unknown_function(tmp_path, capsys):
    source = tmp_path / "two.mlir"
    source.write_text(append_case() + "// -----\n" + append_case(OFFSET="1"))
    code, out, err = run_cli(["opt", str(source), "--target", "x86_64"], capsys)
    first, second = out.split("\n// -----\n")
    assert code == 0 and "tensor.concat" not in first and "tensor.concat" in second
    assert f"{source}:29:13: note" in err  # line numbers of the file, not the chunk
    assert "does not start at offset 0" in err
    out_file = tmp_path / "out.mlir"
    code, out, err = run_cli(["opt", str(source), "--target", "x86_64", "-o", str(out_file),
                              "--check-state", "nope"], capsys)
    assert code == 2 and err.endswith(f"memplan: {source}: no function @nope\n")
    assert not out_file.exists()  # nothing written when the check fails


def test_a_prefix_read_after_the_append_is_read_from_the_updated_state():
    path = DATA / "append_prefix_also_returned.mlir"
    before, after = load_mlir(path)[0], load_mlir(path)[0]
    assert rewrite_inplace_state(after.module, after.path).changed
    state = ops_named(after.module, "util.global.load")[0].results[0]
    assert [use.owner.name for use in state.uses] == ["tensor.insert_slice"]  # old state dead
    result = compare_steps(before.module, after.module, "step", steps=4)
    assert result.equal, result.mismatches


def test_a_position_computed_twice_is_recognised():
    ch = load_mlir(DATA / "append_position_cast_twice.mlir")[0]
    report = rewrite_inplace_state(ch.module, ch.path)
    assert report.changed and ch.module.operation.verify()
    assert not ops_named(ch.module, "tensor.concat")
