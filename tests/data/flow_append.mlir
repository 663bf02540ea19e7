// Seed 004 in IREE's flow form (as in iree-org/iree#16128): the context is built in a
// fresh buffer from the prefix of the state and the new row, written back whole, and
// read by the attention (here: a sum over the positions).
util.global private mutable @k_cache = dense<0.0> : tensor<1x16x2x4xf32>
util.global private mutable @pos = 0 : index
func.func @step(%k_new: tensor<1x1x2x4xf32>) -> tensor<1x2x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  %zero = arith.constant 0.0 : f32
  %p0 = util.global.load @pos : index
  %p = arith.minsi %p0, %c15 : index
  %n = arith.addi %p, %c1 : index
  %cache = util.global.load @k_cache : tensor<1x16x2x4xf32>
  %prefix = flow.tensor.slice %cache[%c0, %c0, %c0, %c0 for %c1, %p, %c2, %c4] : tensor<1x16x2x4xf32> -> tensor<1x?x2x4xf32>{%p}
  %empty = flow.tensor.empty : tensor<1x?x2x4xf32>{%n}
  %a = flow.tensor.update %prefix, %empty[%c0, %c0, %c0, %c0] : tensor<1x?x2x4xf32>{%p} -> %empty as tensor<1x?x2x4xf32>{%n}
  %ctx = flow.tensor.update %k_new, %a[%c0, %p, %c0, %c0] : tensor<1x1x2x4xf32> -> %a as tensor<1x?x2x4xf32>{%n}
  %upd = flow.tensor.update %ctx, %cache[%c0, %c0, %c0, %c0] : tensor<1x?x2x4xf32>{%n} -> %cache as tensor<1x16x2x4xf32>
  util.global.store %upd, @k_cache : tensor<1x16x2x4xf32>
  %init = tensor.empty() : tensor<1x2x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(b, s, h, d) -> (b, s, h, d)>,
                                          affine_map<(b, s, h, d) -> (b, h, d)>],
                         iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%ctx : tensor<1x?x2x4xf32>) outs(%acc : tensor<1x2x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4xf32>
  %next = arith.addi %p0, %c1 : index
  util.global.store %next, @pos : index
  return %sum : tensor<1x2x4xf32>
}
