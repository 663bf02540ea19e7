// RUN: memplan opt %s --target x86_64 -p state-in-place

// CHECK lines match the printed IR, DIAG lines the diagnostics on stderr. A DIAG line sits
// above the op it is about; diagnostics come in source order, and DIAG-NEXT says nothing
// else was said in between (so an unexpected diagnostic fails the test).

// The KV-cache append (IREE #16128's shape): the concat of the prefix and the token, written
// back whole, becomes one insert of the token at the current position; the concat's reader
// reads a slice of the updated state.
// CHECK-LABEL: func.func @kv_cache(
// CHECK-SAME:      %[[TOKEN:.*]]: tensor<1x1x8x64xf32>)
// CHECK:         %[[CACHE:.*]] = util.global.load @k_cache : tensor<1x512x8x64xf32>
// CHECK-NEXT:    %[[POS:.*]] = util.global.load @seq_step : index
// CHECK-NEXT:    %[[UPDATED:.*]] = tensor.insert_slice %[[TOKEN]] into %[[CACHE]][0, %[[POS]], 0, 0] [1, 1, 8, 64] [1, 1, 1, 1] : tensor<1x1x8x64xf32> into tensor<1x512x8x64xf32>
// CHECK-NOT:     tensor.concat
// CHECK:         %[[LEN:.*]] = arith.addi %[[POS]], %{{.*}} : index
// CHECK-NEXT:    %[[CONTEXT:.*]] = tensor.extract_slice %[[UPDATED]][0, 0, 0, 0] [1, %[[LEN]], 8, 64] [1, 1, 1, 1] : tensor<1x512x8x64xf32> to tensor<1x?x8x64xf32>
// CHECK-NOT:     tensor.concat
// CHECK:         util.global.store %[[UPDATED]], @k_cache
// CHECK-NOT:     tensor.concat
// CHECK:         return %[[CONTEXT]]
util.global private mutable @k_cache = dense<0.0> : tensor<1x512x8x64xf32>
util.global private mutable @seq_step = 0 : index
func.func @kv_cache(%new_k: tensor<1x1x8x64xf32>) -> tensor<1x?x8x64xf32> {
  %c1 = arith.constant 1 : index
  %cache = util.global.load @k_cache : tensor<1x512x8x64xf32>
  %pos = util.global.load @seq_step : index
  %prefix = tensor.extract_slice %cache[0, 0, 0, 0] [1, %pos, 8, 64] [1, 1, 1, 1]
      : tensor<1x512x8x64xf32> to tensor<1x?x8x64xf32>
  %cat = tensor.concat dim(1) %prefix, %new_k
      : (tensor<1x?x8x64xf32>, tensor<1x1x8x64xf32>) -> tensor<1x?x8x64xf32>
  %len = arith.addi %pos, %c1 : index
  // DIAG: mlir:[[# @LINE + 2]]:14: remark: append to @k_cache along dim 1 now writes only the new data
  // DIAG-SAME: in place; readers of the concatenation read a slice of the state
  %updated = tensor.insert_slice %cat into %cache[0, 0, 0, 0] [1, %len, 8, 64] [1, 1, 1, 1]
      : tensor<1x?x8x64xf32> into tensor<1x512x8x64xf32>
  util.global.store %updated, @k_cache : tensor<1x512x8x64xf32>
  util.global.store %len, @seq_step : index
  return %cat : tensor<1x?x8x64xf32>
}

// -----

