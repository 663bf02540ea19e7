"""Access modes and the written-constant diagnostic."""

from __future__ import annotations

import json

from tensor_helpers import EXAMPLES, chunk, run_cli

from memplan.analysis.access import access_modes, written_constants
from memplan.ir import load_mlir
from memplan.report.diagnostics import format_diagnostic


def modes(ch) -> dict[tuple[str, str], str]:
    return {(a.function, a.name): a.mode for a in access_modes(ch)}


def test_kv_cache_globals_are_read_and_written():
    got = modes(load_mlir(EXAMPLES / "kv_cache_append.mlir")[0])
    assert got[("", "@k_cache")] == "read-write"
    assert got[("", "@seq_step")] == "read-write"
    assert got[("append_concat", "%arg0")] == "read"


def test_constant_outs_are_written_and_reported_with_location():
    ch = load_mlir(EXAMPLES / "reduce_into_nonsplat_constant.mlir")[0]
    assert modes(ch)[("reduce_into_const", "%cst")] == "read-write"
    (note,) = written_constants(ch)
    path = EXAMPLES / "reduce_into_nonsplat_constant.mlir"
    assert format_diagnostic(note).startswith(
        f"{path}:4:8: warning: linalg.generic writes into constant %cst")


SOURCES = """
util.global private @table = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @f(%a: tensor<2xf32>, %out: tensor<4xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %t = util.global.load @table : tensor<2xf32>
  %cst = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %view = tensor.extract_slice %cst[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  %w = linalg.copy ins(%a : tensor<2xf32>) outs(%view : tensor<2xf32>) -> tensor<2xf32>
  %u = linalg.copy ins(%a : tensor<2xf32>) outs(%t : tensor<2xf32>) -> tensor<2xf32>
  %o = tensor.insert_slice %a into %out[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  return %u, %o : tensor<2xf32>, tensor<4xf32>
}
"""


def test_views_globals_and_write_only_destinations():
    ch = chunk(SOURCES)
    got = modes(ch)
    assert got[("f", "%arg0")] == "read"
    assert got[("f", "%arg1")] == "read-write"  # insert keeps the rest of %out
    assert got[("f", "%cst")] == "write"  # through the view; linalg.copy ignores its init
    assert got[("", "@table")] == "read"
    notes = sorted(format_diagnostic(n) for n in written_constants(ch))
    assert len(notes) == 2
    assert notes[0].startswith("case.mlir:7:8: warning: linalg.copy writes into constant %cst")
    assert notes[1].startswith("case.mlir:8:8: warning: linalg.copy writes into immutable "
                               "global @table (tensor<2xf32>)")


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %x = arith.constant : i32\n}\n")
    for command in (["copies"], ["check", "--target", "x86_64"], ["opt", "--target", "x86_64"]):
        code, out, err = run_cli([*command, str(bad)], capsys)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith(f"{bad}:2:")
    code, _, err = run_cli(["copies", str(tmp_path / "missing.mlir")], capsys)
    assert code == 2 and "cannot read file" in err and err.count("\n") == 1


def test_check_reports_access_modes_copies_and_the_written_constant(capsys):
    path = EXAMPLES / "reduce_into_nonsplat_constant.mlir"
    code, out, err = run_cli(["check", str(path), "--target", "x86_64"], capsys)
    assert code == 0
    assert "reduce_into_const  constant  %cst   tensor<32xi32>    read-write" in out
    assert "reduce_into_const  before            0       128" in out
    assert (f"{path}:4:8: warning: linalg.generic writes into constant %cst (tensor<32xi32>): "
            "IREE copies it each call or fails to compile; `memplan opt` makes it a read-only "
            "input") in err
    code, out, _ = run_cli(["check", str(path), "--target", "x86_64", "--json"], capsys)
    data = json.loads(out)
    assert {"access", "copies", "diagnostics"} <= set(data)
    assert [d["code"] for d in data["diagnostics"]] == ["constant-written"]


MEMREF = """
func.func @g(%out: memref<8xi32>, %in: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %in[%c0] : memref<8xi32>
  %view = memref.subview %out[0] [4] [1] : memref<8xi32> to memref<4xi32, strided<[1]>>
  memref.store %v, %view[%c0] : memref<4xi32, strided<[1]>>
  return
}
"""


def test_memref_stores_write_through_views():
    got = modes(chunk(MEMREF))
    assert got[("g", "%arg0")] == "write" and got[("g", "%arg1")] == "read"


def test_scatter_writes_its_destination():
    # index_copy_ as IREE's input conversion writes it: the cache rows not indexed are kept.
    ch = chunk("""
func.func @f(%cache: tensor<8x4xf32>, %rows: tensor<1x4xf32>, %at: tensor<1x1xi32>)
    -> tensor<8x4xf32> {
  %0 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(true)
      ins(%rows, %at : tensor<1x4xf32>, tensor<1x1xi32>) outs(%cache : tensor<8x4xf32>) {
  ^bb0(%new: f32, %old: f32):
    iree_linalg_ext.yield %new : f32
  } -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}""")
    got = modes(ch)  # arguments print by position
    assert got[("f", "%arg0")] == "read-write"
    assert got[("f", "%arg1")] == got[("f", "%arg2")] == "read"
