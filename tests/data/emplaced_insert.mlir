// A dispatch result inserted into a state: IREE writes it in place (no copy).
util.global private mutable @cache = dense<0.0> : tensor<16x64xf32>
util.global private mutable @pos = 0 : index
func.func @step(%x: tensor<1x64xf32>) {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x64xf32>
  %p = util.global.load @pos : index
  %e = tensor.empty() : tensor<1x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x64xf32>
  %upd = tensor.insert_slice %y into %s[%p, 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<16x64xf32>
  util.global.store %upd, @cache : tensor<16x64xf32>
  %len = arith.addi %p, %c1 : index
  util.global.store %len, @pos : index
  return
}
