#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @reduce_into_const(%arg0: tensor<4x32xi32>) -> tensor<32xi32> {
    %cst = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : tensor<32xi32>
    %0 = tensor.empty() : tensor<32xi32>
    %c0_i32 = arith.constant 0 : i32
    %1 = linalg.fill ins(%c0_i32 : i32) outs(%0 : tensor<32xi32>) -> tensor<32xi32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["reduction", "parallel"]} ins(%arg0, %cst : tensor<4x32xi32>, tensor<32xi32>) outs(%1 : tensor<32xi32>) {
    ^bb0(%in: i32, %in_0: i32, %out: i32):
      %c0 = arith.constant 0 : index
      %3 = linalg.index 0 : index
      %4 = arith.cmpi eq, %3, %c0 : index
      %5 = arith.select %4, %in_0, %out : i32
      %6 = arith.addi %in, %5 : i32
      linalg.yield %6 : i32
    } -> tensor<32xi32>
    return %2 : tensor<32xi32>
  }
}
