// Two caches appended in one step, concatenated along dim 0, held in ml_program globals.
// Their initial values differ on purpose: IREE 3.13 folds two mutable globals with equal
// initial values into one here (k and v then share storage, before and after memplan).
ml_program.global private mutable @k(dense<0.0> : tensor<16x4xf32>) : tensor<16x4xf32>
ml_program.global private mutable @v(dense<1.0> : tensor<16x4xf32>) : tensor<16x4xf32>
util.global private mutable @pos = 0 : index

func.func @step(%k_new: tensor<2x4xf32>, %v_new: tensor<2x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c2 = arith.constant 2 : index
  %p = util.global.load @pos : index
  %k = ml_program.global_load @k : tensor<16x4xf32>
  %v = ml_program.global_load @v : tensor<16x4xf32>
  %kp = tensor.extract_slice %k[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %vp = tensor.extract_slice %v[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %kc = tensor.concat dim(0) %kp, %k_new : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  %vc = tensor.concat dim(0) %vp, %v_new : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %c2, %p : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %ks = linalg.generic {indexing_maps = [affine_map<(s, d) -> (s, d)>, affine_map<(s, d) -> (d)>],
                        iterator_types = ["reduction", "parallel"]}
      ins(%kc : tensor<?x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %vs = linalg.generic {indexing_maps = [affine_map<(s, d) -> (s, d)>, affine_map<(s, d) -> (d)>],
                        iterator_types = ["reduction", "parallel"]}
      ins(%vc : tensor<?x4xf32>) outs(%f2 : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.maximumf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %k2 = tensor.insert_slice %kc into %k[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  %v2 = tensor.insert_slice %vc into %v[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  ml_program.global_store @k = %k2 : tensor<16x4xf32>
  ml_program.global_store @v = %v2 : tensor<16x4xf32>
  util.global.store %len, @pos : index
  return %ks, %vs : tensor<4xf32>, tensor<4xf32>
}
