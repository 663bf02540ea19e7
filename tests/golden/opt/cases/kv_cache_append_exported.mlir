module {
  util.global private mutable @k_cache = dense<0.000000e+00> : tensor<1x512x4x64xf32>
  func.func @step(%arg0: tensor<1xi64>, %arg1: tensor<1x1x4x64xf32>) -> tensor<1x?x4x64xf32> {
    %c0 = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    %c-1 = arith.constant -1 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c511_i64 = arith.constant 511 : i64
    %extracted = tensor.extract %arg0[%c0] : tensor<1xi64>
    %0 = arith.cmpi sge, %extracted, %c0_i64 : i64
    cf.assert %0, "Runtime assertion failed for expression u0 >= 0"
    %1 = arith.cmpi sle, %extracted, %c511_i64 : i64
    cf.assert %1, "Runtime assertion failed for expression u0 <= 511"
    %k_cache = util.global.load @k_cache : tensor<1x512x4x64xf32>
    %2 = arith.index_cast %extracted : i64 to index
    %3 = arith.cmpi slt, %2, %c0 : index
    %4 = arith.addi %2, %c512 : index
    %5 = arith.select %3, %4, %2 : index
    %6 = arith.cmpi slt, %5, %c0 : index
    %7 = arith.select %6, %c-1, %5 : index
    %8 = arith.minsi %7, %c512 : index
    %9 = arith.maxsi %8, %c0 : index
    %extracted_slice = tensor.extract_slice %k_cache[0, 0, 0, 0] [1, %9, 4, 64] [1, 1, 1, 1] : tensor<1x512x4x64xf32> to tensor<1x?x4x64xf32>
    %concat = tensor.concat dim(1) %extracted_slice, %arg1 : (tensor<1x?x4x64xf32>, tensor<1x1x4x64xf32>) -> tensor<1x?x4x64xf32>
    %10 = arith.addi %extracted, %c1_i64 : i64
    %11 = arith.index_cast %10 : i64 to index
    %12 = arith.cmpi slt, %11, %c0 : index
    %13 = arith.addi %11, %c512 : index
    %14 = arith.select %12, %13, %11 : index
    %15 = arith.cmpi slt, %14, %c0 : index
    %16 = arith.select %15, %c-1, %14 : index
    %17 = arith.minsi %16, %c512 : index
    %18 = arith.maxsi %17, %c0 : index
    %inserted_slice = tensor.insert_slice %concat into %k_cache[0, 0, 0, 0] [1, %18, 4, 64] [1, 1, 1, 1] : tensor<1x?x4x64xf32> into tensor<1x512x4x64xf32>
    util.global.store %inserted_slice, @k_cache : tensor<1x512x4x64xf32>
    return %concat : tensor<1x?x4x64xf32>
  }
}
