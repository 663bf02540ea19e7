// From IREE's trivial_reuse (compiler/src/iree/compiler/Codegen/LLVMGPU/test/reuse_shared_memory_allocs.mlir),
// with 32 KiB tiles: IREE's gpu-reuse-shared-memory-allocs leaves one 32 KiB buffer.
func.func @four_tiles_in_turn() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f16
  %t0 = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
  %t1 = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
  %t2 = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
  %t3 = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
  %r0 = vector.transfer_read %t0[%c0, %c0], %cst {in_bounds = [true, true]} : memref<64x256xf16, #gpu.address_space<workgroup>>, vector<64x256xf16>
  vector.transfer_write %r0, %t1[%c0, %c0] {in_bounds = [true, true]} : vector<64x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
  %r1 = vector.transfer_read %t1[%c0, %c0], %cst {in_bounds = [true, true]} : memref<64x256xf16, #gpu.address_space<workgroup>>, vector<64x256xf16>
  vector.transfer_write %r1, %t2[%c0, %c0] {in_bounds = [true, true]} : vector<64x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
  %r2 = vector.transfer_read %t2[%c0, %c0], %cst {in_bounds = [true, true]} : memref<64x256xf16, #gpu.address_space<workgroup>>, vector<64x256xf16>
  vector.transfer_write %r2, %t3[%c0, %c0] {in_bounds = [true, true]} : vector<64x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
  return
}
