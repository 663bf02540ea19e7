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
      %70 = arith.addf %in, %out : f32
      linalg.yield %70 : f32
    } -> tensor<1x1xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.divf %in, %cst_2 : f32
      linalg.yield %70 : f32
    } -> tensor<1x1xf32>
    %6 = tensor.empty() : tensor<1x32xf32>
    %collapsed = tensor.collapse_shape %5 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x32xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %7 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.subf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x32xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %8 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.mulf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x32xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%9 : tensor<1x32xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.addf %in, %out : f32
      linalg.yield %70 : f32
    } -> tensor<1x1xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.divf %in, %cst_2 : f32
      linalg.yield %70 : f32
    } -> tensor<1x1xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.addf %in, %cst_1 : f32
      linalg.yield %70 : f32
    } -> tensor<1x1xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.rsqrt %in : f32
      linalg.yield %70 : f32
    } -> tensor<1x1xf32>
    %collapsed_4 = tensor.collapse_shape %13 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x32xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %14 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.mulf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x32xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %__auto.layers.0.norm.weight : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.mulf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x32xf32>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16, %__auto.layers.0.norm.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.addf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x32xf32>
    %__auto.layers.0.qkv.weight = util.global.load @__auto.layers.0.qkv.weight : tensor<96x32xf32>
    %__auto.layers.0.qkv.bias = util.global.load @__auto.layers.0.qkv.bias : tensor<96xf32>
    %18 = tensor.empty() : tensor<32x96xf32>
    %transposed = linalg.transpose ins(%__auto.layers.0.qkv.weight : tensor<96x32xf32>) outs(%18 : tensor<32x96xf32>) permutation = [1, 0] 
    %19 = tensor.empty() : tensor<1x96xf32>
    %20 = linalg.fill ins(%cst : f32) outs(%19 : tensor<1x96xf32>) -> tensor<1x96xf32>
    %21 = linalg.matmul ins(%17, %transposed : tensor<1x32xf32>, tensor<32x96xf32>) outs(%20 : tensor<1x96xf32>) -> tensor<1x96xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%21, %__auto.layers.0.qkv.bias : tensor<1x96xf32>, tensor<96xf32>) outs(%19 : tensor<1x96xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.addf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x96xf32>
    %expanded = tensor.expand_shape %22 [[0], [1, 2, 3]] output_shape [1, 1, 6, 16] : tensor<1x96xf32> into tensor<1x1x6x16xf32>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 0, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted_slice_5 = tensor.extract_slice %expanded[0, 0, 2, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted_slice_6 = tensor.extract_slice %expanded[0, 0, 4, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted = tensor.extract %1[%c0] : tensor<1xi64>
    %23 = arith.cmpi sge, %extracted, %c0_i64 : i64
    cf.assert %23, "Runtime assertion failed for expression u0 >= 0 on node 'ge_3'"
    %24 = arith.cmpi sle, %extracted, %c15_i64 : i64
    cf.assert %24, "Runtime assertion failed for expression u0 <= 15 on node 'le_1'"
    %25 = arith.cmpi slt, %extracted, %c16_i64 : i64
    cf.assert %25, "Runtime assertion failed for expression u0 < 16 on node 'lt_1'"
    %26 = arith.addi %extracted, %c1_i64 : i64
    %__auto.layers.0.k_cache = util.global.load @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %27 = arith.addi %extracted, %c16_i64 : i64
    %28 = arith.select %23, %extracted, %27 : i64
    %29 = arith.maxsi %28, %c0_i64 : i64
    %30 = arith.minsi %29, %c16_i64 : i64
    %31 = arith.index_cast %30 : i64 to index
    %32 = arith.index_cast %26 : i64 to index
    %33 = arith.cmpi slt, %32, %c0 : index
    %34 = arith.addi %32, %c16 : index
    %35 = arith.select %33, %34, %32 : index
    %36 = arith.cmpi slt, %35, %c0 : index
    %37 = arith.select %36, %c-1, %35 : index
    %38 = arith.minsi %37, %c16 : index
    %inserted_slice = tensor.insert_slice %extracted_slice_5 into %__auto.layers.0.k_cache[0, %31, 0, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x2x16xf32> into tensor<1x16x2x16xf32>
    util.global.store %inserted_slice, @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %__auto.layers.0.v_cache = util.global.load @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %inserted_slice_7 = tensor.insert_slice %extracted_slice_6 into %__auto.layers.0.v_cache[0, %31, 0, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x2x16xf32> into tensor<1x16x2x16xf32>
    util.global.store %inserted_slice_7, @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %39 = arith.maxsi %38, %c0 : index
    %extracted_slice_8 = tensor.extract_slice %inserted_slice[0, 0, 0, 0] [1, %39, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32>
    %40 = tensor.empty() : tensor<1x2x1x16xf32>
    %transposed_9 = linalg.transpose ins(%extracted_slice : tensor<1x1x2x16xf32>) outs(%40 : tensor<1x2x1x16xf32>) permutation = [0, 2, 1, 3] 
    %41 = tensor.empty(%39) : tensor<1x2x16x?xf32>
    %transposed_10 = linalg.transpose ins(%extracted_slice_8 : tensor<1x?x2x16xf32>) outs(%41 : tensor<1x2x16x?xf32>) permutation = [0, 2, 3, 1] 
    %collapsed_11 = tensor.collapse_shape %transposed_9 [[0, 1], [2], [3]] : tensor<1x2x1x16xf32> into tensor<2x1x16xf32>
    %collapsed_12 = tensor.collapse_shape %transposed_10 [[0, 1], [2], [3]] : tensor<1x2x16x?xf32> into tensor<2x16x?xf32>
    %42 = tensor.empty(%39) : tensor<2x1x?xf32>
    %43 = linalg.fill ins(%cst : f32) outs(%42 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
    %44 = linalg.batch_matmul ins(%collapsed_11, %collapsed_12 : tensor<2x1x16xf32>, tensor<2x16x?xf32>) outs(%43 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
    %expanded_13 = tensor.expand_shape %44 [[0, 1], [2], [3]] output_shape [1, 2, 1, %39] : tensor<2x1x?xf32> into tensor<1x2x1x?xf32>
    %45 = tensor.empty(%39) : tensor<1x2x1x?xf32>
    %46 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_13 : tensor<1x2x1x?xf32>) outs(%45 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.divf %in, %cst_3 : f32
      linalg.yield %70 : f32
    } -> tensor<1x2x1x?xf32>
    %47 = tensor.empty() : tensor<1x2x1xi64>
    %48 = linalg.fill ins(%c0_i64 : i64) outs(%47 : tensor<1x2x1xi64>) -> tensor<1x2x1xi64>
    %49 = tensor.empty() : tensor<1x2x1xf32>
    %50 = linalg.fill ins(%cst_0 : f32) outs(%49 : tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
    %51:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%46 : tensor<1x2x1x?xf32>) outs(%50, %48 : tensor<1x2x1xf32>, tensor<1x2x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_23: i64):
      %70 = linalg.index 3 : index
      %71 = arith.index_cast %70 : index to i64
      %72 = arith.maximumf %in, %out : f32
      %73 = arith.cmpf ogt, %in, %out : f32
      %74 = arith.select %73, %71, %out_23 : i64
      linalg.yield %72, %74 : f32, i64
    } -> (tensor<1x2x1xf32>, tensor<1x2x1xi64>)
    %expanded_14 = tensor.expand_shape %51#0 [[0], [1], [2, 3]] output_shape [1, 2, 1, 1] : tensor<1x2x1xf32> into tensor<1x2x1x1xf32>
    %52 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%46, %expanded_14 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%45 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.subf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x2x1x?xf32>
    %53 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%52 : tensor<1x2x1x?xf32>) outs(%45 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.exp %in : f32
      linalg.yield %70 : f32
    } -> tensor<1x2x1x?xf32>
    %54 = tensor.empty() : tensor<1x2x1x1xf32>
    %55 = linalg.fill ins(%cst : f32) outs(%54 : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
    %56 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%53 : tensor<1x2x1x?xf32>) outs(%55 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.addf %in, %out : f32
      linalg.yield %70 : f32
    } -> tensor<1x2x1x1xf32>
    %57 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%53, %56 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%45 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.divf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x2x1x?xf32>
    %extracted_slice_15 = tensor.extract_slice %inserted_slice_7[0, 0, 0, 0] [1, %39, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32>
    %58 = tensor.empty(%39) : tensor<1x2x?x16xf32>
    %transposed_16 = linalg.transpose ins(%extracted_slice_15 : tensor<1x?x2x16xf32>) outs(%58 : tensor<1x2x?x16xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_17 = tensor.collapse_shape %57 [[0, 1], [2], [3]] : tensor<1x2x1x?xf32> into tensor<2x1x?xf32>
    %collapsed_18 = tensor.collapse_shape %transposed_16 [[0, 1], [2], [3]] : tensor<1x2x?x16xf32> into tensor<2x?x16xf32>
    %59 = tensor.empty() : tensor<2x1x16xf32>
    %60 = linalg.fill ins(%cst : f32) outs(%59 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
    %61 = linalg.batch_matmul ins(%collapsed_17, %collapsed_18 : tensor<2x1x?xf32>, tensor<2x?x16xf32>) outs(%60 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
    %expanded_19 = tensor.expand_shape %61 [[0, 1], [2], [3]] output_shape [1, 2, 1, 16] : tensor<2x1x16xf32> into tensor<1x2x1x16xf32>
    %62 = tensor.empty() : tensor<1x1x2x16xf32>
    %transposed_20 = linalg.transpose ins(%expanded_19 : tensor<1x2x1x16xf32>) outs(%62 : tensor<1x1x2x16xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_21 = tensor.collapse_shape %transposed_20 [[0], [1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<1x32xf32>
    %__auto.layers.0.out.weight = util.global.load @__auto.layers.0.out.weight : tensor<32x32xf32>
    %__auto.layers.0.out.bias = util.global.load @__auto.layers.0.out.bias : tensor<32xf32>
    %63 = tensor.empty() : tensor<32x32xf32>
    %transposed_22 = linalg.transpose ins(%__auto.layers.0.out.weight : tensor<32x32xf32>) outs(%63 : tensor<32x32xf32>) permutation = [1, 0] 
    %64 = linalg.fill ins(%cst : f32) outs(%6 : tensor<1x32xf32>) -> tensor<1x32xf32>
    %65 = linalg.matmul ins(%collapsed_21, %transposed_22 : tensor<1x32xf32>, tensor<32x32xf32>) outs(%64 : tensor<1x32xf32>) -> tensor<1x32xf32>
    %66 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%65, %__auto.layers.0.out.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.addf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x32xf32>
    %67 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %66 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %70 = arith.addf %in, %in_23 : f32
      linalg.yield %70 : f32
    } -> tensor<1x32xf32>
    %68 = hal.tensor.barrier join(%67 : tensor<1x32xf32>) => %arg3 : !hal.fence
    %69 = hal.tensor.export %68 : tensor<1x32xf32> -> !hal.buffer_view
    util.return %69 : !hal.buffer_view
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