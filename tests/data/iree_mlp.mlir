func.func @main(%x: tensor<64x256xf32>, %w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>, %w3: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x256xf32>, tensor<256x512xf32>) outs(%f1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m2 = linalg.matmul ins(%m1, %w2 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e3 = tensor.empty() : tensor<64x256xf32>
  %f3 = linalg.fill ins(%c0 : f32) outs(%e3 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %m3 = linalg.matmul ins(%m2, %w3 : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f3 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = arith.addf %m3, %x : tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
