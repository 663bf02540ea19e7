module @module {
  util.global private @__auto.layers.0.norm.weight = #flow.parameter.named<"model"::"layers.0.norm.weight"> : tensor<32xf32> loc("<stdin>":2:3)
  util.global private @__auto.layers.0.norm.bias = #flow.parameter.named<"model"::"layers.0.norm.bias"> : tensor<32xf32> loc("<stdin>":3:3)
  util.global private @__auto.layers.0.qkv.weight = #flow.parameter.named<"model"::"layers.0.qkv.weight"> : tensor<96x32xf32> loc("<stdin>":4:3)
  util.global private @__auto.layers.0.qkv.bias = #flow.parameter.named<"model"::"layers.0.qkv.bias"> : tensor<96xf32> loc("<stdin>":5:3)
  util.global private mutable @__auto.layers.0.k_cache = #flow.parameter.named<"model"::"layers.0.k_cache"> : tensor<1x16x2x16xf32> loc("<stdin>":6:3)
  util.global private mutable @__auto.layers.0.v_cache = #flow.parameter.named<"model"::"layers.0.v_cache"> : tensor<1x16x2x16xf32> loc("<stdin>":7:3)
  util.global private @__auto.layers.0.out.weight = #flow.parameter.named<"model"::"layers.0.out.weight"> : tensor<32x32xf32> loc("<stdin>":8:3)
  util.global private @__auto.layers.0.out.bias = #flow.parameter.named<"model"::"layers.0.out.bias"> : tensor<32xf32> loc("<stdin>":9:3)
  util.func public @main$async(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.fence, %arg3: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
    %c0 = arith.constant 0 : index loc(unknown)
    %c1_i64 = arith.constant 1 : i64 loc(unknown)
    %c16_i64 = arith.constant 16 : i64 loc(unknown)
    %c0_i64 = arith.constant 0 : i64 loc(unknown)
    %c15_i64 = arith.constant 15 : i64 loc("<stdin>":41:14)
    %cst = arith.constant 0.000000e+00 : f32 loc("<stdin>":19:10)
    %c-1 = arith.constant -1 : index loc("<stdin>":34:13)
    %c16 = arith.constant 16 : index loc(unknown)
    %cst_0 = arith.constant 0xFF800000 : f32 loc("<stdin>":81:11)
    %cst_1 = arith.constant 9.99999974E-6 : f32 loc("<stdin>":19:10)
    %cst_2 = arith.constant 3.200000e+01 : f32 loc(unknown)
    %cst_3 = arith.constant 4.000000e+00 : f32 loc(unknown)
    %0 = hal.tensor.import wait(%arg2) => %arg0 : !hal.buffer_view -> tensor<1x32xf32> loc("<stdin>":10:19)
    %1 = hal.tensor.import wait(%arg2) => %arg1 : !hal.buffer_view -> tensor<1xi64> loc("<stdin>":10:54)
    %__auto.layers.0.norm.weight = util.global.load @__auto.layers.0.norm.weight : tensor<32xf32> loc("<stdin>":13:36)
    %__auto.layers.0.norm.bias = util.global.load @__auto.layers.0.norm.bias : tensor<32xf32> loc("<stdin>":15:34)
    %2 = tensor.empty() : tensor<1x1xf32> loc("<stdin>":19:10)
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x1xf32>) -> tensor<1x1xf32> loc("<stdin>":19:10)
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<1x32xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.addf %in, %out : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x1xf32> loc("<stdin>":19:10)
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.divf %in, %cst_2 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x1xf32> loc("<stdin>":19:10)
    %6 = tensor.empty() : tensor<1x32xf32> loc("<stdin>":19:10)
    %collapsed = tensor.collapse_shape %5 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32> loc("<stdin>":19:10)
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      linalg.yield %in : f32 loc("<stdin>":19:10)
    } -> tensor<1x32xf32> loc("<stdin>":19:10)
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %7 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %in_33: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.subf %in, %in_33 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x32xf32> loc("<stdin>":19:10)
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %8 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %in_33: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.mulf %in, %in_33 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x32xf32> loc("<stdin>":19:10)
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%9 : tensor<1x32xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.addf %in, %out : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x1xf32> loc("<stdin>":19:10)
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.divf %in, %cst_2 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x1xf32> loc("<stdin>":19:10)
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.addf %in, %cst_1 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x1xf32> loc("<stdin>":19:10)
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<1x1xf32>) outs(%2 : tensor<1x1xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = math.rsqrt %in : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x1xf32> loc("<stdin>":19:10)
    %collapsed_4 = tensor.collapse_shape %13 [[0, 1]] : tensor<1x1xf32> into tensor<1xf32> loc("<stdin>":19:10)
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<1xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      linalg.yield %in : f32 loc("<stdin>":19:10)
    } -> tensor<1x32xf32> loc("<stdin>":19:10)
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %14 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %in_33: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.mulf %in, %in_33 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x32xf32> loc("<stdin>":19:10)
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %__auto.layers.0.norm.weight : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %in_33: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.mulf %in, %in_33 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x32xf32> loc("<stdin>":19:10)
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16, %__auto.layers.0.norm.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %in_33: f32 loc("<stdin>":19:10), %out: f32 loc("<stdin>":19:10)):
      %78 = arith.addf %in, %in_33 : f32 loc("<stdin>":19:10)
      linalg.yield %78 : f32 loc("<stdin>":19:10)
    } -> tensor<1x32xf32> loc("<stdin>":19:10)
    %__auto.layers.0.qkv.weight = util.global.load @__auto.layers.0.qkv.weight : tensor<96x32xf32> loc("<stdin>":20:35)
    %__auto.layers.0.qkv.bias = util.global.load @__auto.layers.0.qkv.bias : tensor<96xf32> loc("<stdin>":22:33)
    %18 = tensor.empty() : tensor<32x96xf32> loc("<stdin>":24:10)
    %transposed = linalg.transpose ins(%__auto.layers.0.qkv.weight : tensor<96x32xf32>) outs(%18 : tensor<32x96xf32>) permutation = [1, 0]  loc("<stdin>":24:10)
    %19 = tensor.empty() : tensor<1x96xf32> loc("<stdin>":24:10)
    %20 = linalg.fill ins(%cst : f32) outs(%19 : tensor<1x96xf32>) -> tensor<1x96xf32> loc("<stdin>":24:10)
    %21 = linalg.matmul ins(%17, %transposed : tensor<1x32xf32>, tensor<32x96xf32>) outs(%20 : tensor<1x96xf32>) -> tensor<1x96xf32> loc("<stdin>":24:10)
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%21, %__auto.layers.0.qkv.bias : tensor<1x96xf32>, tensor<96xf32>) outs(%19 : tensor<1x96xf32>) {
    ^bb0(%in: f32 loc("<stdin>":24:10), %in_33: f32 loc("<stdin>":24:10), %out: f32 loc("<stdin>":24:10)):
      %78 = arith.addf %in, %in_33 : f32 loc("<stdin>":24:10)
      linalg.yield %78 : f32 loc("<stdin>":24:10)
    } -> tensor<1x96xf32> loc("<stdin>":24:10)
    %expanded = tensor.expand_shape %22 [[0], [1, 2, 3]] output_shape [1, 1, 6, 16] : tensor<1x96xf32> into tensor<1x1x6x16xf32> loc("<stdin>":30:10)
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 0, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32> loc("<stdin>":34:13)
    %extracted_slice_5 = tensor.extract_slice %expanded[0, 0, 2, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32> loc("<stdin>":34:13)
    %extracted_slice_6 = tensor.extract_slice %expanded[0, 0, 4, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<1x1x6x16xf32> to tensor<1x1x2x16xf32> loc("<stdin>":34:13)
    %extracted = tensor.extract %1[%c0] : tensor<1xi64> loc("<stdin>":35:11)
    %23 = arith.cmpi sge, %extracted, %c0_i64 : i64 loc("<stdin>":37:11)
    cf.assert %23, "Runtime assertion failed for expression u0 >= 0 on node 'ge_1'" loc("<stdin>":40:5)
    %24 = arith.cmpi sle, %extracted, %c15_i64 : i64 loc("<stdin>":42:11)
    cf.assert %24, "Runtime assertion failed for expression u0 <= 15 on node 'le_1'" loc("<stdin>":45:5)
    %25 = arith.cmpi slt, %extracted, %c16_i64 : i64 loc("<stdin>":47:11)
    cf.assert %25, "Runtime assertion failed for expression u0 < 16 on node 'lt_1'" loc("<stdin>":50:5)
    %__auto.layers.0.k_cache = util.global.load @__auto.layers.0.k_cache : tensor<1x16x2x16xf32> loc("<stdin>":51:32)
    %26 = tensor.empty() : tensor<16xi64> loc("<stdin>":56:11)
    %27 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%26 : tensor<16xi64>) {
    ^bb0(%out: i64 loc("<stdin>":56:11)):
      %78 = linalg.index 0 : index loc("<stdin>":56:11)
      %79 = arith.index_cast %78 : index to i64 loc("<stdin>":56:11)
      linalg.yield %79 : i64 loc("<stdin>":56:11)
    } -> tensor<16xi64> loc("<stdin>":56:11)
    %28 = tensor.empty() : tensor<2xi64> loc("<stdin>":56:11)
    %29 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%28 : tensor<2xi64>) {
    ^bb0(%out: i64 loc("<stdin>":56:11)):
      %78 = linalg.index 0 : index loc("<stdin>":56:11)
      %79 = arith.index_cast %78 : index to i64 loc("<stdin>":56:11)
      linalg.yield %79 : i64 loc("<stdin>":56:11)
    } -> tensor<2xi64> loc("<stdin>":56:11)
    %30 = tensor.empty() : tensor<1xi64> loc("<stdin>":56:11)
    %31 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%30 : tensor<1xi64>) {
    ^bb0(%out: i64 loc("<stdin>":56:11)):
      linalg.yield %c0_i64 : i64 loc("<stdin>":56:11)
    } -> tensor<1xi64> loc("<stdin>":56:11)
    %32 = tensor.empty() : tensor<1x1x2x16xi64> loc("<stdin>":56:11)
    %expanded_7 = tensor.expand_shape %31 [[0, 1]] output_shape [1, 1] : tensor<1xi64> into tensor<1x1xi64> loc("<stdin>":56:11)
    %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_7 : tensor<1x1xi64>) outs(%32 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64 loc("<stdin>":56:11), %out: i64 loc("<stdin>":56:11)):
      linalg.yield %in : i64 loc("<stdin>":56:11)
    } -> tensor<1x1x2x16xi64> loc("<stdin>":56:11)
    %collapsed_8 = tensor.collapse_shape %33 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64> loc("<stdin>":56:11)
    %34 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<1xi64>) outs(%32 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64 loc("<stdin>":56:11), %out: i64 loc("<stdin>":56:11)):
      linalg.yield %in : i64 loc("<stdin>":56:11)
    } -> tensor<1x1x2x16xi64> loc("<stdin>":56:11)
    %collapsed_9 = tensor.collapse_shape %34 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64> loc("<stdin>":56:11)
    %35 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29 : tensor<2xi64>) outs(%32 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64 loc("<stdin>":56:11), %out: i64 loc("<stdin>":56:11)):
      linalg.yield %in : i64 loc("<stdin>":56:11)
    } -> tensor<1x1x2x16xi64> loc("<stdin>":56:11)
    %collapsed_10 = tensor.collapse_shape %35 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64> loc("<stdin>":56:11)
    %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27 : tensor<16xi64>) outs(%32 : tensor<1x1x2x16xi64>) {
    ^bb0(%in: i64 loc("<stdin>":56:11), %out: i64 loc("<stdin>":56:11)):
      linalg.yield %in : i64 loc("<stdin>":56:11)
    } -> tensor<1x1x2x16xi64> loc("<stdin>":56:11)
    %collapsed_11 = tensor.collapse_shape %36 [[0, 1, 2, 3]] : tensor<1x1x2x16xi64> into tensor<32xi64> loc("<stdin>":56:11)
    %expanded_12 = tensor.expand_shape %collapsed_8 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64> loc("<stdin>":56:11)
    %expanded_13 = tensor.expand_shape %collapsed_9 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64> loc("<stdin>":56:11)
    %expanded_14 = tensor.expand_shape %collapsed_10 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64> loc("<stdin>":56:11)
    %expanded_15 = tensor.expand_shape %collapsed_11 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64> loc("<stdin>":56:11)
    %concat = tensor.concat dim(1) %expanded_12, %expanded_13, %expanded_14, %expanded_15 : (tensor<32x1xi64>, tensor<32x1xi64>, tensor<32x1xi64>, tensor<32x1xi64>) -> tensor<32x4xi64> loc("<stdin>":56:11)
    %collapsed_16 = tensor.collapse_shape %extracted_slice_5 [[0, 1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<32xf32> loc("<stdin>":56:11)
    %37 = iree_linalg_ext.scatter dimension_map = [0, 1, 2, 3] unique_indices(true) ins(%collapsed_16, %concat : tensor<32xf32>, tensor<32x4xi64>) outs(%__auto.layers.0.k_cache : tensor<1x16x2x16xf32>) {
    ^bb0(%arg4: f32 loc("<stdin>":56:11), %arg5: f32 loc("<stdin>":56:11)):
      iree_linalg_ext.yield %arg4 : f32 loc("<stdin>":56:11)
    } -> tensor<1x16x2x16xf32> loc("<stdin>":56:11)
    util.global.store %37, @__auto.layers.0.k_cache : tensor<1x16x2x16xf32> loc("<stdin>":58:5)
    %__auto.layers.0.v_cache = util.global.load @__auto.layers.0.v_cache : tensor<1x16x2x16xf32> loc("<stdin>":59:32)
    %collapsed_17 = tensor.collapse_shape %extracted_slice_6 [[0, 1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<32xf32> loc("<stdin>":64:11)
    %38 = iree_linalg_ext.scatter dimension_map = [0, 1, 2, 3] unique_indices(true) ins(%collapsed_17, %concat : tensor<32xf32>, tensor<32x4xi64>) outs(%__auto.layers.0.v_cache : tensor<1x16x2x16xf32>) {
    ^bb0(%arg4: f32 loc("<stdin>":64:11), %arg5: f32 loc("<stdin>":64:11)):
      iree_linalg_ext.yield %arg4 : f32 loc("<stdin>":64:11)
    } -> tensor<1x16x2x16xf32> loc("<stdin>":64:11)
    util.global.store %38, @__auto.layers.0.v_cache : tensor<1x16x2x16xf32> loc("<stdin>":66:5)
    %39 = arith.addi %extracted, %c1_i64 : i64 loc("<stdin>":68:11)
    %40 = arith.index_cast %39 : i64 to index loc("<stdin>":72:11)
    %41 = arith.cmpi slt, %40, %c0 : index loc("<stdin>":72:11)
    %42 = arith.addi %40, %c16 : index loc("<stdin>":72:11)
    %43 = arith.select %41, %42, %40 : index loc("<stdin>":72:11)
    %44 = arith.cmpi slt, %43, %c0 : index loc("<stdin>":72:11)
    %45 = arith.select %44, %c-1, %43 : index loc("<stdin>":72:11)
    %46 = arith.minsi %45, %c16 : index loc("<stdin>":72:11)
    %47 = arith.maxsi %46, %c0 : index loc("<stdin>":72:11)
    %extracted_slice_18 = tensor.extract_slice %37[0, 0, 0, 0] [1, %47, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32> loc("<stdin>":72:11)
    %48 = tensor.empty() : tensor<1x2x1x16xf32> loc("<stdin>":76:11)
    %transposed_19 = linalg.transpose ins(%extracted_slice : tensor<1x1x2x16xf32>) outs(%48 : tensor<1x2x1x16xf32>) permutation = [0, 2, 1, 3]  loc("<stdin>":76:11)
    %49 = tensor.empty(%47) : tensor<1x2x16x?xf32> loc("<stdin>":76:11)
    %transposed_20 = linalg.transpose ins(%extracted_slice_18 : tensor<1x?x2x16xf32>) outs(%49 : tensor<1x2x16x?xf32>) permutation = [0, 2, 3, 1]  loc("<stdin>":76:11)
    %collapsed_21 = tensor.collapse_shape %transposed_19 [[0, 1], [2], [3]] : tensor<1x2x1x16xf32> into tensor<2x1x16xf32> loc("<stdin>":76:11)
    %collapsed_22 = tensor.collapse_shape %transposed_20 [[0, 1], [2], [3]] : tensor<1x2x16x?xf32> into tensor<2x16x?xf32> loc("<stdin>":76:11)
    %50 = tensor.empty(%47) : tensor<2x1x?xf32> loc("<stdin>":76:11)
    %51 = linalg.fill ins(%cst : f32) outs(%50 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32> loc("<stdin>":76:11)
    %52 = linalg.batch_matmul ins(%collapsed_21, %collapsed_22 : tensor<2x1x16xf32>, tensor<2x16x?xf32>) outs(%51 : tensor<2x1x?xf32>) -> tensor<2x1x?xf32> loc("<stdin>":76:11)
    %expanded_23 = tensor.expand_shape %52 [[0, 1], [2], [3]] output_shape [1, 2, 1, %47] : tensor<2x1x?xf32> into tensor<1x2x1x?xf32> loc("<stdin>":76:11)
    %53 = tensor.empty(%47) : tensor<1x2x1x?xf32> loc("<stdin>":78:11)
    %54 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_23 : tensor<1x2x1x?xf32>) outs(%53 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32 loc("<stdin>":76:11), %out: f32 loc("<stdin>":78:11)):
      %78 = arith.divf %in, %cst_3 : f32 loc("<stdin>":78:11)
      linalg.yield %78 : f32 loc("<stdin>":78:11)
    } -> tensor<1x2x1x?xf32> loc("<stdin>":78:11)
    %55 = tensor.empty() : tensor<1x2x1xi64> loc("<stdin>":81:11)
    %56 = linalg.fill ins(%c0_i64 : i64) outs(%55 : tensor<1x2x1xi64>) -> tensor<1x2x1xi64> loc("<stdin>":81:11)
    %57 = tensor.empty() : tensor<1x2x1xf32> loc("<stdin>":81:11)
    %58 = linalg.fill ins(%cst_0 : f32) outs(%57 : tensor<1x2x1xf32>) -> tensor<1x2x1xf32> loc("<stdin>":81:11)
    %59:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%54 : tensor<1x2x1x?xf32>) outs(%58, %56 : tensor<1x2x1xf32>, tensor<1x2x1xi64>) {
    ^bb0(%in: f32 loc("<stdin>":78:11), %out: f32 loc("<stdin>":81:11), %out_33: i64 loc("<stdin>":81:11)):
      %78 = linalg.index 3 : index loc("<stdin>":81:11)
      %79 = arith.index_cast %78 : index to i64 loc("<stdin>":81:11)
      %80 = arith.maximumf %in, %out : f32 loc("<stdin>":81:11)
      %81 = arith.cmpf ogt, %in, %out : f32 loc("<stdin>":81:11)
      %82 = arith.select %81, %79, %out_33 : i64 loc("<stdin>":81:11)
      linalg.yield %80, %82 : f32, i64 loc("<stdin>":81:11)
    } -> (tensor<1x2x1xf32>, tensor<1x2x1xi64>) loc("<stdin>":81:11)
    %expanded_24 = tensor.expand_shape %59#0 [[0], [1], [2, 3]] output_shape [1, 2, 1, 1] : tensor<1x2x1xf32> into tensor<1x2x1x1xf32> loc("<stdin>":81:11)
    %60 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%54, %expanded_24 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%53 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32 loc("<stdin>":78:11), %in_33: f32 loc("<stdin>":81:11), %out: f32 loc("<stdin>":81:11)):
      %78 = arith.subf %in, %in_33 : f32 loc("<stdin>":81:11)
      linalg.yield %78 : f32 loc("<stdin>":81:11)
    } -> tensor<1x2x1x?xf32> loc("<stdin>":81:11)
    %61 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%60 : tensor<1x2x1x?xf32>) outs(%53 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32 loc("<stdin>":81:11), %out: f32 loc("<stdin>":81:11)):
      %78 = math.exp %in : f32 loc("<stdin>":81:11)
      linalg.yield %78 : f32 loc("<stdin>":81:11)
    } -> tensor<1x2x1x?xf32> loc("<stdin>":81:11)
    %62 = tensor.empty() : tensor<1x2x1x1xf32> loc("<stdin>":81:11)
    %63 = linalg.fill ins(%cst : f32) outs(%62 : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> loc("<stdin>":81:11)
    %64 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%61 : tensor<1x2x1x?xf32>) outs(%63 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32 loc("<stdin>":81:11), %out: f32 loc("<stdin>":81:11)):
      %78 = arith.addf %in, %out : f32 loc("<stdin>":81:11)
      linalg.yield %78 : f32 loc("<stdin>":81:11)
    } -> tensor<1x2x1x1xf32> loc("<stdin>":81:11)
    %65 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%61, %64 : tensor<1x2x1x?xf32>, tensor<1x2x1x1xf32>) outs(%53 : tensor<1x2x1x?xf32>) {
    ^bb0(%in: f32 loc("<stdin>":81:11), %in_33: f32 loc("<stdin>":81:11), %out: f32 loc("<stdin>":81:11)):
      %78 = arith.divf %in, %in_33 : f32 loc("<stdin>":81:11)
      linalg.yield %78 : f32 loc("<stdin>":81:11)
    } -> tensor<1x2x1x?xf32> loc("<stdin>":81:11)
    %extracted_slice_25 = tensor.extract_slice %38[0, 0, 0, 0] [1, %47, 2, 16] [1, 1, 1, 1] : tensor<1x16x2x16xf32> to tensor<1x?x2x16xf32> loc("<stdin>":85:11)
    %66 = tensor.empty(%47) : tensor<1x2x?x16xf32> loc("<stdin>":89:11)
    %transposed_26 = linalg.transpose ins(%extracted_slice_25 : tensor<1x?x2x16xf32>) outs(%66 : tensor<1x2x?x16xf32>) permutation = [0, 2, 1, 3]  loc("<stdin>":89:11)
    %collapsed_27 = tensor.collapse_shape %65 [[0, 1], [2], [3]] : tensor<1x2x1x?xf32> into tensor<2x1x?xf32> loc("<stdin>":89:11)
    %collapsed_28 = tensor.collapse_shape %transposed_26 [[0, 1], [2], [3]] : tensor<1x2x?x16xf32> into tensor<2x?x16xf32> loc("<stdin>":89:11)
    %67 = tensor.empty() : tensor<2x1x16xf32> loc("<stdin>":89:11)
    %68 = linalg.fill ins(%cst : f32) outs(%67 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32> loc("<stdin>":89:11)
    %69 = linalg.batch_matmul ins(%collapsed_27, %collapsed_28 : tensor<2x1x?xf32>, tensor<2x?x16xf32>) outs(%68 : tensor<2x1x16xf32>) -> tensor<2x1x16xf32> loc("<stdin>":89:11)
    %expanded_29 = tensor.expand_shape %69 [[0, 1], [2], [3]] output_shape [1, 2, 1, 16] : tensor<2x1x16xf32> into tensor<1x2x1x16xf32> loc("<stdin>":89:11)
    %70 = tensor.empty() : tensor<1x1x2x16xf32> loc("<stdin>":89:11)
    %transposed_30 = linalg.transpose ins(%expanded_29 : tensor<1x2x1x16xf32>) outs(%70 : tensor<1x1x2x16xf32>) permutation = [0, 2, 1, 3]  loc("<stdin>":89:11)
    %collapsed_31 = tensor.collapse_shape %transposed_30 [[0], [1, 2, 3]] : tensor<1x1x2x16xf32> into tensor<1x32xf32> loc("<stdin>":93:11)
    %__auto.layers.0.out.weight = util.global.load @__auto.layers.0.out.weight : tensor<32x32xf32> loc("<stdin>":94:35)
    %__auto.layers.0.out.bias = util.global.load @__auto.layers.0.out.bias : tensor<32xf32> loc("<stdin>":96:33)
    %71 = tensor.empty() : tensor<32x32xf32> loc("<stdin>":98:11)
    %transposed_32 = linalg.transpose ins(%__auto.layers.0.out.weight : tensor<32x32xf32>) outs(%71 : tensor<32x32xf32>) permutation = [1, 0]  loc("<stdin>":98:11)
    %72 = linalg.fill ins(%cst : f32) outs(%6 : tensor<1x32xf32>) -> tensor<1x32xf32> loc("<stdin>":98:11)
    %73 = linalg.matmul ins(%collapsed_31, %transposed_32 : tensor<1x32xf32>, tensor<32x32xf32>) outs(%72 : tensor<1x32xf32>) -> tensor<1x32xf32> loc("<stdin>":98:11)
    %74 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%73, %__auto.layers.0.out.bias : tensor<1x32xf32>, tensor<32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":98:11), %in_33: f32 loc("<stdin>":98:11), %out: f32 loc("<stdin>":98:11)):
      %78 = arith.addf %in, %in_33 : f32 loc("<stdin>":98:11)
      linalg.yield %78 : f32 loc("<stdin>":98:11)
    } -> tensor<1x32xf32> loc("<stdin>":98:11)
    %75 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %74 : tensor<1x32xf32>, tensor<1x32xf32>) outs(%6 : tensor<1x32xf32>) {
    ^bb0(%in: f32 loc("<stdin>":19:10), %in_33: f32 loc("<stdin>":98:11), %out: f32 loc("<stdin>":100:11)):
      %78 = arith.addf %in, %in_33 : f32 loc("<stdin>":100:11)
      linalg.yield %78 : f32 loc("<stdin>":100:11)
    } -> tensor<1x32xf32> loc("<stdin>":100:11)
    %76 = hal.tensor.barrier join(%75 : tensor<1x32xf32>) => %arg3 : !hal.fence loc("<stdin>":10:3)
    %77 = hal.tensor.export %76 : tensor<1x32xf32> -> !hal.buffer_view loc("<stdin>":10:3)
    util.return %77 : !hal.buffer_view loc("<stdin>":101:5)
  } loc("<stdin>":10:3)
  util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
    %0 = util.null : !hal.fence loc("<stdin>":10:3)
    %c-1_i32 = arith.constant -1 : i32 loc("<stdin>":10:3)
    %c0 = arith.constant 0 : index loc("<stdin>":10:3)
    %device_0 = hal.devices.get %c0 : !hal.device loc("<stdin>":10:3)
    %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence loc("<stdin>":10:3)
    %1 = util.call @main$async(%arg0, %arg1, %0, %fence) : (!hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view loc("<stdin>":10:3)
    %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32 loc("<stdin>":10:3)
    util.return %1 : !hal.buffer_view loc("<stdin>":10:3)
  } loc("<stdin>":10:3)
} loc("<stdin>":1:1)