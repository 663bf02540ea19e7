// An immutable util.global (a constant by another name) as the init of a row sum.
util.global private @bias = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
func.func @f(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %b = util.global.load @bias : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
