#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @splat_outs(%arg0: tensor<128x64xf32>, %arg1: tensor<64x256xf32>) -> tensor<128x256xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<128x256xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x256xf32>) -> tensor<128x256xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<128x64xf32>, tensor<64x256xf32>) outs(%1 : tensor<128x256xf32>) -> tensor<128x256xf32>
    return %2 : tensor<128x256xf32>
  }
  func.func @splat_outs_reduction(%arg0: tensor<512x1024xf32>) -> tensor<512xf32> {
    %cst = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<512xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<512xf32>) -> tensor<512xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<512x1024xf32>) outs(%1 : tensor<512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %3 = arith.addf %in, %out : f32
      linalg.yield %3 : f32
    } -> tensor<512xf32>
    return %2 : tensor<512xf32>
  }
  func.func @nonsplat_outs(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {
    %cst = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
    %0 = tensor.empty() : tensor<4xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0, %cst : tensor<4x8xf32>, tensor<4xf32>) outs(%1 : tensor<4xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %c0 = arith.constant 0 : index
      %3 = linalg.index 1 : index
      %4 = arith.cmpi eq, %3, %c0 : index
      %5 = arith.select %4, %in_1, %out : f32
      %6 = arith.addf %in, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func @nonsplat_outs_big(%arg0: tensor<1024x64xf32>) -> tensor<1024xf32> {
    %0 = util.unfoldable_constant 2.000000e+00 : f32
    %1 = tensor.empty() : tensor<1024xf32>
    %2 = linalg.fill ins(%0 : f32) outs(%1 : tensor<1024xf32>) -> tensor<1024xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1024x64xf32>) outs(%2 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = arith.addf %in, %out : f32
      linalg.yield %4 : f32
    } -> tensor<1024xf32>
    return %3 : tensor<1024xf32>
  }
}