// Two states in ml_program globals, appended along dim 0 in one step: both rewritten.
// CHECK-LABEL: func.func @two_states(
// CHECK-SAME:      %[[KNEW:.*]]: tensor<2x4xf32>, %[[VNEW:.*]]: tensor<2x4xf32>)
// CHECK:         %[[POS:.*]] = util.global.load @pos : index
// CHECK-NEXT:    %[[K:.*]] = ml_program.global_load @k : tensor<16x4xf32>
// CHECK-NEXT:    %[[V:.*]] = ml_program.global_load @v : tensor<16x4xf32>
// CHECK-NEXT:    %[[K2:.*]] = tensor.insert_slice %[[KNEW]] into %[[K]][%[[POS]], 0] [2, 4] [1, 1]
// CHECK:         %[[V2:.*]] = tensor.insert_slice %[[VNEW]] into %[[V]][%[[POS]], 0] [2, 4] [1, 1]
// CHECK-NOT:     tensor.concat
// CHECK:         ml_program.global_store @k = %[[K2]]
// CHECK-NEXT:    ml_program.global_store @v = %[[V2]]
ml_program.global private mutable @k(dense<0.0> : tensor<16x4xf32>) : tensor<16x4xf32>
ml_program.global private mutable @v(dense<1.0> : tensor<16x4xf32>) : tensor<16x4xf32>
util.global private mutable @pos = 0 : index
func.func @two_states(%k_new: tensor<2x4xf32>, %v_new: tensor<2x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c2 = arith.constant 2 : index
  %p = util.global.load @pos : index
  %k = ml_program.global_load @k : tensor<16x4xf32>
  %v = ml_program.global_load @v : tensor<16x4xf32>
  %kp = tensor.extract_slice %k[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %vp = tensor.extract_slice %v[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %kc = tensor.concat dim(0) %kp, %k_new : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  %vc = tensor.concat dim(0) %vp, %v_new : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %c2, %p : index
  // DIAG-NEXT: mlir:[[# @LINE + 2]]:9: remark: append to @k along dim 0 now writes only the new data in place
  // DIAG-NEXT: mlir:[[# @LINE + 2]]:9: remark: append to @v along dim 0 now writes only the new data in place
  %k2 = tensor.insert_slice %kc into %k[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  %v2 = tensor.insert_slice %vc into %v[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  ml_program.global_store @k = %k2 : tensor<16x4xf32>
  ml_program.global_store @v = %v2 : tensor<16x4xf32>
  util.global.store %len, @pos : index
  return %kc, %vc : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Two pieces appended along the inner dimension: each written once, in order, the second
// after the first.
// CHECK-LABEL: func.func @two_pieces(
// CHECK-SAME:      %[[A:.*]]: tensor<4x1xf32>, %[[B:.*]]: tensor<4x2xf32>)
// CHECK:         %[[CACHE:.*]] = util.global.load @cache : tensor<4x16xf32>
// CHECK-NEXT:    %[[POS:.*]] = util.global.load @pos : index
// CHECK-NEXT:    %[[WITH_A:.*]] = tensor.insert_slice %[[A]] into %[[CACHE]][0, %[[POS]]] [4, 1] [1, 1]
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[AFTER_A:.*]] = arith.addi %[[POS]], %[[C1]] : index
// CHECK-NEXT:    %[[WITH_B:.*]] = tensor.insert_slice %[[B]] into %[[WITH_A]][0, %[[AFTER_A]]] [4, 2] [1, 1]
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[END:.*]] = arith.addi %[[AFTER_A]], %[[C2]] : index
// CHECK-NEXT:    %[[CONTEXT:.*]] = tensor.extract_slice %[[WITH_B]][0, 0] [4, %[[END]]] [1, 1]
// CHECK:         util.global.store %[[WITH_B]], @cache
// CHECK:         return %[[CONTEXT]]
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
util.global private mutable @pos = 0 : index
func.func @two_pieces(%a: tensor<4x1xf32>, %b: tensor<4x2xf32>) -> tensor<4x?xf32> {
  %c3 = arith.constant 3 : index
  %s = util.global.load @cache : tensor<4x16xf32>
  %p = util.global.load @pos : index
  %prefix = tensor.extract_slice %s[0, 0] [4, %p] [1, 1] : tensor<4x16xf32> to tensor<4x?xf32>
  %cat = tensor.concat dim(1) %prefix, %a, %b : (tensor<4x?xf32>, tensor<4x1xf32>, tensor<4x2xf32>) -> tensor<4x?xf32>
  %len = arith.addi %c3, %p : index
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:10: remark: append to @cache along dim 1
  %upd = tensor.insert_slice %cat into %s[0, 0] [4, %len] [1, 1] : tensor<4x?xf32> into tensor<4x16xf32>
  util.global.store %upd, @cache : tensor<4x16xf32>
  util.global.store %len, @pos : index
  return %cat : tensor<4x?xf32>
}

// -----

// The prefix is also returned: after the rewrite it too is a slice of the updated state, so
// the old state has no reader left but the insert.
// CHECK-LABEL: func.func @prefix_also_returned(
// CHECK:         %[[POS:.*]] = util.global.load @pos : index
// CHECK-NEXT:    %[[UPDATED:.*]] = tensor.insert_slice
// CHECK:         %[[CONTEXT:.*]] = tensor.extract_slice %[[UPDATED]][0, 0] [%{{.*}}, 4] [1, 1]
// CHECK-NEXT:    %[[PREFIX:.*]] = tensor.extract_slice %[[UPDATED]][0, 0] [%[[POS]], 4] [1, 1]
// CHECK:         return %[[CONTEXT]], %[[PREFIX]]
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
util.global private mutable @pos = 1 : index
func.func @prefix_also_returned(%new: tensor<1x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %p = util.global.load @pos : index
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:10: remark: append to @cache along dim 0
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  util.global.store %len, @pos : index
  return %cat, %prefix : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// The position is computed twice (an i64 global cast to index, as front ends emit it): the
// two casts are recognised as one value.
// CHECK-LABEL: func.func @position_cast_twice(
// CHECK:         %[[POS:.*]] = arith.index_cast
// CHECK-NEXT:    tensor.insert_slice %{{.*}} into %{{.*}}[%[[POS]], 0] [1, 4] [1, 1]
// CHECK-NOT:     tensor.concat
// CHECK:         return
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
util.global private mutable @step = 0 : i64
func.func @position_cast_twice(%new: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %i = util.global.load @step : i64
  %p = arith.index_cast %i : i64 to index
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %p2 = arith.index_cast %i : i64 to index
  %len = arith.addi %p2, %c1 : index
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:10: remark: append to @cache along dim 0
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  return %cat : tensor<?x4xf32>
}

// -----

// Refused: another op reads the old state (here it is copied to @other); updating @cache
// in place would force a copy of it.
// CHECK-LABEL: func.func @old_state_read(
// CHECK:         tensor.concat
// CHECK:         util.global.store %{{.*}}, @other
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
util.global private mutable @other = dense<0.0> : tensor<16x4xf32>
func.func @old_state_read(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 2]]:3: note: state update left alone: util.global.store reads the old contents
  // DIAG-SAME: of @cache; updating it in place would force a copy of the whole state
  util.global.store %s, @other : tensor<16x4xf32>
  return %cat : tensor<?x4xf32>
}

// -----

// Refused: the write-back's length is not the prefix's plus the new data (2, not 1).
// CHECK-LABEL: func.func @wrong_length(
// CHECK:         tensor.concat
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
func.func @wrong_length(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %c2 = arith.constant 2 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c2 : index
  // DIAG-NEXT: mlir:[[# @LINE + 2]]:10: note: state update left alone: the write-back length of @cache along
  // DIAG-SAME: dim 0 is not provably the prefix length + 1: it is the prefix length + 2
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  return %cat : tensor<?x4xf32>
}

// -----

// Refused: the prefix does not start at offset 0, or steps by 2.
// CHECK-LABEL: func.func @prefix_at_offset_1(
// CHECK:         tensor.concat
// CHECK-LABEL: func.func @prefix_with_stride_2(
// CHECK:         tensor.concat
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
func.func @prefix_at_offset_1(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:13: note: state update left alone: the prefix of @cache does not start at offset 0 along dim 0
  %prefix = tensor.extract_slice %s[1, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  return %cat : tensor<?x4xf32>
}

func.func @prefix_with_stride_2(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:13: note: state update left alone: the prefix of @cache has non-unit strides
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [2, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @cache : tensor<16x4xf32>
  return %cat : tensor<?x4xf32>
}

// -----

// Refused: the write-back goes to another global, or happens in another block.
// CHECK-LABEL: func.func @stored_elsewhere(
// CHECK:         tensor.concat
// CHECK-LABEL: func.func @written_back_in_a_branch(
// CHECK:         tensor.concat
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
util.global private mutable @other = dense<0.0> : tensor<16x4xf32>
func.func @stored_elsewhere(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:10: note: state update left alone: the write-back is not stored into @cache
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
  util.global.store %upd, @other : tensor<16x4xf32>
  return %cat : tensor<?x4xf32>
}

func.func @written_back_in_a_branch(%new: tensor<1x4xf32>, %p: index, %flag: i1) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @cache : tensor<16x4xf32>
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  scf.if %flag {
    %len = arith.addi %p, %c1 : index
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: note: state update left alone: the write-back is in another block than the concat
    %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x4xf32>
    util.global.store %upd, @cache : tensor<16x4xf32>
  }
  return %cat : tensor<?x4xf32>
}

// -----

// Refused: the write-back is not where the prefix was read (column 1, not 0); and a state
// of dynamic shape.
// CHECK-LABEL: func.func @not_at_the_prefix(
// CHECK:         tensor.concat
// CHECK-LABEL: func.func @dynamic_state(
// CHECK:         tensor.concat
util.global private mutable @wide = dense<0.0> : tensor<16x8xf32>
func.func @not_at_the_prefix(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @wide : tensor<16x8xf32>
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x8xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:10: note: state update left alone: the write-back into @wide is not at the prefix's offsets
  %upd = tensor.insert_slice %cat into %s[0, 1] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<16x8xf32>
  util.global.store %upd, @wide : tensor<16x8xf32>
  return %cat : tensor<?x4xf32>
}

util.global private mutable @dyn : tensor<?x4xf32>
func.func @dynamic_state(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %s = util.global.load @dyn : tensor<?x4xf32>
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  // DIAG-NEXT: mlir:[[# @LINE + 1]]:10: note: state update left alone: @dyn has a dynamic shape
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %len = arith.addi %p, %c1 : index
  %upd = tensor.insert_slice %cat into %s[0, 0] [%len, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  util.global.store %upd, @dyn : tensor<?x4xf32>
  return %cat : tensor<?x4xf32>
}

// -----

// Not an append: a prefix of the state is concatenated but never written back. Nothing to
// rewrite and nothing to say.
// CHECK-LABEL: func.func @never_written_back(
// CHECK:         %[[CAT:.*]] = tensor.concat
// CHECK-NEXT:    return %[[CAT]]
util.global private mutable @cache = dense<0.0> : tensor<16x4xf32>
func.func @never_written_back(%new: tensor<1x4xf32>, %p: index) -> tensor<?x4xf32> {
  %s = util.global.load @cache : tensor<16x4xf32>
  %prefix = tensor.extract_slice %s[0, 0] [%p, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
  %cat = tensor.concat dim(0) %prefix, %new : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  return %cat : tensor<?x4xf32>
}

// -----

// As iree-turbine exports it: the prefix length is torch's normalisation of the position
// p (clamp to [0, 16]) and the write-back length the same clamp of p + 1, computed apart;
// p is bounded only by cf.assert. Under 0 <= p <= 15 the second is the first plus 1.
// CHECK-LABEL: func.func @exported(
// CHECK-SAME:      %[[POS_T:.*]]: tensor<1xi64>, %[[TOKEN:.*]]: tensor<1x1x4xf32>)
// CHECK:         %[[START:.*]] = arith.maxsi
// CHECK-NEXT:    %[[UPDATED:.*]] = tensor.insert_slice %[[TOKEN]] into %{{.*}}[0, %[[START]], 0] [1, 1, 4] [1, 1, 1]
// CHECK-NOT:     tensor.concat
// CHECK:         util.global.store %[[UPDATED]], @pos_cache
util.global private mutable @pos_cache = dense<0.0> : tensor<1x16x4xf32>
func.func @exported(%pos_t: tensor<1xi64>, %new: tensor<1x1x4xf32>) -> tensor<1x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %cm1 = arith.constant -1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c15_i64 = arith.constant 15 : i64
  %p = tensor.extract %pos_t[%c0] : tensor<1xi64>
  %ge = arith.cmpi sge, %p, %c0_i64 : i64
  cf.assert %ge, "u0 >= 0"
  %le = arith.cmpi sle, %p, %c15_i64 : i64
  cf.assert %le, "u0 <= 15"
  %s = util.global.load @pos_cache : tensor<1x16x4xf32>
  %0 = arith.index_cast %p : i64 to index
  %1 = arith.cmpi slt, %0, %c0 : index
  %2 = arith.addi %0, %c16 : index
  %3 = arith.select %1, %2, %0 : index
  %4 = arith.cmpi slt, %3, %c0 : index
  %5 = arith.select %4, %cm1, %3 : index
  %6 = arith.minsi %5, %c16 : index
  %start = arith.maxsi %6, %c0 : index
  %prefix = tensor.extract_slice %s[0, 0, 0] [1, %start, 4] [1, 1, 1] : tensor<1x16x4xf32> to tensor<1x?x4xf32>
  %cat = tensor.concat dim(1) %prefix, %new : (tensor<1x?x4xf32>, tensor<1x1x4xf32>) -> tensor<1x?x4xf32>
  %q = arith.addi %p, %c1_i64 : i64
  %10 = arith.index_cast %q : i64 to index
  %11 = arith.cmpi slt, %10, %c0 : index
  %12 = arith.addi %10, %c16 : index
  %13 = arith.select %11, %12, %10 : index
  %14 = arith.cmpi slt, %13, %c0 : index
  %15 = arith.select %14, %cm1, %13 : index
  %16 = arith.minsi %15, %c16 : index
  %end = arith.maxsi %16, %c0 : index
  // DIAG: mlir:[[# @LINE + 1]]:10: remark: append to @pos_cache along dim 1 now writes only the new data
  %upd = tensor.insert_slice %cat into %s[0, 0, 0] [1, %end, 4] [1, 1, 1] : tensor<1x?x4xf32> into tensor<1x16x4xf32>
  util.global.store %upd, @pos_cache : tensor<1x16x4xf32>
  return %cat : tensor<1x?x4xf32>
}

// -----

// The same without the upper bound: at p = 16 both lengths clamp to 16, so the write-back
// is not the prefix plus the token; refused, saying where the proof stopped.
// CHECK-LABEL: func.func @unbounded(
// CHECK:         tensor.concat
// CHECK:         tensor.insert_slice
util.global private mutable @open_cache = dense<0.0> : tensor<1x16x4xf32>
func.func @unbounded(%pos_t: tensor<1xi64>, %new: tensor<1x1x4xf32>) -> tensor<1x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1_i64 = arith.constant 1 : i64
  %p = tensor.extract %pos_t[%c0] : tensor<1xi64>
  %s = util.global.load @open_cache : tensor<1x16x4xf32>
  %0 = arith.index_cast %p : i64 to index
  %1 = arith.minsi %0, %c16 : index
  %start = arith.maxsi %1, %c0 : index
  %prefix = tensor.extract_slice %s[0, 0, 0] [1, %start, 4] [1, 1, 1] : tensor<1x16x4xf32> to tensor<1x?x4xf32>
  %cat = tensor.concat dim(1) %prefix, %new : (tensor<1x?x4xf32>, tensor<1x1x4xf32>) -> tensor<1x?x4xf32>
  %q = arith.addi %p, %c1_i64 : i64
  %2 = arith.index_cast %q : i64 to index
  %3 = arith.minsi %2, %c16 : index
  %end = arith.maxsi %3, %c0 : index
  // DIAG-NEXT: mlir:[[# @LINE + 2]]:10: note: state update left alone: the write-back length of @open_cache along dim 1 is not
  // DIAG-SAME: provably the prefix length + 1:
  %upd = tensor.insert_slice %cat into %s[0, 0, 0] [1, %end, 4] [1, 1, 1] : tensor<1x?x4xf32> into tensor<1x16x4xf32>
  util.global.store %upd, @open_cache : tensor<1x16x4xf32>
  return %cat : tensor<1x?x4xf32>
}

// -----

// IREE's flow form (#16128 after global optimisation): the context is assembled in a new
// buffer and written back whole. Only the token is written, at the prefix's end; the
// context's reader reads a slice of the updated state.
// CHECK-LABEL: func.func @flow_form(
// CHECK-SAME:      %[[TOKEN:.*]]: tensor<1x1x4xf32>, %{{.*}}: index)
// CHECK:         %[[P:.*]] = arith.minsi
// CHECK:         %[[CACHE:.*]] = util.global.load @flow_cache
// CHECK-NOT:     flow.tensor.empty
// CHECK:         %[[UPDATED:.*]] = flow.tensor.update %[[TOKEN]], %[[CACHE]][%{{.*}}, %[[P]], %{{.*}}]
// CHECK-NEXT:    %[[CONTEXT:.*]] = tensor.extract_slice %[[UPDATED]][0, 0, 0] [1, %{{.*}}, 4]
// CHECK:         util.global.store %[[UPDATED]], @flow_cache
// CHECK-NEXT:    return %[[CONTEXT]]
util.global private mutable @flow_cache = dense<0.0> : tensor<1x16x4xf32>
func.func @flow_form(%new: tensor<1x1x4xf32>, %p0: index) -> tensor<1x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  %p = arith.minsi %p0, %c15 : index
  %n = arith.addi %p, %c1 : index
  %s = util.global.load @flow_cache : tensor<1x16x4xf32>
  %prefix = flow.tensor.slice %s[%c0, %c0, %c0 for %c1, %p, %c4] : tensor<1x16x4xf32> -> tensor<1x?x4xf32>{%p}
  %empty = flow.tensor.empty : tensor<1x?x4xf32>{%n}
  %a = flow.tensor.update %prefix, %empty[%c0, %c0, %c0] : tensor<1x?x4xf32>{%p} -> %empty as tensor<1x?x4xf32>{%n}
  %ctx = flow.tensor.update %new, %a[%c0, %p, %c0] : tensor<1x1x4xf32> -> %a as tensor<1x?x4xf32>{%n}
  // DIAG: mlir:[[# @LINE + 1]]:10: remark: append to @flow_cache along dim 1 now writes only the new data
  %upd = flow.tensor.update %ctx, %s[%c0, %c0, %c0] : tensor<1x?x4xf32>{%n} -> %s as tensor<1x16x4xf32>
  util.global.store %upd, @flow_cache : tensor<1x16x4xf32>
  return %ctx : tensor<1x?x4xf32>
}
// DIAG-NOT: {{(remark|note|warning|error)}}:
