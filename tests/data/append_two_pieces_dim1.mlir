// Two pieces appended along the inner dimension of one util.global state.
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
util.global private mutable @pos = 0 : index
func.func @step(%a: tensor<4x1xf32>, %b: tensor<4x2xf32>) -> tensor<4xf32> {
  %c3 = arith.constant 3 : index
  %s = util.global.load @cache : tensor<4x16xf32>
  %p = util.global.load @pos : index
  %prefix = tensor.extract_slice %s[0, 0] [4, %p] [1, 1] : tensor<4x16xf32> to tensor<4x?xf32>
  %cat = tensor.concat dim(1) %prefix, %a, %b : (tensor<4x?xf32>, tensor<4x1xf32>, tensor<4x2xf32>) -> tensor<4x?xf32>
  %len = arith.addi %c3, %p : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [4, %len] [1, 1] : tensor<4x?xf32> into tensor<4x16xf32>
  util.global.store %upd, @cache : tensor<4x16xf32>
  util.global.store %len, @pos : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%cat : tensor<4x?xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.mulf %x, %x : f32
    %s2 = arith.addf %m, %acc : f32
    linalg.yield %s2 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
