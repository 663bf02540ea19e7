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
    %inserted_slice = tensor.insert_slice %arg1 into %k_cache[0, %9, 0, 0] [1, 1, 4, 64] [1, 1, 1, 1] : tensor<1x1x4x64xf32> into tensor<1x512x4x64xf32>
    %c1 = arith.constant 1 : index
    %10 = arith.addi %9, %c1 : index
    %extracted_slice = tensor.extract_slice %inserted_slice[0, 0, 0, 0] [1, %10, 4, 64] [1, 1, 1, 1] : tensor<1x512x4x64xf32> to tensor<1x?x4x64xf32>
    %11 = arith.addi %extracted, %c1_i64 : i64
    %12 = arith.index_cast %11 : i64 to index
    %13 = arith.cmpi slt, %12, %c0 : index
    %14 = arith.addi %12, %c512 : index
    %15 = arith.select %13, %14, %12 : index
    %16 = arith.cmpi slt, %15, %c0 : index
    %17 = arith.select %16, %c-1, %15 : index
    %18 = arith.minsi %17, %c512 : index
    %19 = arith.maxsi %18, %c0 : index
    util.global.store %inserted_slice, @k_cache : tensor<1x512x4x64xf32>
    return %extracted_slice : tensor<1x?x4x64xf32>
  }
}
