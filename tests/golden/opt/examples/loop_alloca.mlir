#map = affine_map<(d0) -> (-d0 + 72, 32)>
module {
  func.func @loop_dynamic_alloca(%arg0: memref<8x72xi32>) {
    %alloca = memref.alloca() : memref<8x32xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c72 = arith.constant 72 : index
    %c0_i32 = arith.constant 0 : i32
    scf.for %arg1 = %c0 to %c72 step %c32 {
      %0 = affine.min #map(%arg1)
      %subview = memref.subview %alloca[0, 0] [8, %0] [1, 1] : memref<8x32xi32> to memref<8x?xi32, strided<[32, 1]>>
      scf.for %arg2 = %c0 to %c8 step %c1 {
        scf.for %arg3 = %c0 to %0 step %c1 {
          memref.store %c0_i32, %subview[%arg2, %arg3] : memref<8x?xi32, strided<[32, 1]>>
          %1 = memref.load %subview[%arg2, %arg3] : memref<8x?xi32, strided<[32, 1]>>
          %2 = arith.addi %arg1, %arg3 : index
          memref.store %1, %arg0[%arg2, %2] : memref<8x72xi32>
        }
      }
    }
    return
  }
  func.func @loop_dynamic_alloc(%arg0: memref<8x72xi32>) {
    %alloc = memref.alloc() : memref<8x32xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c72 = arith.constant 72 : index
    %c0_i32 = arith.constant 0 : i32
    scf.for %arg1 = %c0 to %c72 step %c32 {
      %0 = affine.min #map(%arg1)
      %subview = memref.subview %alloc[0, 0] [8, %0] [1, 1] : memref<8x32xi32> to memref<8x?xi32, strided<[32, 1]>>
      scf.for %arg2 = %c0 to %c8 step %c1 {
        scf.for %arg3 = %c0 to %0 step %c1 {
          memref.store %c0_i32, %subview[%arg2, %arg3] : memref<8x?xi32, strided<[32, 1]>>
          %1 = memref.load %subview[%arg2, %arg3] : memref<8x?xi32, strided<[32, 1]>>
          %2 = arith.addi %arg1, %arg3 : index
          memref.store %1, %arg0[%arg2, %2] : memref<8x72xi32>
        }
      }
    }
    memref.dealloc %alloc : memref<8x32xi32>
    return
  }
  func.func @loop_invariant_dynamic_alloc(%arg0: memref<8x72xi32>, %arg1: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c72 = arith.constant 72 : index
    %c0_i32 = arith.constant 0 : i32
    %alloc = memref.alloc(%arg1) : memref<8x?xi32>
    scf.for %arg2 = %c0 to %c72 step %c32 {
      scf.for %arg3 = %c0 to %c8 step %c1 {
        memref.store %c0_i32, %alloc[%arg3, %c0] : memref<8x?xi32>
        %0 = memref.load %alloc[%arg3, %c0] : memref<8x?xi32>
        memref.store %0, %arg0[%arg3, %arg2] : memref<8x72xi32>
      }
    }
    memref.dealloc %alloc : memref<8x?xi32>
    return
  }
  func.func @loop_static_alloc(%arg0: memref<8x72xi32>) {
    %alloc = memref.alloc() : memref<8x32xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c72 = arith.constant 72 : index
    %c0_i32 = arith.constant 0 : i32
    scf.for %arg1 = %c0 to %c72 step %c32 {
      scf.for %arg2 = %c0 to %c8 step %c1 {
        memref.store %c0_i32, %alloc[%arg2, %c0] : memref<8x32xi32>
        %0 = memref.load %alloc[%arg2, %c0] : memref<8x32xi32>
        memref.store %0, %arg0[%arg2, %arg1] : memref<8x72xi32>
      }
    }
    memref.dealloc %alloc : memref<8x32xi32>
    return
  }
}
