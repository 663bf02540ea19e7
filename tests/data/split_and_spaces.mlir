// Two chunks with the same function name; workgroup memory; alloc_tensor; an opaque size.
func.func @f(%n: index {memplan.max = 16 : index}) {
  %a = memref.alloca() : memref<4xf32>
  %b = memref.alloc(%n) : memref<?xf16, #gpu.address_space<workgroup>>
  %t = bufferization.alloc_tensor(%n) : tensor<?x2xi8>
  return
}

// -----

func.func @f(%m: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %k = memref.load %m[%c0] : memref<4xindex>
  %a = memref.alloca(%k) : memref<?xi64>
  %v = memref.load %a[%c0] : memref<?xi64>
  return
}
