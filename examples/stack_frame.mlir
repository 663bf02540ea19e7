// Ten 1 KiB stack buffers (memref<256xf32>): each passes TVM's per-allocation
// rule (kMaxStackAlloca = 1024), which is all TVM checks. memplan bounds the
// frame: on cortex-m55 (8 KiB frame) @all_live_together needs 10 KiB and is
// rejected, @one_at_a_time needs 1 KiB because no two buffers are live at once.
//   memplan check examples/stack_frame.mlir --target cortex-m55
module {
  func.func private @consume(memref<256xf32>)

  func.func @all_live_together() {
    %cst = arith.constant 1.0 : f32
    %b0 = memref.alloca() : memref<256xf32>
    %b1 = memref.alloca() : memref<256xf32>
    %b2 = memref.alloca() : memref<256xf32>
    %b3 = memref.alloca() : memref<256xf32>
    %b4 = memref.alloca() : memref<256xf32>
    %b5 = memref.alloca() : memref<256xf32>
    %b6 = memref.alloca() : memref<256xf32>
    %b7 = memref.alloca() : memref<256xf32>
    %b8 = memref.alloca() : memref<256xf32>
    %b9 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b0 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b1 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b2 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b3 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b4 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b5 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b6 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b7 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b8 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%b9 : memref<256xf32>)
    func.call @consume(%b0) : (memref<256xf32>) -> ()
    func.call @consume(%b1) : (memref<256xf32>) -> ()
    func.call @consume(%b2) : (memref<256xf32>) -> ()
    func.call @consume(%b3) : (memref<256xf32>) -> ()
    func.call @consume(%b4) : (memref<256xf32>) -> ()
    func.call @consume(%b5) : (memref<256xf32>) -> ()
    func.call @consume(%b6) : (memref<256xf32>) -> ()
    func.call @consume(%b7) : (memref<256xf32>) -> ()
    func.call @consume(%b8) : (memref<256xf32>) -> ()
    func.call @consume(%b9) : (memref<256xf32>) -> ()
    return
  }

  func.func @one_at_a_time() {
    %cst = arith.constant 1.0 : f32
    %b0 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b0 : memref<256xf32>)
    func.call @consume(%b0) : (memref<256xf32>) -> ()
    %b1 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b1 : memref<256xf32>)
    func.call @consume(%b1) : (memref<256xf32>) -> ()
    %b2 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b2 : memref<256xf32>)
    func.call @consume(%b2) : (memref<256xf32>) -> ()
    %b3 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b3 : memref<256xf32>)
    func.call @consume(%b3) : (memref<256xf32>) -> ()
    %b4 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b4 : memref<256xf32>)
    func.call @consume(%b4) : (memref<256xf32>) -> ()
    %b5 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b5 : memref<256xf32>)
    func.call @consume(%b5) : (memref<256xf32>) -> ()
    %b6 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b6 : memref<256xf32>)
    func.call @consume(%b6) : (memref<256xf32>) -> ()
    %b7 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b7 : memref<256xf32>)
    func.call @consume(%b7) : (memref<256xf32>) -> ()
    %b8 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b8 : memref<256xf32>)
    func.call @consume(%b8) : (memref<256xf32>) -> ()
    %b9 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%b9 : memref<256xf32>)
    func.call @consume(%b9) : (memref<256xf32>) -> ()
    return
  }
}
