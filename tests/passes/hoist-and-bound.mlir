// RUN: not memplan opt %s --target x86_64 -p hoist-and-bound
// RUN: not memplan opt %s --target x86_64 -p hoist-and-bound --assume @unbounded:n<=8 | filecheck --check-prefix=ASSUME --diag-prefix=ASSUME-DIAG

// CHECK lines match the printed IR, DIAG lines the diagnostics on stderr. A DIAG line sits
// above the op it is about; diagnostics come in source order, and DIAG-NEXT says nothing
// else was said in between (so an unexpected diagnostic fails the test).

// A dynamic stack buffer with a proven bound (affine.min <= 32): one static buffer of the
// bound at the entry, a subview of the dynamic size in the loop.
// CHECK-LABEL: func.func @bounded_alloca(
// CHECK-NEXT:    %[[BOUND:.*]] = memref.alloca() : memref<8x32xi32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[IV:.*]] = %c0 to %c72 step %c32 {
// CHECK-NEXT:      %[[SIZE:.*]] = affine.min #map(%[[IV]])
// CHECK-NEXT:      %[[VIEW:.*]] = memref.subview %[[BOUND]][0, 0] [8, %[[SIZE]]] [1, 1] : memref<8x32xi32> to memref<8x?xi32, strided<[32, 1]>>
// CHECK-NOT:     memref.alloca
// CHECK:           memref.store %{{.*}}, %[[VIEW]][%{{.*}}, %c0] : memref<8x?xi32, strided<[32, 1]>>
// CHECK-NEXT:      memref.load %[[VIEW]][
// CHECK:         return
func.func @bounded_alloca(%out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    // DIAG:      mlir:[[# @LINE + 2]]:12: remark: stack allocation of memref<8x?xi32> bound to memref<8x32xi32>
    // DIAG-SAME: (1024 bytes) at the function entry; the loop views its dynamic size through a memref.subview
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %zero, %buf[%i, %c0] : memref<8x?xi32>
      %v = memref.load %buf[%i, %c0] : memref<8x?xi32>
      memref.store %v, %out[%i, %iv] : memref<8x72xi32>
    }
  }
  return
}

// -----

// The same on the heap: the bound buffer is allocated at the entry and freed after the loop.
// CHECK-LABEL: func.func @bounded_alloc(
// CHECK-NEXT:    %[[BOUND:.*]] = memref.alloc() : memref<8x32xi32>
// CHECK:         scf.for
// CHECK:           %[[VIEW:.*]] = memref.subview %[[BOUND]][0, 0] [8, %{{.*}}] [1, 1]
// CHECK-NEXT:      memref.store %{{.*}}, %[[VIEW]]
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[BOUND]] : memref<8x32xi32>
// CHECK-NEXT:    return
func.func @bounded_alloc(%out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    // DIAG-NEXT: mlir:[[# @LINE + 2]]:12: remark: heap allocation of memref<8x?xi32> bound to memref<8x32xi32>
    // DIAG-SAME: (1024 bytes) at the function entry; the loop views its dynamic size through a memref.subview
    %buf = memref.alloc(%sz) : memref<8x?xi32>
    memref.store %zero, %buf[%c0, %c0] : memref<8x?xi32>
    memref.dealloc %buf : memref<8x?xi32>
  }
  return
}

// -----

// A static buffer in a loop moves to the entry; its dealloc to after the loop.
// CHECK-LABEL: func.func @static_alloc(
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloc() : memref<8x32xi32>
// CHECK:         scf.for
// CHECK-NEXT:      memref.store %{{.*}}, %[[BUF]][%c0, %c0] : memref<8x32xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[BUF]] : memref<8x32xi32>
// CHECK-NEXT:    return
func.func @static_alloc(%out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: remark: hoisted heap allocation of memref<8x32xi32> (1024 bytes) to the function entry
    %buf = memref.alloc() : memref<8x32xi32>
    memref.store %zero, %buf[%c0, %c0] : memref<8x32xi32>
    memref.dealloc %buf : memref<8x32xi32>
  }
  return
}

// -----

// A heap size invariant in both loops moves, with the op computing it, before the outer
// loop; it stays dynamic.
// CHECK-LABEL: func.func @invariant_heap_size(
// CHECK-SAME:      %[[N:.*]]: index)
// CHECK:         %[[SIZE:.*]] = arith.muli %[[N]], %c8 : index
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloc(%[[SIZE]]) : memref<?xi32>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store %{{.*}}, %[[BUF]][
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[BUF]] : memref<?xi32>
func.func @invariant_heap_size(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  // DIAG-NEXT: mlir:[[# @LINE + 5]]:14: remark: hoisted heap allocation of memref<?xi32> with its
  // DIAG-SAME: loop-invariant size out of the loop at line [[# @LINE + 1]]
  scf.for %iv = %c0 to %c72 step %c32 {
    scf.for %i = %c0 to %c8 step %c1 {
      %m = arith.muli %n, %c8 : index
      %buf = memref.alloc(%m) : memref<?xi32>
      memref.store %zero, %buf[%i] : memref<?xi32>
      memref.dealloc %buf : memref<?xi32>
    }
  }
  return
}

