"""Lifetimes from first to last use, through every value that may be the buffer's memory."""

from __future__ import annotations

from memplan.analysis.census import take_census
from memplan.ir import load_mlir

LIFETIMES = """\
func.func @views_are_not_uses(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<16xf32>
  %v = memref.subview %a[0] [8] [1] : memref<16xf32> to memref<8xf32>
  %w = memref.cast %v : memref<8xf32> to memref<?xf32>
  memref.store %f, %out[%c0] : memref<8xf32>
  memref.store %f, %w[%c0] : memref<?xf32>
  memref.store %f, %out[%c0] : memref<8xf32>
  return
}

// -----

func.func @yielded_out_of_its_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  %init = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> memref<4xf32> {
    %a = memref.alloc() : memref<4xf32>
    memref.store %f, %a[%c0] : memref<4xf32>
    scf.yield %a : memref<4xf32>
  }
  memref.store %f, %r[%c0] : memref<4xf32>
  return
}

// -----

func.func @through_a_branch() {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  cf.br ^bb1(%a : memref<4xf32>)
^bb1(%b: memref<4xf32>):
  memref.store %f, %b[%c0] : memref<4xf32>
  return
}

// -----

func.func @tensor_destinations(%c: f32) -> tensor<4xf32> {
  %t = bufferization.alloc_tensor() : tensor<4xf32>
  %u = bufferization.alloc_tensor() : tensor<4xf32>
  %copied = linalg.copy ins(%t : tensor<4xf32>) outs(%u : tensor<4xf32>) -> tensor<4xf32>
  %filled = linalg.fill ins(%c : f32) outs(%copied : tensor<4xf32>) -> tensor<4xf32>
  return %filled : tensor<4xf32>
}

// -----

func.func @unused() {
  %a = memref.alloc() : memref<4xf32>
  return
}
"""


def test_lifetimes(tmp_path):
    path = tmp_path / "lifetimes.mlir"
    path.write_text(LIFETIMES)
    found = {(a.function, a.location.line): a.lifetime
             for chunk in load_mlir(path) for a in take_census(chunk)}
    # Ops by position: c0 0, f 1, alloc 2, subview 3, cast 4, store 5, store 6 (through the
    # views), store 7: the buffer is used at 6 only, not where it or its views are made.
    assert found[("views_are_not_uses", 4)] == (6, 7)
    # Made in the loop body (positions 5-7) and yielded: the next iteration and the loop's
    # result hold it, so it lives from the loop (4) to the store after it (8).
    assert found[("yielded_out_of_its_loop", 21)] == (4, 9)
    # The init is handed to the loop as its iteration argument: the loop and its result.
    assert found[("yielded_out_of_its_loop", 19)] == (4, 9)
    # A block argument may carry it round a CFG: the whole function (6 ops).
    assert found[("through_a_branch", 34)] == (0, 6)
    # Read by the copy: its result is another buffer. %u is the copy's destination: its
    # result, the fill's destination, is %u's memory up to the return (positions:
    # alloc_tensor 0 and 1, the copy 2 and the fill 4 with a body op each, return 6).
    assert found[("tensor_destinations", 44)] == (2, 4)
    assert found[("tensor_destinations", 45)] == (2, 7)
    assert found[("unused", 54)] == (0, 1)
