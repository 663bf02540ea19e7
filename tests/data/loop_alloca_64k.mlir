// An in-loop alloca bounded at 64 KiB: hoisting bounds it, but onto a 32 KiB frame.
#map = affine_map<(d0) -> (-d0 + 100000, 16384)>
func.func @big_in_loop(%out: memref<100000xi32>) {
  %c0 = arith.constant 0 : index
  %c16384 = arith.constant 16384 : index
  %c100000 = arith.constant 100000 : index
  scf.for %i = %c0 to %c100000 step %c16384 {
    %n = affine.min #map(%i)
    %tmp = memref.alloca(%n) : memref<?xi32>
    %sub = memref.subview %out[%i] [%n] [1] : memref<100000xi32> to memref<?xi32, strided<[1], offset: ?>>
    memref.copy %sub, %tmp : memref<?xi32, strided<[1], offset: ?>> to memref<?xi32>
  }
  return
}
