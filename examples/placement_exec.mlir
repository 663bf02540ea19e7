// Four buffers in a chain, each freed after its next use: packed into a frame,
// %a and %c share bytes (as do %b and %d). Each stage reads its input reversed,
// so two live buffers sharing bytes would change the output. Running the function
// before and after `memplan place --apply` must give the same output.
func.func @chain(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c63 = arith.constant 63 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %a[%i] : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %r = arith.subi %c63, %i : index
    %x = memref.load %a[%r] : memref<64xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %b[%i] : memref<64xf32>
  }
  memref.dealloc %a : memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %r = arith.subi %c63, %i : index
    %x = memref.load %b[%r] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %c[%i] : memref<64xf32>
  }
  memref.dealloc %b : memref<64xf32>
  %d = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %r = arith.subi %c63, %i : index
    %x = memref.load %c[%r] : memref<64xf32>
    %z = memref.load %in[%i] : memref<64xf32>
    %y = arith.subf %x, %z : f32
    memref.store %y, %d[%i] : memref<64xf32>
  }
  memref.dealloc %c : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %d[%i] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  memref.dealloc %d : memref<64xf32>
  return
}
