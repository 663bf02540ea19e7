// RUN: memplan opt %s --target x86_64 -p constant-destinations

// CHECK lines match the printed IR, DIAG lines the diagnostics on stderr. A DIAG line sits
// above the op it is about; diagnostics come in source order, and DIAG-NEXT says nothing
// else was said in between (so an unexpected diagnostic fails the test). Remarks name the
// constant as the printer names it (%cst), not as the source does.

// A splat constant as a matmul's accumulator: tensor.empty + linalg.fill of the scalar,
// and the tensor constant is gone.
// CHECK-LABEL: func.func @splat_matmul(
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<128x256xf32>
// CHECK-NEXT:    %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<128x256xf32>)
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x64xf32>, tensor<64x256xf32>) outs(%[[FILL]] : tensor<128x256xf32>)
// CHECK-NOT:     dense<
// CHECK:         return
func.func @splat_matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  // DIAG: mlir:[[# @LINE + 1]]:8: remark: splat constant %cst as destination: now tensor.empty + linalg.fill
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>)
                     outs(%zero : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// An unfoldable splat stays unfoldable, now as a scalar.
// CHECK-LABEL: func.func @unfoldable_splat(
// CHECK-NEXT:    %[[TWO:.*]] = util.unfoldable_constant 2.000000e+00 : f32
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<1024xf32>
// CHECK-NEXT:    %[[FILL:.*]] = linalg.fill ins(%[[TWO]] : f32) outs(%[[EMPTY]] : tensor<1024xf32>)
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:      outs(%[[FILL]] : tensor<1024xf32>)
// CHECK-NOT:     dense<
// CHECK:         return
func.func @unfoldable_splat(%a: tensor<1024x64xf32>) -> tensor<1024xf32> {
  %init = util.unfoldable_constant dense<2.0> : tensor<1024xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: remark: splat constant %0 as destination: now tensor.empty + linalg.fill
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<1024x64xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// -----

// A non-splat constant reduced into (IREE #12233's shape): it becomes a read-only input,
// read only at the first step of the reduction (d0 == 0); later steps read the partial sum
// from a zero-filled tensor (never a tensor.empty, which IREE warns about reading).
// CHECK-LABEL: func.func @reduce_into_nonsplat(
// CHECK-NEXT:    %[[CST:.*]] = arith.constant dense<[0, 1, 2, {{.*}}, 31]> : tensor<32xi32>
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<32xi32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FILLED:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%[[EMPTY]] : tensor<32xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME:      ins(%{{.*}}, %[[CST]] : tensor<4x32xi32>, tensor<32xi32>) outs(%[[FILLED]] : tensor<32xi32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: i32, %[[INIT:.*]]: i32, %[[OUT:.*]]: i32):
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[STEP:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %[[C0]] : index
// CHECK-NEXT:      %[[ACC:.*]] = arith.select %[[FIRST]], %[[INIT]], %[[OUT]] : i32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %[[IN]], %[[ACC]] : i32
// CHECK-NEXT:      linalg.yield %[[SUM]] : i32
func.func @reduce_into_nonsplat(%arg0: tensor<4x32xi32>) -> tensor<32xi32> {
  %cst = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : tensor<32xi32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: remark: constant %cst as destination: now a read-only input, added at the first reduction step; result in a zero-filled tensor
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%arg0 : tensor<4x32xi32>) outs(%cst : tensor<32xi32>) {
  ^bb0(%in: i32, %out: i32):
    %s = arith.addi %in, %out : i32
    linalg.yield %s : i32
  } -> tensor<32xi32>
  return %r : tensor<32xi32>
}

// -----

// Every iterator parallel: the payload reads the extra input directly, no select.
// CHECK-LABEL: func.func @elementwise_nonsplat(
// CHECK:         ins(%{{.*}}, %[[CST:.*]] : tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[INIT:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[PRODUCT:.*]] = arith.mulf %[[IN]], %[[INIT]] : f32
// CHECK-NEXT:      linalg.yield %[[PRODUCT]] : f32
func.func @elementwise_nonsplat(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: remark: constant %cst as destination: now a read-only input
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.mulf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A named reduction of floats into a non-splat constant is refused: generalized, a matmul
// is no longer the contraction IREE compiles, so its sums would round in another order.
// An integer one is generalized (only this one; integer sums are exact in any order), and
// another reader of the constant keeps reading it, unchanged.
// CHECK-LABEL: func.func @named_and_shared(
// CHECK-NEXT:    %[[CST:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x2xf32>) outs(%[[CST]] : tensor<2x2xf32>)
// CHECK-LABEL: func.func @named_and_shared_int(
// CHECK-NEXT:    %[[CST:.*]] = arith.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[MM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %[[CST]] : tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x2xi32>)
// CHECK:           linalg.index 2 : index
// CHECK:         linalg.generic {{.*}} ins(%[[CST]], %[[MM]] : tensor<2x2xi32>, tensor<2x2xi32>)
func.func @named_and_shared(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: note: linalg.matmul reduces into non-splat constant %cst of f32: generalized to read it at the first reduction step, it would no longer be the contraction IREE compiles, and its float sums would round in another order; left alone
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>)
                     outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %m, %m : tensor<2x2xf32>, tensor<2x2xf32>
}

func.func @named_and_shared_int(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %c = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: remark: constant %cst as destination: now a read-only input
  %m = linalg.matmul ins(%a, %b : tensor<2x3xi32>, tensor<3x2xi32>)
                     outs(%c : tensor<2x2xi32>) -> tensor<2x2xi32>
  %e = tensor.empty() : tensor<2x2xi32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c, %m : tensor<2x2xi32>, tensor<2x2xi32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %z = arith.addi %x, %y : i32
    linalg.yield %z : i32
  } -> tensor<2x2xi32>
  return %m, %s : tensor<2x2xi32>, tensor<2x2xi32>
}

// -----

// An immutable global is a constant by another name; a mutable one is state, left alone.
// CHECK-LABEL: func.func @globals(
// CHECK-NEXT:    %[[BIAS:.*]] = util.global.load @bias : tensor<4xf32>
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[FILLED:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}}, %[[BIAS]] : tensor<4x8xf32>, tensor<4xf32>) outs(%[[FILLED]] : tensor<4xf32>)
// CHECK:         %[[STATE:.*]] = util.global.load @state : tensor<4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf32>) outs(%[[STATE]] : tensor<4xf32>)
util.global private @bias = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
util.global private mutable @state = dense<0.0> : tensor<4xf32>
func.func @globals(%a: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %b = util.global.load @bias : tensor<4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: remark: constant %bias as destination: now a read-only input
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %st = util.global.load @state : tensor<4xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%st : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r, %q : tensor<4xf32>, tensor<4xf32>
}

