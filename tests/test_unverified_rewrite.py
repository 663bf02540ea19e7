"""Issue 31: a rewrite whose result fails MLIR's verifier is undone and said, never written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from iree.compiler import ir

from memplan.ir import load_mlir
from memplan.ir.print import print_chunks
from memplan.targets import load_target
from memplan.transforms.passes import ModulePass, PassContext, run_pipeline
from memplan.transforms.rewrite_report import RewriteReport

TEXT = """func.func @f(%m: memref<4xindex>) -> index {
  %c0 = arith.constant 0 : index
  %n = memref.load %m[%c0] : memref<4xindex>
  %s = arith.addi %n, %n : index
  return %s : index
}
// -----
func.func @g(%m: memref<4xindex>) -> index {
  %c0 = arith.constant 0 : index
  %n = memref.load %m[%c0] : memref<4xindex>
  %s = arith.addi %n, %n : index
  return %s : index
}
"""


@dataclass
class MoveAboveOperands(ModulePass):
    """A wrong rewrite: moves each `arith.addi` of the second chunk to its block's start,
    above the load it uses ("operand #0 does not dominate this use")."""

    name: ClassVar[str] = "move-above"
    summary: ClassVar[str] = "test only"

    def run(self, chunk, context) -> RewriteReport:
        if chunk.index == 1:
            func = chunk.module.body.operations[0]
            block = func.regions[0].blocks[0]
            add = next(op for op in block.operations if op.name == "arith.addi")
            add.move_before(block.operations[0])
        return RewriteReport()


def test_a_rewrite_that_fails_verification_is_undone_and_reported(tmp_path):
    path = tmp_path / "two.mlir"
    path.write_text(TEXT)
    chunks = load_mlir(str(path))
    report = run_pipeline(chunks, [MoveAboveOperands()],
                          PassContext(load_target("x86_64"), ()))
    (error,) = report.diagnostics
    assert error.is_error and error.code == "rewrite-unverified"
    assert str(error.loc) == f"{path}:8:1"
    assert "the move-above pass cannot rewrite this chunk" in error.message
    assert "does not dominate this use" in error.message
    # Both chunks verify and print: the second as it was read.
    text = print_chunks(chunks)
    assert text.count("arith.addi") == 2
    assert isinstance(chunks[1].module.operation, ir.Operation)