// -----

// Users that need the original type (memref.cast, func.call) get a packed
// memref.reinterpret_cast of that type; the callee keeps its signature.
// CHECK-LABEL: func.func private @fill(memref<8x?xi32>)
// CHECK-LABEL: func.func @needs_original_type(
// CHECK-NEXT:    %[[BOUND:.*]] = memref.alloca() : memref<8x32xi32>
// CHECK:           %[[SIZE:.*]] = affine.min
// CHECK-NEXT:      %[[VIEW:.*]] = memref.reinterpret_cast %[[BOUND]] to offset: [0], sizes: [8, %[[SIZE]]], strides: [%[[SIZE]], 1] : memref<8x32xi32> to memref<8x?xi32>
// CHECK-NEXT:      func.call @fill(%[[VIEW]]) : (memref<8x?xi32>) -> ()
// CHECK-NEXT:      memref.cast %[[VIEW]] : memref<8x?xi32> to memref<?x?xi32>
func.func private @fill(%buf: memref<8x?xi32>)

func.func @needs_original_type() {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    // DIAG-NEXT: mlir:[[# @LINE + 2]]:12: remark: stack allocation of memref<8x?xi32> bound to memref<8x32xi32>
    // DIAG-SAME: through a memref.reinterpret_cast keeping the original type
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    func.call @fill(%buf) : (memref<8x?xi32>) -> ()
    %any = memref.cast %buf : memref<8x?xi32> to memref<?x?xi32>
    memref.store %zero, %any[%c0, %c0] : memref<?x?xi32>
  }
  return
}

// -----

// A subview of the buffer gets its result type re-inferred from the bound's layout.
// CHECK-LABEL: func.func @subview_user(
// CHECK:         %[[VIEW:.*]] = memref.subview %{{.*}}[0, 0] [8, %{{.*}}] [1, 1] : memref<8x32xi32> to memref<8x?xi32, strided<[32, 1]>>
// CHECK-NEXT:    %[[HALF:.*]] = memref.subview %[[VIEW]][4, 0] [4, %{{.*}}] [1, 1] : memref<8x?xi32, strided<[32, 1]>> to memref<4x?xi32, strided<[32, 1], offset: 128>>
// CHECK-NEXT:    memref.store %{{.*}}, %[[HALF]][%c0, %c0] : memref<4x?xi32, strided<[32, 1], offset: 128>>
func.func @subview_user() {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: remark: stack allocation of memref<8x?xi32> bound to memref<8x32xi32>
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    %half = memref.subview %buf[4, 0] [4, %sz] [1, 1]
        : memref<8x?xi32> to memref<4x?xi32, strided<[?, 1], offset: ?>>
    memref.store %zero, %half[%c0, %c0] : memref<4x?xi32, strided<[?, 1], offset: ?>>
  }
  return
}

// -----

// A dynamic stack buffer outside any loop still gets a static size: its bound.
// CHECK-LABEL: func.func @entry_dynamic_alloca(
// CHECK-NEXT:    %[[BOUND:.*]] = memref.alloca() : memref<16xf32>
// CHECK:         %[[SIZE:.*]] = arith.minui
// CHECK-NEXT:    memref.subview %[[BOUND]][0] [%[[SIZE]]] [1] : memref<16xf32> to memref<?xf32, strided<[1]>>
// CHECK-NOT:     memref.alloca
func.func @entry_dynamic_alloca(%n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.minui %n, %c16 : index
  // DIAG-NEXT: mlir:[[# @LINE + 2]]:10: remark: stack allocation of memref<?xf32> bound to memref<16xf32> (64 bytes)
  // DIAG-SAME: at the function entry; its users view its dynamic size through a memref.subview
  %buf = memref.alloca(%m) : memref<?xf32>
  memref.store %zero, %buf[%c0] : memref<?xf32>
  return
}

// -----

