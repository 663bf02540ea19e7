module {
  func.func private @mfcc(memref<49x40xf32>, memref<1x49x10x1xi8>)
  func.func private @ethosu_conv2d(memref<1x49x10x1xi8>, memref<1x25x5x64xi8>)
  func.func private @ethosu_depthwise_conv2d(memref<1x25x5x64xi8>, memref<1x25x5x64xi8>)
  func.func private @ethosu_avgpool(memref<1x25x5x64xi8>, memref<1x64xi8>)
  func.func private @fully_connected(memref<1x64xi8>, memref<12xi32>)
  func.func @kws_step(%arg0: memref<49x40xf32>, %arg1: memref<12xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c12 = arith.constant 12 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() : memref<1x49x10x1xi8>
    call @mfcc(%arg0, %alloc) : (memref<49x40xf32>, memref<1x49x10x1xi8>) -> ()
    %alloc_0 = memref.alloc() : memref<1x25x5x64xi8>
    call @ethosu_conv2d(%alloc, %alloc_0) {memplan.device = "npu"} : (memref<1x49x10x1xi8>, memref<1x25x5x64xi8>) -> ()
    memref.dealloc %alloc : memref<1x49x10x1xi8>
    %alloc_1 = memref.alloc() : memref<1x25x5x64xi8>
    call @ethosu_depthwise_conv2d(%alloc_0, %alloc_1) {memplan.device = "npu"} : (memref<1x25x5x64xi8>, memref<1x25x5x64xi8>) -> ()
    memref.dealloc %alloc_0 : memref<1x25x5x64xi8>
    %alloc_2 = memref.alloc() : memref<1x64xi8>
    call @ethosu_avgpool(%alloc_1, %alloc_2) {memplan.device = "npu"} : (memref<1x25x5x64xi8>, memref<1x64xi8>) -> ()
    memref.dealloc %alloc_1 : memref<1x25x5x64xi8>
    %alloc_3 = memref.alloc() : memref<12xi32>
    call @fully_connected(%alloc_2, %alloc_3) : (memref<1x64xi8>, memref<12xi32>) -> ()
    memref.dealloc %alloc_2 : memref<1x64xi8>
    linalg.fill ins(%cst : f32) outs(%arg1 : memref<12xf32>)
    scf.for %arg2 = %c0 to %c12 step %c1 {
      %1 = memref.load %alloc_3[%arg2] : memref<12xi32>
      %2 = arith.sitofp %1 : i32 to f32
      memref.store %2, %arg1[%arg2] : memref<12xf32>
    }
    memref.dealloc %alloc_3 : memref<12xi32>
    %alloc_4 = memref.alloc() : memref<16x640xf32>
    %0 = memref.load %alloc_4[%c0, %c0] : memref<16x640xf32>
    memref.store %0, %arg1[%c0] : memref<12xf32>
    memref.dealloc %alloc_4 : memref<16x640xf32>
    return
  }
}
