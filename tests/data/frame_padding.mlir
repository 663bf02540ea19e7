// Three 4-byte buffers live at once: 12 bytes, but each starts at a 16-byte boundary.
func.func @three_words(%out: memref<3xi32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<1xi32>
  %b = memref.alloca() : memref<1xi32>
  %c = memref.alloca() : memref<1xi32>
  %x = memref.load %a[%c0] : memref<1xi32>
  %y = memref.load %b[%c0] : memref<1xi32>
  %z = memref.load %c[%c0] : memref<1xi32>
  memref.store %z, %a[%c0] : memref<1xi32>
  memref.store %x, %b[%c0] : memref<1xi32>
  memref.store %y, %c[%c0] : memref<1xi32>
  memref.store %x, %out[%c0] : memref<3xi32>
  memref.store %y, %out[%c0] : memref<3xi32>
  memref.store %z, %out[%c0] : memref<3xi32>
  return
}
