module @module {
  util.global private @__auto.layers.0.norm.weight = #flow.parameter.named<"model"::"layers.0.norm.weight"> : tensor<32xf32>
  util.global private @__auto.layers.0.norm.bias = #flow.parameter.named<"model"::"layers.0.norm.bias"> : tensor<32xf32>
  util.global private @__auto.layers.0.qkv.weight = #flow.parameter.named<"model"::"layers.0.qkv.weight"> : tensor<96x32xf32>
  util.global private @__auto.layers.0.qkv.bias = #flow.parameter.named<"model"::"layers.0.qkv.bias"> : tensor<96xf32>
  util.global private mutable @__auto.layers.0.k_cache = #flow.parameter.named<"model"::"layers.0.k_cache"> : tensor<1x16x2x16xf32>
  util.global private mutable @__auto.layers.0.v_cache = #flow.parameter.named<"model"::"layers.0.v_cache"> : tensor<1x16x2x16xf32>
  util.global private @__auto.layers.0.out.weight = #flow.parameter.named<"model"::"layers.0.out.weight"> : tensor<32x32xf32>
  util.global private @__auto.layers.0.out.bias = #flow.parameter.named<"model"::"layers.0.out.bias"> : tensor<32xf32>
  util.func public @main$async(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.fence, %arg3: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
    %c0 = arith.constant 0 : index
    %c1_i64 = arith.constant 1 : i64
    %c16_i64 = arith.constant 16 : i64
    %c0_i64 = arith.constant 0 : i64
    %c15_i64 = arith.constant 15 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %c-1 = arith.constant -1 : index
    %c16 = arith.constant 16 : index
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 9.99999974E-6 : f32
    %cst_2 = arith.constant 3.200000e+01 : f32
    %cst_3 = arith.constant 4.000000e+00 : f32
    %0 = hal.tensor.import wait(%arg2) => %arg0 : !hal.buffer_view -> tensor<1x32xf32>
    %1 = hal.tensor.import wait(%arg2) => %arg1 : !hal.buffer_view -> tensor<1xi64>
    %__auto.layers.0.norm.weight = util.global.load @__auto.layers.0.norm.weight : tensor<32xf32>
    %__auto.layers.0.norm.bias = util.global.load @__auto.layers.0.norm.bias : tensor<32xf32>
    %2 = tensor.empty() : tensor<1x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x1xf32>) -> tensor<1x1xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<1x32xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = arith.addf %in, %out : f32
      linalg.yield %80 : f32
    } -> tensor<1x1xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = arith.divf %in, %cst_2 : f32
      linalg.yield %80 : f32
    } -> tensor<1x1xf32>
    %6 = tensor.empty() : tensor<1x32xf32>
    %collapsed = tensor.collapse_shape %5 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x32xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %7 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.subf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x32xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %8 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.mulf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x32xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%9 : tensor<1x32xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = arith.addf %in, %out : f32
      linalg.yield %80 : f32
    } -> tensor<1x1xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = arith.divf %in, %cst_2 : f32
      linalg.yield %80 : f32
    } -> tensor<1x1xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = arith.addf %in, %cst_1 : f32
      linalg.yield %80 : f32
    } -> tensor<1x1xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = math.rsqrt %in : f32
      linalg.yield %80 : f32
    } -> tensor<1x1xf32>
    %collapsed_4 = tensor.collapse_shape %13 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x32xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %14 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.mulf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x32xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %__auto.layers.0.norm.weight : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.mulf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x32xf32>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16, %__auto.layers.0.norm.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.addf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x32xf32>
    %__auto.layers.0.qkv.weight = util.global.load @__auto.layers.0.qkv.weight : tensor<96x32xf32>
    %__auto.layers.0.qkv.bias = util.global.load @__auto.layers.0.qkv.bias : tensor<96xf32>
    %18 = tensor.empty() : tensor<32x96xf32>
    %transposed = linalg.transpose ins(%__auto.layers.0.qkv.weight : tensor<96x32xf32>) outs(%18 : tensor<32x96xf32>) permutation = [1, 0] 
    %19 = tensor.empty() : tensor<1x96xf32>
    %20 = linalg.fill ins(%cst : f32) outs(%19 : tensor<1x96xf32>) -> tensor<1x96xf32>
    %21 = linalg.matmul ins(%17, %transposed : tensor<1x32xf32>, tensor<32x96xf32>) outs(%20 : tensor<1x96xf32>) -> tensor<1x96xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%21, %__auto.layers.0.qkv.bias : tensor<1x96xf32>, tensor<96xf32>) outs(%19 : tensor<1x96xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.addf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x96xf32>
    %expanded = tensor.expand_shape %22 [[0], [1, 2, 3]] output_shape [1, 1, 6, 16] : tensor<1x96xf32> into tensor<1x1x6x16xf32>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 0, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted_slice_5 = tensor.extract_slice %expanded[0, 0, 2, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted_slice_6 = tensor.extract_slice %expanded[0, 0, 4, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted = tensor.extract %1[%c0] : tensor<1xi64>
    %23 = arith.cmpi sge, %extracted, %c0_i64 : i64
    cf.assert %23, "Runtime assertion failed for expression u0 >= 0 on node 'ge_1'"
    %24 = arith.cmpi sle, %extracted, %c15_i64 : i64
    cf.assert %24, "Runtime assertion failed for expression u0 <= 15 on node 'le_1'"
    %25 = arith.cmpi slt, %extracted, %c16_i64 : i64
    cf.assert %25, "Runtime assertion failed for expression u0 < 16 on node 'lt_1'"
    %collapsed_7 = tensor.collapse_shape %extracted_slice_5 [[0, 1, 2], [3]] : tensor<1x1x2x16xf32> into tensor<2x16xf32>
    %__auto.layers.0.k_cache = util.global.load @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %26 = tensor.empty() : tensor<16xi64>
    %27 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%26 : tensor<16xi64>) {
    ^bb0(%out: i64):
      %80 = linalg.index 0 : index
      %81 = arith.index_cast %80 : index to i64
      linalg.yield %81 : i64
    } -> tensor<16xi64>
    %28 = tensor.empty() : tensor<2xi64>
    %29 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%28 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %80 = linalg.index 0 : index
      %81 = arith.index_cast %80 : index to i64
      linalg.yield %81 : i64
    } -> tensor<2xi64>
    %30 = tensor.empty() : tensor<1xi64>
    %31 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%30 : tensor<1xi64>) {
    ^bb0(%out: i64):
      linalg.yield %c0_i64 : i64
    } -> tensor<1xi64>
    %32 = tensor.empty() : tensor<1x1x2x16xf32>
    %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_7 : tensor<2x16xf32>) outs(%32 : tensor<1x1x2x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x1x2x16xf32>
    %34 = tensor.empty() : tensor<1x1x2x16xi64>
    %expanded_8 = tensor.expand_shape %31 [[0, 1]] output_shape [1, 1] : tensor<1xi64> into tensor<1x1xi64>
    %35 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_8 : tensor<1x1xi64>) outs(%34 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<1x1x2x16xi64>
    %collapsed_9 = tensor.collapse_shape %35 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64>
    %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<1xi64>) outs(%34 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<1x1x2x16xi64>
    %collapsed_10 = tensor.collapse_shape %36 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64>
    %37 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29 : tensor<2xi64>) outs(%34 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<1x1x2x16xi64>
    %collapsed_11 = tensor.collapse_shape %37 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64>
    %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27 : tensor<16xi64>) outs(%34 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<1x1x2x16xi64>
    %collapsed_12 = tensor.collapse_shape %38 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64>
    %expanded_13 = tensor.expand_shape %collapsed_9 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64>
    %expanded_14 = tensor.expand_shape %collapsed_10 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64>
    %expanded_15 = tensor.expand_shape %collapsed_11 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64>
    %expanded_16 = tensor.expand_shape %collapsed_12 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64>
    %concat = tensor.concat dim(1) %expanded_13, %expanded_14, %expanded_15, %expanded_16 : (tensor<32x1xi64>, tensor<32x1xi64>, tensor<32x1xi64>, tensor<32x1xi64>) -> tensor<32x4xi64>
    %collapsed_17 = tensor.collapse_shape %33 [[0, 1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<32xf32>
    %39 = iree_linalg_ext.scatter dimension_map = [0, 1, 2, 3] unique_indices(true) ins(%collapsed_17, %concat : tensor<32xf32>, tensor<32x4xi64>) outs(%__auto.layers.0.k_cache : tensor<1x16x2x16xf32>) {
    ^bb0(%arg4: f32, %arg5: f32):
      iree_linalg_ext.yield %arg4 : f32
    } -> tensor<1x16x2x16xf32>
    util.global.store %39, @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %collapsed_18 = tensor.collapse_shape %extracted_slice_6 [[0, 1, 2], [3]] : tensor<1x1x2x16xf32> into tensor<2x16xf32>
    %__auto.layers.0.v_cache = util.global.load @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %40 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_18 : tensor<2x16xf32>) outs(%32 : tensor<1x1x2x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x1x2x16xf32>
    %collapsed_19 = tensor.collapse_shape %40 [[0, 1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<32xf32>
    %41 = iree_linalg_ext.scatter dimension_map = [0, 1, 2, 3] unique_indices(true) ins(%collapsed_19, %concat : tensor<32xf32>, tensor<32x4xi64>) outs(%__auto.layers.0.v_cache : tensor<1x16x2x16xf32>) {
    ^bb0(%arg4: f32, %arg5: f32):
      iree_linalg_ext.yield %arg4 : f32
    } -> tensor<1x16x2x16xf32>
    util.global.store %41, @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %42 = arith.addi %extracted, %c1_i64 : i64
    %43 = arith.index_cast %42 : i64 to index
    %44 = arith.cmpi slt, %43, %c0 : index
    %45 = arith.addi %43, %c16 : index
    %46 = arith.select %44, %45, %43 : index
    %47 = arith.cmpi slt, %46, %c0 : index
    %48 = arith.select %47, %c-1, %46 : index
    %49 = arith.minsi %48, %c16 : index
    %50 = arith.maxsi %49, %c0 : index
    %extracted_slice_20 = tensor.extract_slice %39[0, 0, 0, 0] [1, %50, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32>
    %51 = tensor.empty() : tensor<1x2x1x16xf32>
    %transposed_21 = linalg.transpose ins(%extracted_slice : tensor<1x1x2x16xf32>) outs(%51 : tensor<1x2x1x16xf32>) permutation = [0, 2, 1, 3] 
    %52 = tensor.empty(%50) : tensor<1x2x16x?xf32>
    %transposed_22 = linalg.transpose ins(%extracted_slice_20 : tensor<1x?x2x16xf32>) outs(%52 : tensor<1x2x16x?xf32>) permutation = [0, 2, 3, 1] 
    %collapsed_23 = tensor.collapse_shape %transposed_21 [[0, 1], [2], [3]] : tensor<1x2x1x16xf32> into tensor<2x1x16xf32>
    %collapsed_24 = tensor.collapse_shape %transposed_22 [[0, 1], [2], [3]] : tensor<1x2x16x?xf32> into tensor<2x16x?xf32>
    %53 = tensor.empty(%50) : tensor<2x1x?xf32>
    %54 = linalg.fill ins(%cst : f32) outs(%53 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
    %55 = linalg.batch_matmul ins(%collapsed_23, %collapsed_24 : tensor<2x1x16xf32>, tensor<2x16x?xf32>) outs(%54 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
    %expanded_25 = tensor.expand_shape %55 [[0, 1], [2], [3]] output_shape [1, 2, 1, %50] : tensor<2x1x?xf32> into tensor<1x2x1x?xf32>
    %56 = tensor.empty(%50) : tensor<1x2x1x?xf32>
    %57 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_25 : tensor<1x2x1x?xf32>) outs(%56 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = arith.divf %in, %cst_3 : f32
      linalg.yield %80 : f32
    } -> tensor<1x2x1x?xf32>
    %58 = tensor.empty() : tensor<1x2x1xi64>
    %59 = linalg.fill ins(%c0_i64 : i64) outs(%58 : tensor<1x2x1xi64>) -> tensor<1x2x1xi64>
    %60 = tensor.empty() : tensor<1x2x1xf32>
    %61 = linalg.fill ins(%cst_0 : f32) outs(%60 : tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
    %62:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%57 : tensor<1x2x1x?xf32>) outs(%61, %59 : tensor<1x2x1xf32>, tensor<1x2x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_35: i64):
      %80 = linalg.index 3 : index
      %81 = arith.index_cast %80 : index to i64
      %82 = arith.maximumf %in, %out : f32
      %83 = arith.cmpf ogt, %in, %out : f32
      %84 = arith.select %83, %81, %out_35 : i64
      linalg.yield %82, %84 : f32, i64
    } -> (tensor<1x2x1xf32>, tensor<1x2x1xi64>)
    %expanded_26 = tensor.expand_shape %62#0 [[0], [1], [2, 3]] output_shape [1, 2, 1, 1] : tensor<1x2x1xf32> into tensor<1x2x1x1xf32>
    %63 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%57, %expanded_26 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%56 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.subf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x2x1x?xf32>
    %64 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%63 : tensor<1x2x1x?xf32>) outs(%56 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = math.exp %in : f32
      linalg.yield %80 : f32
    } -> tensor<1x2x1x?xf32>
    %65 = tensor.empty() : tensor<1x2x1x1xf32>
    %66 = linalg.fill ins(%cst : f32) outs(%65 : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
    %67 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%64 : tensor<1x2x1x?xf32>) outs(%66 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %80 = arith.addf %in, %out : f32
      linalg.yield %80 : f32
    } -> tensor<1x2x1x1xf32>
    %68 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%64, %67 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%56 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.divf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x2x1x?xf32>
    %extracted_slice_27 = tensor.extract_slice %41[0, 0, 0, 0] [1, %50, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32>
    %69 = tensor.empty(%50) : tensor<1x2x?x16xf32>
    %transposed_28 = linalg.transpose ins(%extracted_slice_27 : tensor<1x?x2x16xf32>) outs(%69 : tensor<1x2x?x16xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_29 = tensor.collapse_shape %68 [[0, 1], [2], [3]] : tensor<1x2x1x?xf32> into tensor<2x1x?xf32>
    %collapsed_30 = tensor.collapse_shape %transposed_28 [[0, 1], [2], [3]] : tensor<1x2x?x16xf32> into tensor<2x?x16xf32>
    %70 = tensor.empty() : tensor<2x1x16xf32>
    %71 = linalg.fill ins(%cst : f32) outs(%70 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
    %72 = linalg.batch_matmul ins(%collapsed_29, %collapsed_30 : tensor<2x1x?xf32>, tensor<2x?x16xf32>) outs(%71 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
    %expanded_31 = tensor.expand_shape %72 [[0, 1], [2], [3]] output_shape [1, 2, 1, 16] : tensor<2x1x16xf32> into tensor<1x2x1x16xf32>
    %transposed_32 = linalg.transpose ins(%expanded_31 : tensor<1x2x1x16xf32>) outs(%32 : tensor<1x1x2x16xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_33 = tensor.collapse_shape %transposed_32 [[0], [1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<1x32xf32>
    %__auto.layers.0.out.weight = util.global.load @__auto.layers.0.out.weight : tensor<32x32xf32>
    %__auto.layers.0.out.bias = util.global.load @__auto.layers.0.out.bias : tensor<32xf32>
    %73 = tensor.empty() : tensor<32x32xf32>
    %transposed_34 = linalg.transpose ins(%__auto.layers.0.out.weight : tensor<32x32xf32>) outs(%73 : tensor<32x32xf32>) permutation = [1, 0] 
    %74 = linalg.fill ins(%cst : f32) outs(%6 : tensor<1x32xf32>) -> tensor<1x32xf32>
    %75 = linalg.matmul ins(%collapsed_33, %transposed_34 : tensor<1x32xf32>, tensor<32x32xf32>) outs(%74 : tensor<1x32xf32>) -> tensor<1x32xf32>
    %76 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%75, %__auto.layers.0.out.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.addf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x32xf32>
    %77 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %76 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_35: f32, %out: f32):
      %80 = arith.addf %in, %in_35 : f32
      linalg.yield %80 : f32
    } -> tensor<1x32xf32>
    %78 = hal.tensor.barrier join(%77 : tensor<1x32xf32>) => %arg3 : !hal.fence
    %79 = hal.tensor.export %78 : tensor<1x32xf32> -> !hal.buffer_view
    util.return %79 : !hal.buffer_view
  }
  util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
    %0 = util.null : !hal.fence
    %c-1_i32 = arith.constant -1 : i32
    %c0 = arith.constant 0 : index
    %device_0 = hal.devices.get %c0 : !hal.device
    %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence
    %1 = util.call @main$async(%arg0, %arg1, %0, %fence) : (!hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
    %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32
    util.return %1 : !hal.buffer_view
  }
}