// Every sequential loop counts: affine.for (with the same bound-and-view rewrite) and
// scf.while (whose body is left by a static buffer).
// CHECK-LABEL: func.func @affine_loop(
// CHECK-NEXT:    %[[BOUND:.*]] = memref.alloca() : memref<32xi32>
// CHECK:         affine.for
// CHECK-NEXT:      %[[SIZE:.*]] = affine.min
// CHECK-NEXT:      %[[VIEW:.*]] = memref.subview %[[BOUND]][0] [%[[SIZE]]] [1] : memref<32xi32> to memref<?xi32, strided<[1]>>
// CHECK-NEXT:      affine.store %{{.*}}, %[[VIEW]][0]
// CHECK-LABEL: func.func @while_loop(
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloc() : memref<16xi32>
// CHECK:         scf.while
// CHECK-NOT:       memref.alloc
// CHECK:           memref.store %{{.*}}, %[[BUF]][%c0]
// CHECK-NOT:       memref.dealloc
// CHECK:         }
// CHECK-NEXT:    memref.dealloc %[[BUF]] : memref<16xi32>
// CHECK-NEXT:    return
func.func @affine_loop(%out: memref<72xi32>) {
  %zero = arith.constant 0 : i32
  affine.for %iv = 0 to 72 step 32 {
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: remark: stack allocation of memref<?xi32> bound to memref<32xi32> (128 bytes)
    %buf = memref.alloca(%sz) : memref<?xi32>
    affine.store %zero, %buf[0] : memref<?xi32>
  }
  return
}

func.func @while_loop(%n: i32) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.while (%i = %zero) : (i32) -> i32 {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: remark: hoisted heap allocation of memref<16xi32> (64 bytes) to the function entry
    %buf = memref.alloc() : memref<16xi32>
    memref.store %j, %buf[%c0] : memref<16xi32>
    memref.dealloc %buf : memref<16xi32>
    %next = arith.addi %j, %one : i32
    scf.yield %next : i32
  }
  return
}

// -----

// Nothing leaves a parallel loop: each iteration needs its own buffer. The buffer leaves
// the scf.for only, to the start of the scf.parallel body.
// CHECK-LABEL: func.func @parallel(
// CHECK:         scf.parallel
// CHECK-NEXT:      %[[BUF:.*]] = memref.alloca() : memref<4xi32>
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store %{{.*}}, %[[BUF]][%c0] : memref<4xi32>
func.func @parallel() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.parallel (%p) = (%c0) to (%c8) step (%c1) {
    scf.for %iv = %c0 to %c72 step %c32 {
      // DIAG-NEXT: mlir:[[# @LINE + 2]]:14: remark: hoisted stack allocation of memref<4xi32> (16 bytes)
      // DIAG-SAME: to the start of the enclosing `scf.parallel` body
      %buf = memref.alloca() : memref<4xi32>
      memref.store %zero, %buf[%c0] : memref<4xi32>
    }
    scf.reduce
  }
  return
}

// -----

// Refused: the size grows with the loop and with %n, which nothing bounds; the function is
// left as it is. With --assume @unbounded:n<=8 the bound is 64 + 8 = 72.
// CHECK-LABEL: func.func @unbounded(
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for
// CHECK-NEXT:      %[[SIZE:.*]] = arith.addi
// CHECK-NEXT:      memref.alloca(%[[SIZE]]) : memref<8x?xi32>
// ASSUME-LABEL: func.func @unbounded(
// ASSUME-NEXT:    %[[BOUND:.*]] = memref.alloca() : memref<8x72xi32>
// ASSUME:         memref.subview %[[BOUND]][0, 0] [8, %{{.*}}] [1, 1] : memref<8x72xi32> to memref<8x?xi32, strided<[72, 1]>>
func.func @unbounded(%out: memref<8x72xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = arith.addi %iv, %n : index
    // DIAG-NEXT: mlir:[[# @LINE + 4]]:12: error: stack allocation of memref<8x?xi32> is not hoisted: its size changes
    // DIAG-SAME: in the `scf.for` at line [[# @LINE - 3]] and has no proven bound
    // DIAG-NEXT: mlir:[[# @LINE + 2]]:12: note: size comes from argument %n of @unbounded, which has no upper bound
    // ASSUME-DIAG: mlir:[[# @LINE + 1]]:12: remark: stack allocation of memref<8x?xi32> bound to memref<8x72xi32> (2304 bytes)
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    memref.store %zero, %buf[%c0, %c0] : memref<8x?xi32>
  }
  return
}

// -----

// Refused: the size is loaded from memory, which the range analysis does not model.
// CHECK-LABEL: func.func @size_from_memory(
// CHECK:         scf.for
// CHECK-NEXT:      %[[SIZE:.*]] = memref.load
// CHECK-NEXT:      memref.alloca(%[[SIZE]]) : memref<?xi32>
func.func @size_from_memory(%sizes: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = memref.load %sizes[%c0] : memref<4xindex>
    // DIAG-NEXT: mlir:[[# @LINE + 2]]:12: error: stack allocation of memref<?xi32> is not hoisted
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: note: size comes from `memref.load`, which the range analysis does not model
    %buf = memref.alloca(%sz) : memref<?xi32>
    memref.store %zero, %buf[%c0] : memref<?xi32>
  }
  return
}

