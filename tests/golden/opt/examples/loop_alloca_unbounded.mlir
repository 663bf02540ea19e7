module {
  func.func @loop_unbounded_alloca(%arg0: memref<8x72xi32>, %arg1: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c72 = arith.constant 72 : index
    %c0_i32 = arith.constant 0 : i32
    scf.for %arg2 = %c0 to %c72 step %c32 {
      %0 = arith.addi %arg2, %arg1 : index
      %alloca = memref.alloca(%0) : memref<8x?xi32>
      scf.for %arg3 = %c0 to %c8 step %c1 {
        memref.store %c0_i32, %alloca[%arg3, %c0] : memref<8x?xi32>
        %1 = memref.load %alloca[%arg3, %c0] : memref<8x?xi32>
        memref.store %1, %arg0[%arg3, %arg2] : memref<8x72xi32>
      }
    }
    return
  }
}
