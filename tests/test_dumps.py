"""Pass-pipeline dumps: one snapshot per header, each parsed on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from memplan.analysis.census import take_census
from memplan.errors import InputError
from memplan.ir.dumps import is_dump, load_dump, split_dump

OLD_STYLE = """\
some compiler chatter before the first header
// -----// IR Dump After CSE (cse) //----- //
func.func @f() {
  %0 = memref.alloca() : memref<4xf32>
  return
}

x.mlir:3:8: warning: a diagnostic on the same stream
// -----// IR Dump After Canonicalizer (canonicalize) ('func.func' operation: @f) //----- //
func.func @f() {
  return
}
"""


def test_iree_opt_dump_reads_as_three_snapshots_of_one_function(data: Path) -> None:
    # iree-opt canonicalize, hoist-statically-bound-allocations, check-ir-before-llvm-conversion
    # on a loop with a bounded dynamic alloca, --mlir-print-ir-after-all.
    loaded = [(item.snapshot, item.chunk) for item in load_dump(data / "pipeline_after_all.dump")]
    assert [s.pass_argument for s, _ in loaded] == [
        "canonicalize", "iree-codegen-hoist-statically-bound-allocations",
        "iree-llvmcpu-check-ir-before-llvm-conversion"]
    census = [take_census(chunk) for _, chunk in loaded]
    # Before the hoist, the alloca is dynamic and in the loop; after, static at the entry.
    assert [(a.shape, a.loop_depth) for a in census[0]] == [((None,), 1)]
    assert [(a.shape, a.loop_depth) for a in census[1]] == [((16,), 0)]
    # Locations are the dump's own lines.
    text = (data / "pipeline_after_all.dump").read_text().splitlines()
    line = census[1][0].location.line
    assert "memref.alloca() : memref<16xi32>" in text[line - 1]


def test_choose_a_pass_by_argument_or_class_name(data: Path) -> None:
    path = data / "pipeline_after_all.dump"
    by_argument = load_dump(path, "iree-codegen-hoist-statically-bound-allocations")
    by_class = load_dump(path, "HoistStaticallyBoundAllocations")
    assert [i.snapshot.index for i in by_argument] == [i.snapshot.index for i in by_class] == [1]
    with pytest.raises(InputError, match="no snapshot after pass 'cse'.*canonicalize"):
        load_dump(path, "cse")


def test_old_style_headers_and_interleaved_diagnostics() -> None:
    assert is_dump(OLD_STYLE)
    first, second = split_dump(OLD_STYLE)
    assert (first.pass_name, first.pass_argument) == ("CSE", "cse")
    assert (second.pass_name, second.pass_argument) == ("Canonicalizer", "canonicalize")
    assert "warning" not in first.text and first.text.rstrip().endswith("}")
    assert first.first_line == 3


def test_a_snapshot_that_does_not_parse_alone_is_skipped(tmp_path: Path) -> None:
    # A function pass's snapshot prints the function alone; its callee is elsewhere.
    dump = tmp_path / "x.dump"
    dump.write_text(OLD_STYLE + """// -----// IR Dump After Inliner (inline) //----- //
func.func @caller() {
  func.call @elsewhere() : () -> ()
  return
}
""")
    loaded = load_dump(dump)
    assert [i.chunk is None for i in loaded] == [False, False, True]
    assert "elsewhere" in loaded[2].skipped


def test_not_a_dump_is_one_clear_error(data: Path) -> None:
    assert not is_dump((data / "entry_alloca.mlir").read_text())
    with pytest.raises(InputError, match="not a pass-pipeline dump"):
        load_dump(data / "entry_alloca.mlir")
