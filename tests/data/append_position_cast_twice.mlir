// The position is an i64 global cast to index twice (as front ends emit it).
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
util.global private mutable @step = 0 : i64
func.func @f(%new: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %i = util.global.load @step : i64
  %p = arith.index_cast %i : i64 to index
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %p2 = arith.index_cast %i : i64 to index
  %len = arith.addi %p2, %c1 : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  %c1_i64 = arith.constant 1 : i64
  %n = arith.addi %i, %c1_i64 : i64
  util.global.store %n, @step : i64
  return %cat : tensor<?x4xf32>
}
