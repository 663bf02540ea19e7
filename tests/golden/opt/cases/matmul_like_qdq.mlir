#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @matmul_like_qdq(%arg0: tensor<128x64xi8>, %arg1: tensor<64x3136xi8>, %arg2: tensor<128xf32>) -> tensor<128x3136xf32> {
    %cst = arith.constant 6.250000e-02 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<128x64xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<128x64xi8>) outs(%0 : tensor<128x64xf32>) {
    ^bb0(%in: i8, %out: f32):
      %9 = arith.sitofp %in : i8 to f32
      %10 = arith.mulf %9, %cst : f32
      linalg.yield %10 : f32
    } -> tensor<128x64xf32>
    %2 = tensor.empty() : tensor<64x3136xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<64x3136xi8>) outs(%2 : tensor<64x3136xf32>) {
    ^bb0(%in: i8, %out: f32):
      %9 = arith.sitofp %in : i8 to f32
      %10 = arith.mulf %9, %cst : f32
      linalg.yield %10 : f32
    } -> tensor<64x3136xf32>
    %4 = tensor.empty() : tensor<128x3136xf32>
    %5 = linalg.fill ins(%cst_0 : f32) outs(%4 : tensor<128x3136xf32>) -> tensor<128x3136xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1, %3 : tensor<128x64xf32>, tensor<64x3136xf32>) outs(%5 : tensor<128x3136xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %9 = arith.mulf %in, %in_1 : f32
      %10 = arith.addf %out, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<128x3136xf32>
    %7 = tensor.empty() : tensor<128x3136xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %arg2 : tensor<128x3136xf32>, tensor<128xf32>) outs(%7 : tensor<128x3136xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %9 = arith.addf %in, %in_1 : f32
      %10 = arith.divf %9, %cst : f32
      %11 = math.roundeven %10 : f32
      %cst_2 = arith.constant -1.280000e+02 : f32
      %cst_3 = arith.constant 1.270000e+02 : f32
      %12 = arith.maximumf %11, %cst_2 : f32
      %13 = arith.minimumf %12, %cst_3 : f32
      %14 = arith.fptosi %13 : f32 to i8
      %15 = arith.sitofp %14 : i8 to f32
      %16 = arith.mulf %15, %cst : f32
      linalg.yield %16 : f32
    } -> tensor<128x3136xf32>
    return %8 : tensor<128x3136xf32>
  }
}
