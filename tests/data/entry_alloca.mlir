// A static 1 KiB stack buffer at the entry, used in a loop: fine on x86_64, too big for 512 B.
func.func @entry_alloca(%out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %buf = memref.alloca() : memref<8x32xi32>
  %small = memref.alloca() : memref<4xi32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %out[%i, %c0] : memref<8x72xi32>
    memref.store %v, %buf[%i, %c0] : memref<8x32xi32>
    memref.store %v, %small[%c0] : memref<4xi32>
  }
  return
}
