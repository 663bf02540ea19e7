// The prefix is also returned: after the rewrite it is read from the updated state.
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
util.global private mutable @pos = 1 : index
func.func @step(%new: tensor<1x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %p = util.global.load @pos : index
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  util.global.store %len, @pos : index
  return %cat, %prefix : tensor<?x4xf32>, tensor<?x4xf32>
}
