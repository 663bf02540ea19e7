// The seed's tensor-level form: alloc_tensor of affine.min(72 - iv, 32) columns in a loop.
func.func @tile(%t: tensor<8x72xi32>) -> tensor<8x72xi32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %r = scf.for %iv = %c0 to %c72 step %c32 iter_args(%acc = %t) -> tensor<8x72xi32> {
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    %buf = bufferization.alloc_tensor(%sz) : tensor<8x?xi32>
    scf.yield %acc : tensor<8x72xi32>
  }
  return %r : tensor<8x72xi32>
}
