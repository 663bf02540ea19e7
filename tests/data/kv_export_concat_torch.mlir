module @module {
  util.global private @__auto.layers.0.norm.weight = #flow.parameter.named<"model"::"layers.0.norm.weight"> : tensor<32xf32>
  util.global private @__auto.layers.0.norm.bias = #flow.parameter.named<"model"::"layers.0.norm.bias"> : tensor<32xf32>
  util.global private @__auto.layers.0.qkv.weight = #flow.parameter.named<"model"::"layers.0.qkv.weight"> : tensor<96x32xf32>
  util.global private @__auto.layers.0.qkv.bias = #flow.parameter.named<"model"::"layers.0.qkv.bias"> : tensor<96xf32>
  util.global private mutable @__auto.layers.0.k_cache = #flow.parameter.named<"model"::"layers.0.k_cache"> : tensor<1x16x2x16xf32>
  util.global private mutable @__auto.layers.0.v_cache = #flow.parameter.named<"model"::"layers.0.v_cache"> : tensor<1x16x2x16xf32>
  util.global private @__auto.layers.0.out.weight = #flow.parameter.named<"model"::"layers.0.out.weight"> : tensor<32x32xf32>
  util.global private @__auto.layers.0.out.bias = #flow.parameter.named<"model"::"layers.0.out.bias"> : tensor<32xf32>
  func.func @main(%arg0: !torch.vtensor<[1,32],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,32],f32> attributes {torch.assume_strict_symbolic_shapes} {
    %int32 = torch.constant.int 32
    %0 = torch.prim.ListConstruct %int32 : (!torch.int) -> !torch.list<int>
    %__auto.layers.0.norm.weight = util.global.load @__auto.layers.0.norm.weight : tensor<32xf32>
    %1 = torch_c.from_builtin_tensor %__auto.layers.0.norm.weight : tensor<32xf32> -> !torch.vtensor<[32],f32>
    %__auto.layers.0.norm.bias = util.global.load @__auto.layers.0.norm.bias : tensor<32xf32>
    %2 = torch_c.from_builtin_tensor %__auto.layers.0.norm.bias : tensor<32xf32> -> !torch.vtensor<[32],f32>
    %float1.000000e-05 = torch.constant.float 1.000000e-05
    %false = torch.constant.bool false
    %3 = torch.aten.layer_norm %arg0, %0, %1, %2, %float1.000000e-05, %false : !torch.vtensor<[1,32],f32>, !torch.list<int>, !torch.vtensor<[32],f32>, !torch.vtensor<[32],f32>, !torch.float, !torch.bool -> !torch.vtensor<[1,32],f32>
    %__auto.layers.0.qkv.weight = util.global.load @__auto.layers.0.qkv.weight : tensor<96x32xf32>
    %4 = torch_c.from_builtin_tensor %__auto.layers.0.qkv.weight : tensor<96x32xf32> -> !torch.vtensor<[96,32],f32>
    %__auto.layers.0.qkv.bias = util.global.load @__auto.layers.0.qkv.bias : tensor<96xf32>
    %5 = torch_c.from_builtin_tensor %__auto.layers.0.qkv.bias : tensor<96xf32> -> !torch.vtensor<[96],f32>
    %6 = torch.aten.linear %3, %4, %5 : !torch.vtensor<[1,32],f32>, !torch.vtensor<[96,32],f32>, !torch.vtensor<[96],f32> -> !torch.vtensor<[1,96],f32>
    %int1 = torch.constant.int 1
    %int1_0 = torch.constant.int 1
    %int6 = torch.constant.int 6
    %int16 = torch.constant.int 16
    %7 = torch.prim.ListConstruct %int1, %int1_0, %int6, %int16 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %8 = torch.aten.view %6, %7 : !torch.vtensor<[1,96],f32>, !torch.list<int> -> !torch.vtensor<[1,1,6,16],f32>
    %int2 = torch.constant.int 2
    %int2_1 = torch.constant.int 2
    %9 = torch.aten.split.Tensor %8, %int2, %int2_1 : !torch.vtensor<[1,1,6,16],f32>, !torch.int, !torch.int -> !torch.list<vtensor>
    %10:3 = torch.prim.ListUnpack %9 : !torch.list<vtensor> -> !torch.vtensor<[1,1,2,16],f32>, !torch.vtensor<[1,1,2,16],f32>, !torch.vtensor<[1,1,2,16],f32>
    %11 = torch.aten.item %arg1 : !torch.vtensor<[1],si64> -> !torch.int
    %int0 = torch.constant.int 0
    %12 = torch.aten.ge.int %11, %int0 : !torch.int, !torch.int -> !torch.bool
    %13 = torch.aten.Int.bool %12 : !torch.bool -> !torch.int
    %str = torch.constant.str "Runtime assertion failed for expression u0 >= 0 on node 'ge_9'"
    torch.aten._assert_scalar %13, %str : !torch.int, !torch.str
    %int15 = torch.constant.int 15
    %14 = torch.aten.le.int %11, %int15 : !torch.int, !torch.int -> !torch.bool
    %15 = torch.aten.Int.bool %14 : !torch.bool -> !torch.int
    %str_2 = torch.constant.str "Runtime assertion failed for expression u0 <= 15 on node 'le_1'"
    torch.aten._assert_scalar %15, %str_2 : !torch.int, !torch.str
    %int16_3 = torch.constant.int 16
    %16 = torch.aten.lt.int %11, %int16_3 : !torch.int, !torch.int -> !torch.bool
    %17 = torch.aten.Int.bool %16 : !torch.bool -> !torch.int
    %str_4 = torch.constant.str "Runtime assertion failed for expression u0 < 16 on node 'lt_1'"
    torch.aten._assert_scalar %17, %str_4 : !torch.int, !torch.str
    %__auto.layers.0.k_cache = util.global.load @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %18 = torch_c.from_builtin_tensor %__auto.layers.0.k_cache : tensor<1x16x2x16xf32> -> !torch.vtensor<[1,16,2,16],f32>
    %int1_5 = torch.constant.int 1
    %int0_6 = torch.constant.int 0
    %int1_7 = torch.constant.int 1
    %19 = torch.aten.slice.Tensor %18, %int1_5, %int0_6, %11, %int1_7 : !torch.vtensor<[1,16,2,16],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,?,2,16],f32>
    %20 = torch.prim.ListConstruct %19, %10#1 : (!torch.vtensor<[1,?,2,16],f32>, !torch.vtensor<[1,1,2,16],f32>) -> !torch.list<vtensor>
    %int1_8 = torch.constant.int 1
    %21 = torch.aten.cat %20, %int1_8 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[1,?,2,16],f32>
    %__auto.layers.0.v_cache = util.global.load @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %22 = torch_c.from_builtin_tensor %__auto.layers.0.v_cache : tensor<1x16x2x16xf32> -> !torch.vtensor<[1,16,2,16],f32>
    %int1_9 = torch.constant.int 1
    %int0_10 = torch.constant.int 0
    %int1_11 = torch.constant.int 1
    %23 = torch.aten.slice.Tensor %22, %int1_9, %int0_10, %11, %int1_11 : !torch.vtensor<[1,16,2,16],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,?,2,16],f32>
    %24 = torch.prim.ListConstruct %23, %10#2 : (!torch.vtensor<[1,?,2,16],f32>, !torch.vtensor<[1,1,2,16],f32>) -> !torch.list<vtensor>
    %int1_12 = torch.constant.int 1
    %25 = torch.aten.cat %24, %int1_12 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[1,?,2,16],f32>
    %int1_13 = torch.constant.int 1
    %26 = torch.aten.add.int %11, %int1_13 : !torch.int, !torch.int -> !torch.int
    %int1_14 = torch.constant.int 1
    %int0_15 = torch.constant.int 0
    %int1_16 = torch.constant.int 1
    %27 = torch.aten.slice.Tensor %18, %int1_14, %int0_15, %26, %int1_16 : !torch.vtensor<[1,16,2,16],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,?,2,16],f32>
    %false_17 = torch.constant.bool false
    %28 = torch.aten.copy %27, %21, %false_17 : !torch.vtensor<[1,?,2,16],f32>, !torch.vtensor<[1,?,2,16],f32>, !torch.bool -> !torch.vtensor<[1,?,2,16],f32>
    %int1_18 = torch.constant.int 1
    %int0_19 = torch.constant.int 0
    %int1_20 = torch.constant.int 1
    %29 = torch.aten.slice_scatter %18, %28, %int1_18, %int0_19, %26, %int1_20 : !torch.vtensor<[1,16,2,16],f32>, !torch.vtensor<[1,?,2,16],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,16,2,16],f32>
    %30 = torch_c.to_builtin_tensor %29 : !torch.vtensor<[1,16,2,16],f32> -> tensor<1x16x2x16xf32>
    util.global.store %30, @__auto.layers.0.k_cache : tensor<1x16x2x16xf32>
    %int1_21 = torch.constant.int 1
    %int0_22 = torch.constant.int 0
    %int1_23 = torch.constant.int 1
    %31 = torch.aten.slice.Tensor %22, %int1_21, %int0_22, %26, %int1_23 : !torch.vtensor<[1,16,2,16],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,?,2,16],f32>
    %false_24 = torch.constant.bool false
    %32 = torch.aten.copy %31, %25, %false_24 : !torch.vtensor<[1,?,2,16],f32>, !torch.vtensor<[1,?,2,16],f32>, !torch.bool -> !torch.vtensor<[1,?,2,16],f32>
    %int1_25 = torch.constant.int 1
    %int0_26 = torch.constant.int 0
    %int1_27 = torch.constant.int 1
    %33 = torch.aten.slice_scatter %22, %32, %int1_25, %int0_26, %26, %int1_27 : !torch.vtensor<[1,16,2,16],f32>, !torch.vtensor<[1,?,2,16],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,16,2,16],f32>
    %34 = torch_c.to_builtin_tensor %33 : !torch.vtensor<[1,16,2,16],f32> -> tensor<1x16x2x16xf32>
    util.global.store %34, @__auto.layers.0.v_cache : tensor<1x16x2x16xf32>
    %str_28 = torch.constant.str "bqhd,bkhd->bhqk"
    %35 = torch.prim.ListConstruct %10#0, %21 : (!torch.vtensor<[1,1,2,16],f32>, !torch.vtensor<[1,?,2,16],f32>) -> !torch.list<vtensor>
    %none = torch.constant.none
    %36 = torch.aten.einsum %str_28, %35, %none : !torch.str, !torch.list<vtensor>, !torch.none -> !torch.vtensor<[1,2,1,?],f32>
    %float4.000000e00 = torch.constant.float 4.000000e+00
    %37 = torch.aten.div.Scalar %36, %float4.000000e00 : !torch.vtensor<[1,2,1,?],f32>, !torch.float -> !torch.vtensor<[1,2,1,?],f32>
    %int-1 = torch.constant.int -1
    %none_29 = torch.constant.none
    %38 = torch.aten.softmax.int %37, %int-1, %none_29 : !torch.vtensor<[1,2,1,?],f32>, !torch.int, !torch.none -> !torch.vtensor<[1,2,1,?],f32>
    %str_30 = torch.constant.str "bhqk,bkhd->bqhd"
    %39 = torch.prim.ListConstruct %38, %25 : (!torch.vtensor<[1,2,1,?],f32>, !torch.vtensor<[1,?,2,16],f32>) -> !torch.list<vtensor>
    %none_31 = torch.constant.none
    %40 = torch.aten.einsum %str_30, %39, %none_31 : !torch.str, !torch.list<vtensor>, !torch.none -> !torch.vtensor<[1,1,2,16],f32>
    %int1_32 = torch.constant.int 1
    %int-1_33 = torch.constant.int -1
    %41 = torch.prim.ListConstruct %int1_32, %int-1_33 : (!torch.int, !torch.int) -> !torch.list<int>
    %42 = torch.aten.view %40, %41 : !torch.vtensor<[1,1,2,16],f32>, !torch.list<int> -> !torch.vtensor<[1,32],f32>
    %__auto.layers.0.out.weight = util.global.load @__auto.layers.0.out.weight : tensor<32x32xf32>
    %43 = torch_c.from_builtin_tensor %__auto.layers.0.out.weight : tensor<32x32xf32> -> !torch.vtensor<[32,32],f32>
    %__auto.layers.0.out.bias = util.global.load @__auto.layers.0.out.bias : tensor<32xf32>
    %44 = torch_c.from_builtin_tensor %__auto.layers.0.out.bias : tensor<32xf32> -> !torch.vtensor<[32],f32>
    %45 = torch.aten.linear %42, %43, %44 : !torch.vtensor<[1,32],f32>, !torch.vtensor<[32,32],f32>, !torch.vtensor<[32],f32> -> !torch.vtensor<[1,32],f32>
    %int1_34 = torch.constant.int 1
    %46 = torch.aten.add.Tensor %arg0, %45, %int1_34 : !torch.vtensor<[1,32],f32>, !torch.vtensor<[1,32],f32>, !torch.int -> !torch.vtensor<[1,32],f32>
    return %46 : !torch.vtensor<[1,32],f32>
  }
}
