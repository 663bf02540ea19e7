// Buffers threaded through scf.for iter_args, as bufferized IR does.
#map = affine_map<(d0) -> (-d0 + 40, 16)>

// The alloca is threaded through an inner loop and read after it, all inside one
// iteration of the outer loop: it never leaves that iteration.
func.func @threaded_inner(%out: memref<40xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c40 = arith.constant 40 : index
  %c7 = arith.constant 7 : i32
  scf.for %i = %c0 to %c40 step %c1 {
    %a = memref.alloca() : memref<4xi32>
    %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (memref<4xi32>) {
      memref.store %c7, %acc[%j] : memref<4xi32>
      scf.yield %acc : memref<4xi32>
    }
    %v = memref.load %r[%c0] : memref<4xi32>
    memref.store %v, %out[%i] : memref<40xi32>
  }
  return
}

// The same with a dynamic size bounded by affine.min: bound and hoisted.
func.func @threaded_inner_dynamic(%out: memref<40xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c7 = arith.constant 7 : i32
  scf.for %i = %c0 to %c40 step %c1 {
    %size = affine.min #map(%i)
    %a = memref.alloca(%size) : memref<?xi32>
    %r = scf.for %j = %c0 to %size step %c1 iter_args(%acc = %a) -> (memref<?xi32>) {
      memref.store %c7, %acc[%j] : memref<?xi32>
      scf.yield %acc : memref<?xi32>
    }
    %v = memref.load %r[%c0] : memref<?xi32>
    memref.store %v, %out[%i] : memref<40xi32>
  }
  return
}

// Chosen by an scf.if inside the iteration: still the same iteration's buffer.
func.func @through_if(%out: memref<40xi32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  scf.for %i = %c0 to %c40 step %c1 {
    %a = memref.alloca() : memref<4xi32>
    %b = scf.if %c -> (memref<4xi32>) {
      scf.yield %a : memref<4xi32>
    } else {
      scf.yield %a : memref<4xi32>
    }
    %v = memref.load %b[%c0] : memref<4xi32>
    memref.store %v, %out[%i] : memref<40xi32>
  }
  return
}

// Double buffering: each iteration hands its buffer to the next one. Not hoistable.
func.func @to_next_iteration(%init: memref<4xi32>, %out: memref<40xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %last = scf.for %i = %c0 to %c40 step %c1 iter_args(%prev = %init) -> (memref<4xi32>) {
    %a = memref.alloca() : memref<4xi32>
    memref.copy %prev, %a : memref<4xi32> to memref<4xi32>
    scf.yield %a : memref<4xi32>
  }
  %v = memref.load %last[%c0] : memref<4xi32>
  memref.store %v, %out[%c0] : memref<40xi32>
  return
}

// Threaded through an inner loop whose result the outer loop yields: it leaves.
func.func @inner_result_yielded_out(%init: memref<4xi32>) -> memref<4xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c40 = arith.constant 40 : index
  %last = scf.for %i = %c0 to %c40 step %c1 iter_args(%prev = %init) -> (memref<4xi32>) {
    %a = memref.alloc() : memref<4xi32>
    %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (memref<4xi32>) {
      scf.yield %acc : memref<4xi32>
    }
    scf.yield %r : memref<4xi32>
  }
  return %last : memref<4xi32>
}
