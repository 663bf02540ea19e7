// A chain of matmuls of unequal widths with a skip (the third result added to the last):
// IREE's greedy layout of its transients is above the bound (86,016 B against 81,920 B).
func.func @main(%x: tensor<16x256xf32>, %w0: tensor<256x64xf32>, %w1: tensor<64x1024xf32>, %w2: tensor<1024x256xf32>, %w3: tensor<256x512xf32>, %w4: tensor<512x256xf32>) -> tensor<16x256xf32> {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16x64xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m0 = linalg.matmul ins(%x, %w0 : tensor<16x256xf32>, tensor<256x64xf32>) outs(%f0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e1 = tensor.empty() : tensor<16x1024xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %m1 = linalg.matmul ins(%m0, %w1 : tensor<16x64xf32>, tensor<64x1024xf32>) outs(%f1 : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %e2 = tensor.empty() : tensor<16x256xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %m2 = linalg.matmul ins(%m1, %w2 : tensor<16x1024xf32>, tensor<1024x256xf32>) outs(%f2 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %e3 = tensor.empty() : tensor<16x512xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<16x512xf32>) -> tensor<16x512xf32>
  %m3 = linalg.matmul ins(%m2, %w3 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%f3 : tensor<16x512xf32>) -> tensor<16x512xf32>
  %e4 = tensor.empty() : tensor<16x256xf32>
  %f4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %m4 = linalg.matmul ins(%m3, %w4 : tensor<16x512xf32>, tensor<512x256xf32>) outs(%f4 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %o = tensor.empty() : tensor<16x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m4, %m2 : tensor<16x256xf32>, tensor<16x256xf32>) outs(%o : tensor<16x256xf32>) {
  ^bb0(%p: f32, %q: f32, %t: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<16x256xf32>
  return %r : tensor<16x256xf32>
}