// -----

// An op that never reads its init gets a fresh tensor.empty, neither fill nor extra input;
// the constant, now unused, is erased. Also for ml_program's constant globals.
// CHECK-LABEL: func.func @never_reads_init(
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%[[EMPTY]] : tensor<4xf32>)
// CHECK-NOT:     arith.constant
// CHECK:         return
// CHECK-LABEL: func.func @copy_into_global_const(
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    linalg.copy ins(%{{.*}} : tensor<2xf32>) outs(%[[EMPTY]] : tensor<2xf32>)
func.func @never_reads_init(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: remark: linalg.generic never reads its init %cst: destination is tensor.empty
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

ml_program.global private @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
func.func @copy_into_global_const(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = ml_program.global_load_const @w : tensor<2xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: remark: linalg.copy never reads its init %w: destination is tensor.empty
  %r = linalg.copy ins(%a : tensor<2xf32>) outs(%c : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Refused: inserting into a constant copies it by definition; the IR is unchanged.
// CHECK-LABEL: func.func @insert_into_constant(
// CHECK-NEXT:    %[[CST:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    tensor.insert_slice %{{.*}} into %[[CST]][0] [2] [1] : tensor<2xf32> into tensor<4xf32>
// CHECK-LABEL: func.func @insert_element_into_constant(
// CHECK:         tensor.insert %{{.*}} into %cst[%c0] : tensor<4xf32>
func.func @insert_into_constant(%a: tensor<2xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: note: tensor.insert_slice inserts into constant %cst: the copy is the op's meaning; left alone
  %r = tensor.insert_slice %a into %c[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @insert_element_into_constant(%a: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: note: tensor.insert inserts into constant %cst: the copy is the op's meaning; left alone
  %r = tensor.insert %a into %c[%c0] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Refused: the destination is a view of a constant, not the constant.
// CHECK-LABEL: func.func @writes_a_view(
// CHECK:         %[[VIEW:.*]] = tensor.extract_slice %cst[0] [2] [1]
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[VIEW]] : tensor<2xf32>)
func.func @writes_a_view(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %v = tensor.extract_slice %c[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: note: writes a view of constant %cst: left alone
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<2xf32>) outs(%v : tensor<2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Not the pass's business: a constant only read, or not used at all, stays as it is, and
// nothing is said about it.
// CHECK-LABEL: func.func @only_read(
// CHECK-NEXT:    %[[CST:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[UNUSED:.*]] = arith.constant dense<[5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[CST]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
func.func @only_read(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %unused = arith.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%c : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Refused: a constant of dynamic shape as a destination. Read only, it is no concern of the
// pass and nothing is said about it.
// CHECK-LABEL: func.func @dynamic_destination(
// CHECK-NEXT:    %[[DYN:.*]] = util.global.load @dyn : tensor<?xf32>
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[DYN]] : tensor<?xf32>)
// CHECK-LABEL: func.func @dynamic_input(
// CHECK-NEXT:    %[[DYN:.*]] = util.global.load @dyn : tensor<?xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[DYN]] : tensor<?xf32>)
util.global private @dyn : tensor<?xf32>
func.func @dynamic_destination(%a: tensor<?xf32>) -> tensor<?xf32> {
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:8: note: constant with a dynamic shape used as a destination: left alone
  %c = util.global.load @dyn : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%c : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @dynamic_input(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c = util.global.load @dyn : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%c : tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
// DIAG-NOT: {{(remark|note|warning|error)}}:
