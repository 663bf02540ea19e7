// An export-like module (iree-turbine's aot.export with inline weights, externalize_params=False,
// writes its parameters as `dense_resource` blobs in a `{-# dialect_resources #-}` section after
// the module): a state append (concat + write-back) scaled by a 4-float weight.
module @module {
  util.global private @__auto.scale = dense_resource<__auto.scale> : tensor<4xf32>
  util.global private mutable @__auto.cache = dense<0.0> : tensor<16x4xf32>
  util.global private mutable @__auto.pos = 0 : index
  func.func @step(%new: tensor<1x4xf32>) -> tensor<?x4xf32> {
    %c1 = arith.constant 1 : index
    %w = util.global.load @__auto.scale : tensor<4xf32>
    %e = tensor.empty() : tensor<1x4xf32>
    %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%new, %w : tensor<1x4xf32>, tensor<4xf32>) outs(%e : tensor<1x4xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %m = arith.mulf %a, %b : f32
      linalg.yield %m : f32
    } -> tensor<1x4xf32>
    %s = util.global.load @__auto.cache : tensor<16x4xf32>
    %p = util.global.load @__auto.pos : index
    %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
    %cat = tensor.concat dim(0) %prefix, %scaled : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
    %len = arith.addi %p, %c1 : index
    %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
    util.global.store %upd, @__auto.cache : tensor<16x4xf32>
    util.global.store %len, @__auto.pos : index
    return %cat : tensor<?x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      __auto.scale: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
