// A loop of blocks (cf.br back edge) with a stack buffer made on every trip.
func.func @cf_loop_sum(%out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  cf.br ^bb1(%c0 : index)
^bb1(%i: index):
  %more = arith.cmpi slt, %i, %c4 : index
  cf.cond_br %more, ^bb2, ^bb3
^bb2:
  %tmp = memref.alloca() : memref<4xi32>
  %v = memref.load %out[%i] : memref<4xi32>
  %i32 = arith.index_cast %i : index to i32
  %w = arith.addi %v, %i32 : i32
  memref.store %w, %tmp[%i] : memref<4xi32>
  %r = memref.load %tmp[%i] : memref<4xi32>
  memref.store %r, %out[%i] : memref<4xi32>
  %next = arith.addi %i, %c1 : index
  cf.br ^bb1(%next : index)
^bb3:
  return
}
