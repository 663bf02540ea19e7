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
      %78 = arith.addf %in, %out : f32
      linalg.yield %78 : f32
    } -> tensor<1x1xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = arith.divf %in, %cst_2 : f32
      linalg.yield %78 : f32
    } -> tensor<1x1xf32>
    %6 = tensor.empty() : tensor<1x32xf32>
    %collapsed = tensor.collapse_shape %5 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x32xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %7 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.subf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x32xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %8 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.mulf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x32xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%9 : tensor<1x32xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = arith.addf %in, %out : f32
      linalg.yield %78 : f32
    } -> tensor<1x1xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = arith.divf %in, %cst_2 : f32
      linalg.yield %78 : f32
    } -> tensor<1x1xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = arith.addf %in, %cst_1 : f32
      linalg.yield %78 : f32
    } -> tensor<1x1xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = math.rsqrt %in : f32
      linalg.yield %78 : f32
    } -> tensor<1x1xf32>
    %collapsed_4 = tensor.collapse_shape %13 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x32xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %14 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.mulf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x32xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %__auto.layers.0.norm.weight : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.mulf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x32xf32>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16, %__auto.layers.0.norm.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.addf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x32xf32>
    %__auto.layers.0.qkv.weight = util.global.load @__auto.layers.0.qkv.weight : tensor<96x32xf32>
    %__auto.layers.0.qkv.bias = util.global.load @__auto.layers.0.qkv.bias : tensor<96xf32>
    %18 = tensor.empty() : tensor<32x96xf32>
    %transposed = linalg.transpose ins(%__auto.layers.0.qkv.weight : tensor<96x32xf32>) outs(%18 : tensor<32x96xf32>) permutation = [1, 0] 
    %19 = tensor.empty() : tensor<1x96xf32>
    %20 = linalg.fill ins(%cst : f32) outs(%19 : tensor<1x96xf32>) -> tensor<1x96xf32>
    %21 = linalg.matmul ins(%17, %transposed : tensor<1x32xf32>, tensor<32x96xf32>) outs(%20 : tensor<1x96xf32>) -> tensor<1x96xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%21, %__auto.layers.0.qkv.bias : tensor<1x96xf32>, tensor<96xf32>) outs(%19 : tensor<1x96xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.addf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x96xf32>
    %expanded = tensor.expand_shape %22 [[0], [1, 2, 3]] output_shape [1, 1, 6, 16] : tensor<1x96xf32> into tensor<1x1x6x16xf32>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 0, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted_slice_5 = tensor.extract_slice %expanded[0, 0, 2, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted_slice_6 = tensor.extract_slice %expanded[0, 0, 4, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32>
    %extracted = tensor.extract %1[%c0] : tensor<1xi64>
    %23 = arith.cmpi sge, %extracted, %c0_i64 : i64
    cf.assert %23, "Runtime assertion failed for expression u0 >= 0 on node 'ge_9'"
    %24 = arith.cmpi sle, %extracted, %c15_i64 : i64
    cf.assert %24, "Runtime assertion failed for expression u0 <= 15 on node 'le_1'"
    %25 = arith.cmpi slt, %extracted, %c16_i64 : i64
    cf.assert %25, "Runtime assertion failed for expression u0 < 16 on node 'lt_1'"
    %__auto.layers.0.k_cache = util.global.load @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %26 = arith.index_cast %extracted : i64 to index
    %27 = arith.cmpi slt, %26, %c0 : index
    %28 = arith.addi %26, %c16 : index
    %29 = arith.select %27, %28, %26 : index
    %30 = arith.cmpi slt, %29, %c0 : index
    %31 = arith.select %30, %c-1, %29 : index
    %32 = arith.minsi %31, %c16 : index
    %33 = arith.maxsi %32, %c0 : index
    %extracted_slice_7 = tensor.extract_slice %__auto.layers.0.k_cache[0, 0, 0, 0] [1, %33, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32>
    %concat = tensor.concat dim(1) %extracted_slice_7, %extracted_slice_5 : (tensor<1x?x2x16xf32>, tensor<1x1x2x16xf32>) -> tensor<1x?x2x16xf32>
    %__auto.layers.0.v_cache = util.global.load @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %extracted_slice_8 = tensor.extract_slice %__auto.layers.0.v_cache[0, 0, 0, 0] [1, %33, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32>
    %concat_9 = tensor.concat dim(1) %extracted_slice_8, %extracted_slice_6 : (tensor<1x?x2x16xf32>, tensor<1x1x2x16xf32>) -> tensor<1x?x2x16xf32>
    %34 = arith.addi %extracted, %c1_i64 : i64
    %35 = arith.index_cast %34 : i64 to index
    %36 = arith.cmpi slt, %35, %c0 : index
    %37 = arith.addi %35, %c16 : index
    %38 = arith.select %36, %37, %35 : index
    %39 = arith.cmpi slt, %38, %c0 : index
    %40 = arith.select %39, %c-1, %38 : index
    %41 = arith.minsi %40, %c16 : index
    %42 = arith.maxsi %41, %c0 : index
    %inserted_slice = tensor.insert_slice %concat into %__auto.layers.0.k_cache[0, 0, 0, 0] [1, %42, 2, 16] [1, 1, 1, 1] : tensor<1x?x2x16xf32> into tensor<1x16x2x16xf32>
    util.global.store %inserted_slice, @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %inserted_slice_10 = tensor.insert_slice %concat_9 into %__auto.layers.0.v_cache[0, 0, 0, 0] [1, %42, 2, 16] [1, 1, 1, 1] : tensor<1x?x2x16xf32> into tensor<1x16x2x16xf32>
    util.global.store %inserted_slice_10, @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %43 = tensor.empty() : tensor<1x2x1x16xf32>
    %transposed_11 = linalg.transpose ins(%extracted_slice : tensor<1x1x2x16xf32>) outs(%43 : tensor<1x2x1x16xf32>) permutation = [0, 2, 1, 3] 
    %44 = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%33]
    %45 = tensor.empty(%44) : tensor<1x2x16x?xf32>
    %transposed_12 = linalg.transpose ins(%concat : tensor<1x?x2x16xf32>) outs(%45 : tensor<1x2x16x?xf32>) permutation = [0, 2, 3, 1] 
    %collapsed_13 = tensor.collapse_shape %transposed_11 [[0, 1], [2], [3]] : tensor<1x2x1x16xf32> into tensor<2x1x16xf32>
    %collapsed_14 = tensor.collapse_shape %transposed_12 [[0, 1], [2], [3]] : tensor<1x2x16x?xf32> into tensor<2x16x?xf32>
    %46 = tensor.empty(%44) : tensor<2x1x?xf32>
    %47 = linalg.fill ins(%cst : f32) outs(%46 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
    %48 = linalg.batch_matmul ins(%collapsed_13, %collapsed_14 : tensor<2x1x16xf32>, tensor<2x16x?xf32>) outs(%47 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
    %expanded_15 = tensor.expand_shape %48 [[0, 1], [2], [3]] output_shape [1, 2, 1, %44] : tensor<2x1x?xf32> into tensor<1x2x1x?xf32>
    %49 = tensor.empty(%44) : tensor<1x2x1x?xf32>
    %50 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_15 : tensor<1x2x1x?xf32>) outs(%49 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = arith.divf %in, %cst_3 : f32
      linalg.yield %78 : f32
    } -> tensor<1x2x1x?xf32>
    %51 = tensor.empty() : tensor<1x2x1xi64>
    %52 = linalg.fill ins(%c0_i64 : i64) outs(%51 : tensor<1x2x1xi64>) -> tensor<1x2x1xi64>
    %53 = tensor.empty() : tensor<1x2x1xf32>
    %54 = linalg.fill ins(%cst_0 : f32) outs(%53 : tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
    %55:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%50 : tensor<1x2x1x?xf32>) outs(%54, %52 : tensor<1x2x1xf32>, tensor<1x2x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_24: i64):
      %78 = linalg.index 3 : index
      %79 = arith.index_cast %78 : index to i64
      %80 = arith.maximumf %in, %out : f32
      %81 = arith.cmpf ogt, %in, %out : f32
      %82 = arith.select %81, %79, %out_24 : i64
      linalg.yield %80, %82 : f32, i64
    } -> (tensor<1x2x1xf32>, tensor<1x2x1xi64>)
    %expanded_16 = tensor.expand_shape %55#0 [[0], [1], [2, 3]] output_shape [1, 2, 1, 1] : tensor<1x2x1xf32> into tensor<1x2x1x1xf32>
    %56 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%50, %expanded_16 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%49 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.subf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x2x1x?xf32>
    %57 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%56 : tensor<1x2x1x?xf32>) outs(%49 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = math.exp %in : f32
      linalg.yield %78 : f32
    } -> tensor<1x2x1x?xf32>
    %58 = tensor.empty() : tensor<1x2x1x1xf32>
    %59 = linalg.fill ins(%cst : f32) outs(%58 : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
    %60 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%57 : tensor<1x2x1x?xf32>) outs(%59 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %78 = arith.addf %in, %out : f32
      linalg.yield %78 : f32
    } -> tensor<1x2x1x1xf32>
    %61 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%57, %60 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%49 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.divf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x2x1x?xf32>
    %62 = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%33]
    %63 = tensor.empty(%62) : tensor<1x2x?x16xf32>
    %transposed_17 = linalg.transpose ins(%concat_9 : tensor<1x?x2x16xf32>) outs(%63 : tensor<1x2x?x16xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_18 = tensor.collapse_shape %61 [[0, 1], [2], [3]] : tensor<1x2x1x?xf32> into tensor<2x1x?xf32>
    %collapsed_19 = tensor.collapse_shape %transposed_17 [[0, 1], [2], [3]] : tensor<1x2x?x16xf32> into tensor<2x?x16xf32>
    %64 = arith.index_cast %44 : index to i64
    %65 = arith.index_cast %62 : index to i64
    %66 = arith.cmpi eq, %64, %65 : i64
    cf.assert %66, "mismatching contracting dimension"
    %67 = tensor.empty() : tensor<2x1x16xf32>
    %68 = linalg.fill ins(%cst : f32) outs(%67 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
    %69 = linalg.batch_matmul ins(%collapsed_18, %collapsed_19 : tensor<2x1x?xf32>, tensor<2x?x16xf32>) outs(%68 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
    %expanded_20 = tensor.expand_shape %69 [[0, 1], [2], [3]] output_shape [1, 2, 1, 16] : tensor<2x1x16xf32> into tensor<1x2x1x16xf32>
    %70 = tensor.empty() : tensor<1x1x2x16xf32>
    %transposed_21 = linalg.transpose ins(%expanded_20 : tensor<1x2x1x16xf32>) outs(%70 : tensor<1x1x2x16xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_22 = tensor.collapse_shape %transposed_21 [[0], [1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<1x32xf32>
    %__auto.layers.0.out.weight = util.global.load @__auto.layers.0.out.weight : tensor<32x32xf32>
    %__auto.layers.0.out.bias = util.global.load @__auto.layers.0.out.bias : tensor<32xf32>
    %71 = tensor.empty() : tensor<32x32xf32>
    %transposed_23 = linalg.transpose ins(%__auto.layers.0.out.weight : tensor<32x32xf32>) outs(%71 : tensor<32x32xf32>) permutation = [1, 0] 
    %72 = linalg.fill ins(%cst : f32) outs(%6 : tensor<1x32xf32>) -> tensor<1x32xf32>
    %73 = linalg.matmul ins(%collapsed_22, %transposed_23 : tensor<1x32xf32>, tensor<32x32xf32>) outs(%72 : tensor<1x32xf32>) -> tensor<1x32xf32>
    %74 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%73, %__auto.layers.0.out.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.addf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x32xf32>
    %75 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %74 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32, %in_24: f32, %out: f32):
      %78 = arith.addf %in, %in_24 : f32
      linalg.yield %78 : f32
    } -> tensor<1x32xf32>
    %76 = hal.tensor.barrier join(%75 : tensor<1x32xf32>) => %arg3 : !hal.fence
    %77 = hal.tensor.export %76 : tensor<1x32xf32> -> !hal.buffer_view
    util.return %77 : !hal.buffer_view
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