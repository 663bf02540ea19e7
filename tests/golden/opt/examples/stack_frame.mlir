module {
  func.func private @consume(memref<256xf32>)
  func.func @all_live_together() {
    %cst = arith.constant 1.000000e+00 : f32
    %alloca = memref.alloca() : memref<256xf32>
    %alloca_0 = memref.alloca() : memref<256xf32>
    %alloca_1 = memref.alloca() : memref<256xf32>
    %alloca_2 = memref.alloca() : memref<256xf32>
    %alloca_3 = memref.alloca() : memref<256xf32>
    %alloca_4 = memref.alloca() : memref<256xf32>
    %alloca_5 = memref.alloca() : memref<256xf32>
    %alloca_6 = memref.alloca() : memref<256xf32>
    %alloca_7 = memref.alloca() : memref<256xf32>
    %alloca_8 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_0 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_1 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_3 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_4 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_5 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_6 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_7 : memref<256xf32>)
    linalg.fill ins(%cst : f32) outs(%alloca_8 : memref<256xf32>)
    call @consume(%alloca) : (memref<256xf32>) -> ()
    call @consume(%alloca_0) : (memref<256xf32>) -> ()
    call @consume(%alloca_1) : (memref<256xf32>) -> ()
    call @consume(%alloca_2) : (memref<256xf32>) -> ()
    call @consume(%alloca_3) : (memref<256xf32>) -> ()
    call @consume(%alloca_4) : (memref<256xf32>) -> ()
    call @consume(%alloca_5) : (memref<256xf32>) -> ()
    call @consume(%alloca_6) : (memref<256xf32>) -> ()
    call @consume(%alloca_7) : (memref<256xf32>) -> ()
    call @consume(%alloca_8) : (memref<256xf32>) -> ()
    return
  }
  func.func @one_at_a_time() {
    %cst = arith.constant 1.000000e+00 : f32
    %alloca = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca : memref<256xf32>)
    call @consume(%alloca) : (memref<256xf32>) -> ()
    %alloca_0 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_0 : memref<256xf32>)
    call @consume(%alloca_0) : (memref<256xf32>) -> ()
    %alloca_1 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_1 : memref<256xf32>)
    call @consume(%alloca_1) : (memref<256xf32>) -> ()
    %alloca_2 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<256xf32>)
    call @consume(%alloca_2) : (memref<256xf32>) -> ()
    %alloca_3 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_3 : memref<256xf32>)
    call @consume(%alloca_3) : (memref<256xf32>) -> ()
    %alloca_4 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_4 : memref<256xf32>)
    call @consume(%alloca_4) : (memref<256xf32>) -> ()
    %alloca_5 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_5 : memref<256xf32>)
    call @consume(%alloca_5) : (memref<256xf32>) -> ()
    %alloca_6 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_6 : memref<256xf32>)
    call @consume(%alloca_6) : (memref<256xf32>) -> ()
    %alloca_7 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_7 : memref<256xf32>)
    call @consume(%alloca_7) : (memref<256xf32>) -> ()
    %alloca_8 = memref.alloca() : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%alloca_8 : memref<256xf32>)
    call @consume(%alloca_8) : (memref<256xf32>) -> ()
    return
  }
}
