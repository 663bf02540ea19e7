#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @matmul_i8_requant(%arg0: tensor<2304x24xi8>, %arg1: tensor<24x144xi8>, %arg2: tensor<144xi32>) -> tensor<2304x144xi8> {
    %c0_i32 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<2304x144xi32>
    %1 = linalg.fill ins(%c0_i32 : i32) outs(%0 : tensor<2304x144xi32>) -> tensor<2304x144xi32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<2304x24xi8>, tensor<24x144xi8>) outs(%1 : tensor<2304x144xi32>) -> tensor<2304x144xi32>
    %3 = tensor.empty() : tensor<2304x144xi8>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<2304x144xi32>, tensor<144xi32>) outs(%3 : tensor<2304x144xi8>) {
    ^bb0(%in: i32, %in_0: i32, %out: i8):
      %5 = arith.addi %in, %in_0 : i32
      %6 = arith.sitofp %5 : i32 to f32
      %cst = arith.constant 7.812500e-03 : f32
      %7 = arith.mulf %6, %cst : f32
      %8 = math.roundeven %7 : f32
      %cst_1 = arith.constant -1.280000e+02 : f32
      %cst_2 = arith.constant 1.270000e+02 : f32
      %9 = arith.maximumf %8, %cst_1 : f32
      %10 = arith.minimumf %9, %cst_2 : f32
      %11 = arith.fptosi %10 : f32 to i8
      linalg.yield %11 : i8
    } -> tensor<2304x144xi8>
    return %4 : tensor<2304x144xi8>
  }
}
