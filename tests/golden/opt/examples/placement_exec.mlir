module {
  func.func @chain(%arg0: memref<64xf32>, %arg1: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c63 = arith.constant 63 : index
    %cst = arith.constant 2.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %alloc = memref.alloc() : memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = memref.load %arg0[%arg2] : memref<64xf32>
      %1 = arith.mulf %0, %cst : f32
      memref.store %1, %alloc[%arg2] : memref<64xf32>
    }
    %alloc_1 = memref.alloc() : memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = arith.subi %c63, %arg2 : index
      %1 = memref.load %alloc[%0] : memref<64xf32>
      %2 = arith.addf %1, %cst_0 : f32
      memref.store %2, %alloc_1[%arg2] : memref<64xf32>
    }
    memref.dealloc %alloc : memref<64xf32>
    %alloc_2 = memref.alloc() : memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = arith.subi %c63, %arg2 : index
      %1 = memref.load %alloc_1[%0] : memref<64xf32>
      %2 = arith.mulf %1, %1 : f32
      memref.store %2, %alloc_2[%arg2] : memref<64xf32>
    }
    memref.dealloc %alloc_1 : memref<64xf32>
    %alloc_3 = memref.alloc() : memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = arith.subi %c63, %arg2 : index
      %1 = memref.load %alloc_2[%0] : memref<64xf32>
      %2 = memref.load %arg0[%arg2] : memref<64xf32>
      %3 = arith.subf %1, %2 : f32
      memref.store %3, %alloc_3[%arg2] : memref<64xf32>
    }
    memref.dealloc %alloc_2 : memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = memref.load %alloc_3[%arg2] : memref<64xf32>
      memref.store %0, %arg1[%arg2] : memref<64xf32>
    }
    memref.dealloc %alloc_3 : memref<64xf32>
    return
  }
}
