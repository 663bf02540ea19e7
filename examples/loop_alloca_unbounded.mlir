// The seed's pattern with a size nothing bounds: it grows with the loop's induction variable
// and with the argument %n. memplan opt refuses it (error, function left as it is) unless the
// caller bounds %n: `--assume n<=8` makes it a static 8x72 buffer at the entry.
func.func @loop_unbounded_alloca(%out: memref<8x72xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = arith.addi %iv, %n : index
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %zero, %buf[%i, %c0] : memref<8x?xi32>
      %v = memref.load %buf[%i, %c0] : memref<8x?xi32>
      memref.store %v, %out[%i, %iv] : memref<8x72xi32>
    }
  }
  return
}
