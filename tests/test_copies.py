"""Copy accounting: memplan's estimate against IREE's stream figures."""

from __future__ import annotations

import json

from tensor_helpers import DATA, EXAMPLES, chunk, run_cli

from memplan.analysis.copies import estimate_copies
from memplan.analysis.stream_counts import stream_counts
from memplan.ir import load_mlir, parse_mlir
from memplan.runtimes.iree.compile import compile_to_stream
from memplan.transforms import rewrite_inplace_state

AT = {"seq_step": 511}  # the last step the 512-row cache allows
CONTEXT, TOKEN = 512 * 8 * 64 * 4, 8 * 64 * 4


def figures(module, at=AT):
    ours = {e.function: (e.transient_bytes, e.copied_bytes)
            for e in estimate_copies(module, at=at)}
    stream = parse_mlir(compile_to_stream(str(module)))
    iree = {c.function: (c.transient_bytes, c.copied_bytes) for c in stream_counts(stream, at)}
    return ours, iree


def test_kv_cache_copies_drop_from_context_to_token_in_both_counts():
    ch = load_mlir(EXAMPLES / "kv_cache_append.mlir")[0]
    ours, iree = figures(ch.module)
    assert ours["append_concat"] == iree["append_concat"] == (CONTEXT, 2 * CONTEXT)
    rewrite_inplace_state(ch.module, ch.path)
    ours, iree = figures(ch.module)
    assert ours["append_concat"] == iree["append_concat"] == (0, TOKEN) == (0, 2048)
    assert ours["append_insert_slice"] == iree["append_insert_slice"]


NOT_IN_PLACE = """
func.func @f(%dst: tensor<8xf32>, %src: tensor<2xf32>, %n: index)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %a = tensor.insert_slice %src into %dst[0] [2] [1] : tensor<2xf32> into tensor<8xf32>
  %b = tensor.insert_slice %src into %c[2] [2] [1] : tensor<2xf32> into tensor<8xf32>
  %s = tensor.extract_slice %a[0] [%n] [1] : tensor<8xf32> to tensor<?xf32>
  %t = tensor.concat dim(0) %s, %src : (tensor<?xf32>, tensor<2xf32>) -> tensor<?xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
"""


def test_destinations_that_cannot_be_updated_in_place_and_bounds():
    (estimate,) = estimate_copies(chunk(NOT_IN_PLACE).module)
    whys = [(i.kind, i.bytes, i.why) for i in estimate.items]
    assert ("transient", 32, "destination is a function argument: copied first") in whys
    assert ("transient", 32, "destination is a constant: copied first") in whys
    assert ("transient", 40, "concat materialises its result") in whys  # %n at most 8
    assert estimate.bound
    (exact,) = estimate_copies(chunk(NOT_IN_PLACE).module, at={"arg2": 3})
    assert not exact.bound and ("transient", 20, "concat materialises its result") in \
        [(i.kind, i.bytes, i.why) for i in exact.items]


def test_cli_copies_table_and_json(capsys):
    path = str(EXAMPLES / "kv_cache_append.mlir")
    code, out, _ = run_cli(["copies", path, "--at", "seq_step=511"], capsys)
    assert code == 0
    assert "append_concat        before    1,048,576  2,097,152         1,048,576      " \
        "2,097,152" in out
    code, out, _ = run_cli(["copies", path, "--no-iree", "--json"], capsys)
    rows = json.loads(out)
    assert code == 0 and rows[0]["stage"] == "before" and rows[0]["bound"] is True


def test_cli_bad_binding_is_one_line(capsys):
    code, out, err = run_cli(["copies", str(EXAMPLES / "kv_cache_append.mlir"), "--at",
                              "seq_step"], capsys)
    assert (code, out) == (2, "")
    assert err == "memplan: --at: cannot read 'seq_step': expected NAME=INTEGER\n"


def test_a_dispatch_result_inserted_alone_is_written_in_place():
    ch = load_mlir(DATA / "emplaced_insert.mlir")[0]
    ours, iree = figures(ch.module, {"pos": 3})
    assert ours["step"] == iree["step"] == (0, 0)


ROPE = """
func.func @rope(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %lo = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 8, 4] [1, 1, 1, 1]
      : tensor<1x2x8x8xf32> to tensor<1x2x8x4xf32>
  %hi = tensor.extract_slice %x[0, 0, 0, 4] [1, 2, 8, 4] [1, 1, 1, 1]
      : tensor<1x2x8x8xf32> to tensor<1x2x8x4xf32>
  %e = tensor.empty() : tensor<1x2x8x4xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                          affine_map<(a, b, c, d) -> (a, b, c, d)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%hi : tensor<1x2x8x4xf32>) outs(%e : tensor<1x2x8x4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  } -> tensor<1x2x8x4xf32>
  %cat = tensor.concat dim(3) %neg, %lo
      : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32>
  return %cat : tensor<1x2x8x8xf32>
}
"""


def test_a_static_rope_concat_costs_what_iree_does_nothing():
    ours, iree = figures(chunk(ROPE).module, {})
    assert ours["rope"] == iree["rope"] == (0, 0)


def test_exported_position_binds_sizes_and_main_is_charged_its_callee():
    ch = load_mlir(DATA / "kv_export_concat.mlir")[0]
    row = 16 * 2 * 16 * 4  # one cache (1x16x2x16xf32) at the last position
    ours, iree = figures(ch.module, {"arg1": 15})
    # K and V: each concat makes a transient of the context and copies it in, and the
    # write-back copies it again; the position is read back to the host (8 B).
    assert ours["main$async"] == ours["main"] == (2 * row, 4 * row + 8)
    assert iree["main$async"] == iree["main"]  # the wrapper does no work of its own
    assert iree["main"][1] == ours["main"][1]
    # IREE's transients also hold the attention's intermediates, which the copy model
    # does not count (the concat's are among them).
    assert iree["main"][0] > ours["main"][0]


def test_returning_a_view_of_the_state_copies_it_out_in_both_counts():
    ch = load_mlir(DATA / "cases" / "kv_cache_append_exported.mlir")[0]
    rewrite_inplace_state(ch.module, ch.path)
    ours, iree = figures(ch.module, {"arg0": 511})
    # The token into the cache, the context (a slice of it) out to the caller, and the
    # position back to the host.
    assert ours["step"] == iree["step"] == (0, 1024 + 512 * 1024 + 8)


def test_a_size_from_an_unbound_value_is_unknown_not_zero():
    text = """
func.func @f(%t: tensor<?x4xf32>, %u: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %cat = tensor.concat dim(0) %t, %u : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %neg = linalg.copy ins(%cat : tensor<?x4xf32>) outs(%t : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %neg : tensor<?x4xf32>
}"""
    (estimate,) = estimate_copies(chunk(text).module)
    assert estimate.transient_bytes is None and estimate.copied_bytes is None


def test_an_argument_dimension_binds_with_at():
    text = """
func.func @grow(%x: tensor<?x4xf32>, %y: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %cat = tensor.concat dim(0) %x, %y : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  return %cat : tensor<?x4xf32>
}"""
    ours, iree = figures(chunk(text).module, {"arg0.dim0": 7})
    assert ours["grow"] == iree["grow"] == (0, 8 * 16)  # built in the result: 7 + 1 rows
    ours, iree = figures(chunk(text).module, {})
    assert ours["grow"] == (0, None) and iree["grow"][1] is None  # unknown, not 0
