module {
  func.func @four_tiles_in_turn() {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %alloc = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
    %alloc_0 = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
    %alloc_1 = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
    %alloc_2 = memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
    %0 = vector.transfer_read %alloc[%c0, %c0], %cst {in_bounds = [true, true]} : memref<64x256xf16, #gpu.address_space<workgroup>>, vector<64x256xf16>
    vector.transfer_write %0, %alloc_0[%c0, %c0] {in_bounds = [true, true]} : vector<64x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
    %1 = vector.transfer_read %alloc_0[%c0, %c0], %cst {in_bounds = [true, true]} : memref<64x256xf16, #gpu.address_space<workgroup>>, vector<64x256xf16>
    vector.transfer_write %1, %alloc_1[%c0, %c0] {in_bounds = [true, true]} : vector<64x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
    %2 = vector.transfer_read %alloc_1[%c0, %c0], %cst {in_bounds = [true, true]} : memref<64x256xf16, #gpu.address_space<workgroup>>, vector<64x256xf16>
    vector.transfer_write %2, %alloc_2[%c0, %c0] {in_bounds = [true, true]} : vector<64x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
    return
  }
}
