// A keyword-spotting step as a Cortex-M55 + Ethos-U55 would run it, after
// bufferization: the NPU runs the convolution and pooling (calls marked
// `memplan.device = "npu"`), the CPU computes features before and the
// classifier after. `memplan place` decides where each buffer lives:
//   memplan place examples/placement.mlir --target x86_64
//   memplan place examples/placement.mlir --target cortex-m55
//   memplan place examples/placement.mlir --target cortex-m55+ethos-u55
module {
  func.func private @mfcc(memref<49x40xf32>, memref<1x49x10x1xi8>)
  func.func private @ethosu_conv2d(memref<1x49x10x1xi8>, memref<1x25x5x64xi8>)
  func.func private @ethosu_depthwise_conv2d(memref<1x25x5x64xi8>, memref<1x25x5x64xi8>)
  func.func private @ethosu_avgpool(memref<1x25x5x64xi8>, memref<1x64xi8>)
  func.func private @fully_connected(memref<1x64xi8>, memref<12xi32>)

  func.func @kws_step(%audio_frames: memref<49x40xf32>, %scores: memref<12xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c12 = arith.constant 12 : index
    %zero = arith.constant 0.0 : f32

    // CPU: log-mel features, quantized for the NPU (490 B).
    %features = memref.alloc() : memref<1x49x10x1xi8>
    func.call @mfcc(%audio_frames, %features) : (memref<49x40xf32>, memref<1x49x10x1xi8>) -> ()

    // NPU: conv -> depthwise conv -> average pool (8000 B, 8000 B, 64 B). Each buffer
    // is freed after its last use, as MLIR's buffer-deallocation pipeline places it.
    %act0 = memref.alloc() : memref<1x25x5x64xi8>
    func.call @ethosu_conv2d(%features, %act0) {memplan.device = "npu"}
        : (memref<1x49x10x1xi8>, memref<1x25x5x64xi8>) -> ()
    memref.dealloc %features : memref<1x49x10x1xi8>
    %act1 = memref.alloc() : memref<1x25x5x64xi8>
    func.call @ethosu_depthwise_conv2d(%act0, %act1) {memplan.device = "npu"}
        : (memref<1x25x5x64xi8>, memref<1x25x5x64xi8>) -> ()
    memref.dealloc %act0 : memref<1x25x5x64xi8>
    %pooled = memref.alloc() : memref<1x64xi8>
    func.call @ethosu_avgpool(%act1, %pooled) {memplan.device = "npu"}
        : (memref<1x25x5x64xi8>, memref<1x64xi8>) -> ()
    memref.dealloc %act1 : memref<1x25x5x64xi8>

    // CPU: classifier accumulators (48 B), dequantized into the caller's buffer.
    %logits = memref.alloc() : memref<12xi32>
    func.call @fully_connected(%pooled, %logits) : (memref<1x64xi8>, memref<12xi32>) -> ()
    memref.dealloc %pooled : memref<1x64xi8>
    linalg.fill ins(%zero : f32) outs(%scores : memref<12xf32>)
    scf.for %i = %c0 to %c12 step %c1 {
      %v = memref.load %logits[%i] : memref<12xi32>
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %scores[%i] : memref<12xf32>
    }
    memref.dealloc %logits : memref<12xi32>

    // CPU: a window of the last 16 feature frames (16x640xf32 = 40 KiB) for smoothing.
    %history = memref.alloc() : memref<16x640xf32>
    %h0 = memref.load %history[%c0, %c0] : memref<16x640xf32>
    memref.store %h0, %scores[%c0] : memref<12xf32>
    memref.dealloc %history : memref<16x640xf32>
    return
  }
}
