module {
  func.func @chain(%arg0: memref<64xf32>, %arg1: memref<64xf32>) {
    %alloca = memref.alloca() alignment = 64 {memplan.space = "stack"} : memref<512xi8>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c63 = arith.constant 63 : index
    %cst = arith.constant 2.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %c0_1 = arith.constant 0 : index
    %view = memref.view %alloca[%c0_1][] {memplan.offset = 0 : i64, memplan.space = "stack"} : memref<512xi8> to memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = memref.load %arg0[%arg2] : memref<64xf32>
      %1 = arith.mulf %0, %cst : f32
      memref.store %1, %view[%arg2] : memref<64xf32>
    }
    %c256 = arith.constant 256 : index
    %view_2 = memref.view %alloca[%c256][] {memplan.offset = 256 : i64, memplan.space = "stack"} : memref<512xi8> to memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = arith.subi %c63, %arg2 : index
      %1 = memref.load %view[%0] : memref<64xf32>
      %2 = arith.addf %1, %cst_0 : f32
      memref.store %2, %view_2[%arg2] : memref<64xf32>
    }
    %c0_3 = arith.constant 0 : index
    %view_4 = memref.view %alloca[%c0_3][] {memplan.offset = 0 : i64, memplan.space = "stack"} : memref<512xi8> to memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = arith.subi %c63, %arg2 : index
      %1 = memref.load %view_2[%0] : memref<64xf32>
      %2 = arith.mulf %1, %1 : f32
      memref.store %2, %view_4[%arg2] : memref<64xf32>
    }
    %c256_5 = arith.constant 256 : index
    %view_6 = memref.view %alloca[%c256_5][] {memplan.offset = 256 : i64, memplan.space = "stack"} : memref<512xi8> to memref<64xf32>
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = arith.subi %c63, %arg2 : index
      %1 = memref.load %view_4[%0] : memref<64xf32>
      %2 = memref.load %arg0[%arg2] : memref<64xf32>
      %3 = arith.subf %1, %2 : f32
      memref.store %3, %view_6[%arg2] : memref<64xf32>
    }
    scf.for %arg2 = %c0 to %c64 step %c1 {
      %0 = memref.load %view_6[%arg2] : memref<64xf32>
      memref.store %0, %arg1[%arg2] : memref<64xf32>
    }
    return
  }
}
