#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
module {
  util.global private mutable @k_cache = dense<0.000000e+00> : tensor<1x512x8x64xf32>
  util.global private mutable @seq_step = 0 : index
  func.func @append_concat(%arg0: tensor<1x1x8x64xf32>) -> tensor<1x8x64xf32> {
    %c1 = arith.constant 1 : index
    %k_cache = util.global.load @k_cache : tensor<1x512x8x64xf32>
    %seq_step = util.global.load @seq_step : index
    %inserted_slice = tensor.insert_slice %arg0 into %k_cache[0, %seq_step, 0, 0] [1, 1, 8, 64] [1, 1, 1, 1] : tensor<1x1x8x64xf32> into tensor<1x512x8x64xf32>
    %c1_0 = arith.constant 1 : index
    %0 = arith.addi %seq_step, %c1_0 : index
    %extracted_slice = tensor.extract_slice %inserted_slice[0, 0, 0, 0] [1, %0, 8, 64] [1, 1, 1, 1] : tensor<1x512x8x64xf32> to tensor<1x?x8x64xf32>
    %1 = arith.addi %seq_step, %c1 : index
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x8x64xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%extracted_slice : tensor<1x?x8x64xf32>) outs(%3 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = arith.addf %in, %out : f32
      linalg.yield %5 : f32
    } -> tensor<1x8x64xf32>
    util.global.store %inserted_slice, @k_cache : tensor<1x512x8x64xf32>
    util.global.store %1, @seq_step : index
    return %4 : tensor<1x8x64xf32>
  }
  func.func @append_insert_slice(%arg0: tensor<1x1x8x64xf32>) -> tensor<1x8x64xf32> {
    %c1 = arith.constant 1 : index
    %k_cache = util.global.load @k_cache : tensor<1x512x8x64xf32>
    %seq_step = util.global.load @seq_step : index
    %inserted_slice = tensor.insert_slice %arg0 into %k_cache[0, %seq_step, 0, 0] [1, 1, 8, 64] [1, 1, 1, 1] : tensor<1x1x8x64xf32> into tensor<1x512x8x64xf32>
    %0 = arith.addi %seq_step, %c1 : index
    %extracted_slice = tensor.extract_slice %inserted_slice[0, 0, 0, 0] [1, %0, 8, 64] [1, 1, 1, 1] : tensor<1x512x8x64xf32> to tensor<1x?x8x64xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %1 = tensor.empty() : tensor<1x8x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%extracted_slice : tensor<1x?x8x64xf32>) outs(%2 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = arith.addf %in, %out : f32
      linalg.yield %4 : f32
    } -> tensor<1x8x64xf32>
    util.global.store %inserted_slice, @k_cache : tensor<1x512x8x64xf32>
    util.global.store %0, @seq_step : index
    return %3 : tensor<1x8x64xf32>
  }
}