// -----

// Refused: the buffer is yielded to the next iteration.
// CHECK-LABEL: func.func @escapes(
// CHECK:         scf.for
// CHECK-NEXT:      %[[BUF:.*]] = memref.alloc() : memref<4xi32>
// CHECK-NEXT:      memref.copy
// CHECK-NEXT:      scf.yield %[[BUF]] : memref<4xi32>
func.func @escapes(%init: memref<4xi32>) -> memref<4xi32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %r = scf.for %iv = %c0 to %c72 step %c32 iter_args(%prev = %init) -> memref<4xi32> {
    // DIAG-NEXT: mlir:[[# @LINE + 3]]:12: error: heap allocation of memref<4xi32> is not hoisted out of the `scf.for`
    // DIAG-SAME: at line [[# @LINE - 2]]: the buffer is yielded by the loop it is made in (`scf.yield`)
    // DIAG-NEXT: mlir:[[# @LINE + 3]]:5: note: here
    %buf = memref.alloc() : memref<4xi32>
    memref.copy %prev, %buf : memref<4xi32> to memref<4xi32>
    scf.yield %buf : memref<4xi32>
  }
  return %r : memref<4xi32>
}

// -----

// Refused: the buffer is freed in a nested block, not its own.
// CHECK-LABEL: func.func @freed_elsewhere(
// CHECK:         scf.for
// CHECK-NEXT:      %[[BUF:.*]] = memref.alloc() : memref<4xi32>
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        memref.dealloc %[[BUF]]
func.func @freed_elsewhere(%flag: i1) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  scf.for %iv = %c0 to %c72 step %c32 {
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: error: heap allocation of memref<4xi32> is not hoisted: it is freed outside its own block
    %buf = memref.alloc() : memref<4xi32>
    scf.if %flag {
      memref.dealloc %buf : memref<4xi32>
    }
  }
  return
}

// -----

// Half done: the size depends on the outer loop's IV (times %n, unbounded), so the buffer
// leaves the inner loop only, with its size; the rest is an error.
// CHECK-LABEL: func.func @outer_iv_size(
// CHECK:         scf.for %[[IV:.*]] = %c0 to %c72
// CHECK-NEXT:      %[[SIZE:.*]] = arith.muli %[[IV]], %{{.*}} : index
// CHECK-NEXT:      %[[BUF:.*]] = memref.alloc(%[[SIZE]]) : memref<?xi32>
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.dealloc %[[BUF]]
func.func @outer_iv_size(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    // DIAG-NEXT: mlir:[[# @LINE + 7]]:14: remark: hoisted heap allocation of memref<?xi32> with its loop-invariant
    // DIAG-SAME: size out of the loop at line [[# @LINE + 4]]
    // DIAG-NEXT: mlir:[[# @LINE + 5]]:14: error: heap allocation of memref<?xi32> has no proven size bound; it was
    // DIAG-SAME: moved out of the `scf.for` at line [[# @LINE + 2]] (its size does not change there), no further
    // DIAG-NEXT: mlir:[[# @LINE + 3]]:14: note: size comes from argument %n of @outer_iv_size
    scf.for %i = %c0 to %c8 step %c1 {
      %m = arith.muli %iv, %n : index
      %buf = memref.alloc(%m) : memref<?xi32>
      memref.store %zero, %buf[%i] : memref<?xi32>
      memref.dealloc %buf : memref<?xi32>
    }
  }
  return
}

// -----

// Refused: a layout with symbols takes operands the hoist does not move.
// CHECK-LABEL: func.func @layout_symbols(
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc()[%{{.*}}] : memref<4xi32, #map>
func.func @layout_symbols(%s: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %zero = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    // DIAG-NEXT: mlir:[[# @LINE + 1]]:12: error: heap allocation of memref<4xi32, affine_map<(d0)[s0] -> (d0 + s0)>> has layout symbol operands; not hoisted
    %buf = memref.alloc()[%s] : memref<4xi32, affine_map<(d0)[s0] -> (d0 + s0)>>
    memref.store %zero, %buf[%c0] : memref<4xi32, affine_map<(d0)[s0] -> (d0 + s0)>>
  }
  return
}

// Then what `memplan check` still rejects in the result: the stack buffer of @parallel moved
// to the start of the parallel body is still allocated once per iteration (opt writes
// nothing: exit 1).
// DIAG-NEXT: mlir:{{[0-9]+}}:14: error: stack allocation of memref<4xi32> (16 bytes) inside a loop: it is only freed when @parallel returns
// After the last diagnostic, nothing but the stack frames.
// DIAG: stack frame @bounded_alloca: 1024 of 32768 bytes
