// IREE's mobilenet_v2 (torchvision, random weights, exported with iree-turbine's
// aot.export) dispatch 12 for cuda sm_80, as IREE 3.13's GPU pipeline has it right after
// bufferization (`iree-compile --compile-mode=hal-executable --iree-hal-target-backends=cuda
// --iree-cuda-target=sm_80 --mlir-print-ir-after-all` on the dispatch dumped by
// `--iree-hal-dump-executable-sources-to`: the dump after ResolveShapedTypeResultDimsPass).
// The 64 B private accumulator %alloca is made in a `scf.forall` mapped to GPU threads and
// threaded through two `scf.for` iter_args. IREE distributes the forall to a per-thread
// `scf.for`, then hoists the alloca to the entry as memref<1x16xf32, private>.
func.func @main$async_dispatch_12_matmul_like_32x784x144_f32() attributes {gpu.known_block_size = array<i32: 32, 8, 1>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
  %c451584 = arith.constant 451584 : index
  %c8576 = arith.constant 8576 : index
  %c264896 = arith.constant 264896 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant dense_resource<torch_tensor_32_torch.float32_11> : tensor<32xf32>
  %cst_0 = arith.constant dense_resource<torch_tensor_32_torch.float32_10> : tensor<32xf32>
  %cst_1 = arith.constant dense<0.000000e+00> : vector<1x16xf32>
  %0 = ub.poison : f32
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c144 = arith.constant 144 : index
  %cst_2 = arith.constant dense_resource<torch_tensor_32_torch.float32_8> : tensor<32xf32>
  %1 = bufferization.to_buffer %cst_2 read_only : tensor<32xf32> to memref<32xf32, #gpu.address_space<constant>>
  %2 = bufferization.to_buffer %cst_0 read_only : tensor<32xf32> to memref<32xf32, #gpu.address_space<constant>>
  %3 = bufferization.to_buffer %cst read_only : tensor<32xf32> to memref<32xf32, #gpu.address_space<constant>>
  %4 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c0) flags("ReadOnly|Indirect") : memref<144x784xf32, #hal.descriptor_type<storage_buffer>>
  %assume_align = memref.assume_alignment %4, 64 : memref<144x784xf32, #hal.descriptor_type<storage_buffer>>
  %5 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c264896) flags(ReadOnly) : memref<32x144xf32, strided<[144, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  %assume_align_3 = memref.assume_alignment %5, 64 : memref<32x144xf32, strided<[144, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  %6 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c8576) flags(ReadOnly) : memref<32xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  %assume_align_4 = memref.assume_alignment %6, 64 : memref<32xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  %7 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c451584) flags(Indirect) : memref<32x784xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  %assume_align_5 = memref.assume_alignment %7, 64 : memref<32x784xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  scf.forall (%arg0) in (7) {
    %8 = affine.apply affine_map<(d0) -> (d0 * 128)>(%arg0)
    %9 = affine.min affine_map<(d0) -> (d0 * -128 + 784, 128)>(%arg0)
    %subview = memref.subview %assume_align_5[0, %8] [32, %9] [1, 1] : memref<32x784xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<32x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
    %10 = affine.apply affine_map<(d0) -> (d0 ceildiv 16)>(%9)
    scf.forall (%arg1, %arg2) in (32, %10) {
      %11 = affine.min affine_map<(d0)[s0] -> (d0 * -16 + s0, 16)>(%arg2)[%9]
      %alloca = memref.alloca(%11) : memref<1x?xf32, #gpu.address_space<private>>
      %12 = vector.create_mask %c1, %11 : vector<1x16xi1>
      vector.transfer_write %cst_1, %alloca[%c0, %c0], %12 {in_bounds = [true, true]} : vector<1x16xf32>, memref<1x?xf32, #gpu.address_space<private>>
      %13 = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1 * 128)>(%arg2, %arg0)
      %14 = scf.for %arg3 = %c0 to %c144 step %c16 iter_args(%arg4 = %alloca) -> (memref<1x?xf32, #gpu.address_space<private>>) {
        %17 = scf.for %arg5 = %c0 to %11 step %c1 iter_args(%arg6 = %arg4) -> (memref<1x?xf32, #gpu.address_space<private>>) {
          %18 = arith.addi %arg5, %13 : index
          %19 = vector.transfer_read %assume_align[%arg3, %18], %0 {in_bounds = [true, true]} : memref<144x784xf32, #hal.descriptor_type<storage_buffer>>, vector<16x1xf32>
          %20 = vector.transfer_read %assume_align_3[%arg1, %arg3], %0 {in_bounds = [true, true]} : memref<32x144xf32, strided<[144, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>, vector<1x16xf32>
          %21 = vector.transfer_read %arg6[%c0, %arg5], %0 {in_bounds = [true, true]} : memref<1x?xf32, #gpu.address_space<private>>, vector<1x1xf32>
          %22 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %19, %20, %21 : vector<16x1xf32>, vector<1x16xf32> into vector<1x1xf32>
          vector.transfer_write %22, %arg6[%c0, %arg5] {in_bounds = [true, true]} : vector<1x1xf32>, memref<1x?xf32, #gpu.address_space<private>>
          scf.yield %arg6 : memref<1x?xf32, #gpu.address_space<private>>
        }
        scf.yield %17 : memref<1x?xf32, #gpu.address_space<private>>
      }
      %15 = affine.apply affine_map<(d0) -> (d0 * 16)>(%arg2)
      %subview_7 = memref.subview %subview[%arg1, %15] [1, %11] [1, 1] : memref<32x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<1x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
      %dim = memref.dim %14, %c1 : memref<1x?xf32, #gpu.address_space<private>>
      %16 = scf.for %arg3 = %c0 to %dim step %c1 iter_args(%arg4 = %subview_7) -> (memref<1x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>) {
        %17 = vector.transfer_read %14[%c0, %arg3], %0 {in_bounds = [true, true]} : memref<1x?xf32, #gpu.address_space<private>>, vector<1x1xf32>
        %18 = vector.transfer_read %1[%arg1], %0 {in_bounds = [true]} : memref<32xf32, #gpu.address_space<constant>>, vector<1xf32>
        %19 = vector.shape_cast %18 : vector<1xf32> to vector<1x1xf32>
        %20 = vector.transfer_read %assume_align_4[%arg1], %0 {in_bounds = [true]} : memref<32xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>, vector<1xf32>
        %21 = vector.shape_cast %20 : vector<1xf32> to vector<1x1xf32>
        %22 = vector.transfer_read %2[%arg1], %0 {in_bounds = [true]} : memref<32xf32, #gpu.address_space<constant>>, vector<1xf32>
        %23 = vector.shape_cast %22 : vector<1xf32> to vector<1x1xf32>
        %24 = vector.transfer_read %3[%arg1], %0 {in_bounds = [true]} : memref<32xf32, #gpu.address_space<constant>>, vector<1xf32>
        %25 = vector.shape_cast %24 : vector<1xf32> to vector<1x1xf32>
        %26 = arith.subf %17, %19 : vector<1x1xf32>
        %27 = arith.mulf %26, %21 : vector<1x1xf32>
        %28 = arith.mulf %27, %23 : vector<1x1xf32>
        %29 = arith.addf %28, %25 : vector<1x1xf32>
        vector.transfer_write %29, %arg4[%c0, %arg3] {in_bounds = [true, true]} : vector<1x1xf32>, memref<1x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
        scf.yield %arg4 : memref<1x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
      }
      %subview_8 = memref.subview %subview[%arg1, %15] [1, %11] [1, 1] : memref<32x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<1x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
      memref.copy %16, %subview_8 : memref<1x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<1x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
    } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
    %subview_6 = memref.subview %assume_align_5[0, %8] [32, %9] [1, 1] : memref<32x784xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<32x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
    memref.copy %subview, %subview_6 : memref<32x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<32x?xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  } {mapping = [#iree_codegen.workgroup_mapping<x>]}
  memref.copy %assume_align_5, %assume_align_5 : memref<32x784xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<32x784xf32, strided<[784, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
  return
}
