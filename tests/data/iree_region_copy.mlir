
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<5x16xf32> {
  %cst = arith.constant dense<[0.0, 1.75, 0.25, 2.0, 0.5, 2.25, 0.75, 2.5, 1.0, 2.75, 1.25, 3.0, 1.5, 0.0, 1.75, 0.25, 2.0, 0.5, 2.25, 0.75, 2.5, 1.0, 2.75, 1.25, 3.0, 1.5, 0.0, 1.75, 0.25, 2.0, 0.5, 2.25, 0.75, 2.5, 1.0, 2.75, 1.25, 3.0, 1.5, 0.0, 1.75, 0.25, 2.0, 0.5, 2.25, 0.75, 2.5, 1.0, 2.75, 1.25, 3.0, 1.5, 0.0, 1.75, 0.25, 2.0, 0.5, 2.25, 0.75, 2.5, 1.0, 2.75, 1.25, 3.0, 1.5, 0.0, 1.75, 0.25, 2.0, 0.5, 2.25, 0.75, 2.5, 1.0, 2.75, 1.25, 3.0, 1.5, 0.0, 1.75]> : tensor<80xf32>
  %c = tensor.expand_shape %cst [[0, 1]] output_shape [5, 16] : tensor<80xf32> into tensor<5x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  %ins = tensor.insert_slice %y into %c[1, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<5x16xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<5x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<5x16xf32>) -> tensor<5x16xf32>
  %m1 = linalg.matmul ins(%ins, %w : tensor<5x16xf32>, tensor<16x16xf32>) outs(%f : tensor<5x16xf32>) -> tensor<5x16xf32>
  %e3 = tensor.empty() : tensor<5x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m1 : tensor<5x16xf32>) outs(%e3 : tensor<5x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = math.tanh %a : f32
    linalg.yield %m : f32
  } -> tensor<5x16xf32>
  %m2 = linalg.matmul ins(%t, %w : tensor<5x16xf32>, tensor<16x16xf32>) outs(%f : tensor<5x16xf32>) -> tensor<5x16xf32>
  %e4 = tensor.empty() : tensor<5x16xf32>
  %t2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<5x16xf32>) outs(%e4 : tensor<5x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = math.tanh %a : f32
    linalg.yield %m : f32
  } -> tensor<5x16xf32>
  %m3 = linalg.matmul ins(%t2, %w : tensor<5x16xf32>, tensor<16x16xf32>) outs(%f : tensor<5x16xf32>) -> tensor<5x16xf32>
  return %m3 : tensor<5x16xf32>
}
