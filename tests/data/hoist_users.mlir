// A dynamic stack buffer per tile (size affine.min(72 - iv, 32), bound 32) used by each kind
// of user hoist-and-bound must keep working: every function copies %in to %out through it.
#tile = affine_map<(d0) -> (-d0 + 72, 32)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @user_load_store(%in: memref<8x72xi32>, %out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %one = arith.constant 1 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min #tile(%iv)
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %sz step %c1 {
        %jj = arith.addi %iv, %j : index
        %x = memref.load %in[%i, %jj] : memref<8x72xi32>
        %y = arith.addi %x, %one : i32
        memref.store %y, %buf[%i, %j] : memref<8x?xi32>
        %z = memref.load %buf[%i, %j] : memref<8x?xi32>
        memref.store %z, %out[%i, %jj] : memref<8x72xi32>
      }
    }
  }
  return
}

func.func @user_copy_linalg(%in: memref<8x72xi32>, %out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min #tile(%iv)
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    %src = memref.subview %in[0, %iv] [8, %sz] [1, 1]
        : memref<8x72xi32> to memref<8x?xi32, strided<[72, 1], offset: ?>>
    %dst = memref.subview %out[0, %iv] [8, %sz] [1, 1]
        : memref<8x72xi32> to memref<8x?xi32, strided<[72, 1], offset: ?>>
    memref.copy %src, %buf : memref<8x?xi32, strided<[72, 1], offset: ?>> to memref<8x?xi32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%buf : memref<8x?xi32>) outs(%dst : memref<8x?xi32, strided<[72, 1], offset: ?>>) {
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %a : i32
      linalg.yield %s : i32
    }
  }
  return
}

func.func @user_vector(%in: memref<8x72xi32>, %out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %pad = arith.constant 0 : i32
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min #tile(%iv)
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    scf.for %i = %c0 to %c8 step %c1 {
      %v = vector.transfer_read %in[%i, %iv], %pad : memref<8x72xi32>, vector<8xi32>
      vector.transfer_write %v, %buf[%i, %c0] : vector<8xi32>, memref<8x?xi32>
      %w = vector.transfer_read %buf[%i, %c0], %pad : memref<8x?xi32>, vector<8xi32>
      vector.transfer_write %w, %out[%i, %iv] : vector<8xi32>, memref<8x72xi32>
    }
  }
  return
}

func.func @user_subview(%in: memref<8x72xi32>, %out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min #tile(%iv)
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    %half = memref.subview %buf[4, 0] [4, %sz] [1, 1]
        : memref<8x?xi32> to memref<4x?xi32, strided<[?, 1], offset: ?>>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %sz step %c1 {
        %jj = arith.addi %iv, %j : index
        %x = memref.load %in[%i, %jj] : memref<8x72xi32>
        memref.store %x, %half[%i, %j] : memref<4x?xi32, strided<[?, 1], offset: ?>>
        %ii = arith.addi %i, %c4 : index
        %z = memref.load %buf[%ii, %j] : memref<8x?xi32>
        memref.store %z, %out[%i, %jj] : memref<8x72xi32>
      }
    }
  }
  return
}

func.func private @fill_from(%buf: memref<8x?xi32>, %in: memref<8x72xi32>, %iv: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %sz = memref.dim %buf, %c1 : memref<8x?xi32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %sz step %c1 {
      %jj = arith.addi %iv, %j : index
      %x = memref.load %in[%i, %jj] : memref<8x72xi32>
      memref.store %x, %buf[%i, %j] : memref<8x?xi32>
    }
  }
  return
}

func.func @user_call(%in: memref<8x72xi32>, %out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min #tile(%iv)
    %buf = memref.alloca(%sz) : memref<8x?xi32>
    func.call @fill_from(%buf, %in, %iv) : (memref<8x?xi32>, memref<8x72xi32>, index) -> ()
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %sz step %c1 {
        %jj = arith.addi %iv, %j : index
        %z = memref.load %buf[%i, %j] : memref<8x?xi32>
        memref.store %z, %out[%i, %jj] : memref<8x72xi32>
      }
    }
  }
  return
}

// Nested loops: the size depends on the inner IV; a static buffer sits in the inner loop too.
func.func @nested(%in: memref<8x72xi32>, %out: memref<8x72xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %iv = %c0 to %c72 step %c32 {
      %sz = affine.min #tile(%iv)
      %row = memref.alloca(%sz) : memref<?xi32>
      %tmp = memref.alloca() : memref<1xi32>
      scf.for %j = %c0 to %sz step %c1 {
        %jj = arith.addi %iv, %j : index
        %x = memref.load %in[%i, %jj] : memref<8x72xi32>
        memref.store %x, %tmp[%c0] : memref<1xi32>
        %t = memref.load %tmp[%c0] : memref<1xi32>
        memref.store %t, %row[%j] : memref<?xi32>
        %z = memref.load %row[%j] : memref<?xi32>
        memref.store %z, %out[%i, %jj] : memref<8x72xi32>
      }
    }
  }
  return
}
