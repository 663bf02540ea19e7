// RUN: not memplan opt %s --target x86_64 -p place
// RUN: not memplan opt %s --target cortex-m55 -p place | filecheck --check-prefix=M55 --diag-prefix=M55-DIAG
// RUN: not memplan opt %s --target cortex-m55+ethos-u55 -p place | filecheck --check-prefix=NPU --diag-prefix=NPU-DIAG
// RUN: not memplan opt %s --target cortex-m55 -p place --assume @unbounded:n<=4096 | filecheck --check-prefix=BOUNDED --diag-prefix=BOUNDED-DIAG

// Each input is placed four times, each run with its own check prefixes: on x86_64 (CHECK
// and DIAG; a 32 KiB stack frame and an unbounded heap), cortex-m55 (M55 and M55-DIAG; an
// 8 KiB frame, 1 KiB per stack buffer, SRAM and DRAM pools, a 32 KiB heap),
// cortex-m55+ethos-u55 (NPU and NPU-DIAG; the same with an NPU that cannot reach the
// stack), and cortex-m55 again with a bound on the unbounded buffer (BOUNDED and
// BOUNDED-DIAG). The IR prefixes match the printed IR; the DIAG ones match stderr: errors
// for what has nowhere to go, then what `memplan check` rejects in the placed IR (opt
// writes nothing then: exit 1), then the stack frames the placed IR allocates.

// x86_64 places everything: its only error is check's, for the workgroup buffer (below).
// DIAG-NOT: nowhere to go

// Two small buffers with disjoint lifetimes share one frame at the function entry, both
// at offset 0: the frame is the packed peak (256 B), not the sum. The dealloc is gone.
// CHECK-LABEL: func.func @frame(
// CHECK-NEXT:    %[[FRAME:.*]] = memref.alloca() alignment = 64 {memplan.space = "stack"} : memref<256xi8>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[FRAME]][%[[C0]]][] {memplan.offset = 0 : i64, memplan.space = "stack"} : memref<256xi8> to memref<64xf32>
// CHECK-NEXT:    call @use(%[[A]]) : (memref<64xf32>) -> ()
// CHECK-NEXT:    %[[C0_B:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[FRAME]][%[[C0_B]]][] {memplan.offset = 0 : i64, memplan.space = "stack"} : memref<256xi8> to memref<64xf32>
// CHECK-NEXT:    call @use(%[[B]]) : (memref<64xf32>) -> ()
// CHECK-NEXT:    return
// M55-LABEL:   func.func @frame(
// M55-NEXT:      memref.alloca() alignment = 16 {memplan.space = "stack"} : memref<256xi8>
func.func private @use(memref<64xf32>)
func.func @frame(%n: index) {
  %a = memref.alloc() : memref<64xf32>
  func.call @use(%a) : (memref<64xf32>) -> ()
  memref.dealloc %a : memref<64xf32>
  %b = memref.alloca() : memref<64xf32>
  func.call @use(%b) : (memref<64xf32>) -> ()
  return
}

// -----

// 4 KiB and 64 KiB. x86_64: the first in the frame, the second over the frame limit on
// the heap (a memref.alloca becomes memref.alloc, freed before the block's terminator).
// cortex-m55: both over the 1 KiB rule, in the SRAM pool, sharing offset 0; users keep their
// types through a memory_space_cast.
// CHECK-LABEL: func.func @sizes(
// CHECK-NEXT:    %[[FRAME:.*]] = memref.alloca() alignment = 64 {memplan.space = "stack"} : memref<4096xi8>
// CHECK:         memref.view %[[FRAME]][%{{.*}}][] {memplan.offset = 0 : i64, memplan.space = "stack"} : memref<4096xi8> to memref<1024xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         %[[BIG:.*]] = memref.alloc() {memplan.space = "heap"} : memref<16384xf32>
// CHECK-NEXT:    call @use_big(%[[BIG]])
// CHECK-NEXT:    memref.dealloc %[[BIG]] : memref<16384xf32>
// CHECK-NEXT:    return
// M55:         memref.global "private" @memplan_pool_sram : memref<65536xi8, "sram"> = uninitialized alignment = 16
// M55-LABEL:   func.func @sizes(
// M55-NEXT:      %[[POOL:.*]] = memref.get_global @memplan_pool_sram : memref<65536xi8, "sram">
// M55:           %[[MID:.*]] = memref.view %[[POOL]][%{{.*}}][] {memplan.offset = 0 : i64, memplan.space = "sram"} : memref<65536xi8, "sram"> to memref<1024xf32, "sram">
// M55-NEXT:      %[[MID_CAST:.*]] = memref.memory_space_cast %[[MID]] : memref<1024xf32, "sram"> to memref<1024xf32>
// M55-NEXT:      call @use(%[[MID_CAST]])
// M55:           %[[BIG:.*]] = memref.view %[[POOL]][%{{.*}}][] {memplan.offset = 0 : i64, memplan.space = "sram"} : memref<65536xi8, "sram"> to memref<16384xf32, "sram">
// M55-NEXT:      %[[BIG_CAST:.*]] = memref.memory_space_cast %[[BIG]]
// M55-NEXT:      call @use_big(%[[BIG_CAST]])
// M55-NOT:       memref.dealloc
// M55:           return
func.func private @use(memref<1024xf32>)
func.func private @use_big(memref<16384xf32>)
func.func @sizes() {
  %mid = memref.alloc() : memref<1024xf32>
  func.call @use(%mid) : (memref<1024xf32>) -> ()
  memref.dealloc %mid : memref<1024xf32>
  %big = memref.alloca() : memref<16384xf32>
  func.call @use_big(%big) : (memref<16384xf32>) -> ()
  return
}

// -----

// A buffer inside a loop gets no static slot: heap, allocated and freed per iteration.
// CHECK-LABEL: func.func @in_loop(
// CHECK:         scf.for
// CHECK-NEXT:      %[[BUF:.*]] = memref.alloc() {memplan.space = "heap"} : memref<16xf32>
// CHECK-NEXT:      memref.store %{{.*}}, %[[BUF]][%c0]
// CHECK-NEXT:      memref.dealloc %[[BUF]] : memref<16xf32>
// CHECK-NEXT:    }
// M55-LABEL:   func.func @in_loop(
// M55:           memref.alloc() {memplan.space = "heap"} : memref<16xf32>
func.func @in_loop() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %buf = memref.alloca() : memref<16xf32>
    memref.store %z, %buf[%c0] : memref<16xf32>
  }
  return
}

// -----

// Memory spaces the IR fixed: workgroup memory is left alone everywhere; a "dram" buffer
// is not the x86_64 target's business, and goes to cortex-m55's DRAM pool (no cast: its type
// already names the space).
// CHECK-LABEL: func.func @fixed_spaces(
// CHECK:         memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[DRAM:.*]] = memref.alloc() : memref<64xf32, "dram">
// CHECK:         memref.dealloc %[[DRAM]]
// M55:           memref.global "private" @memplan_pool_dram : memref<256xi8, "dram">
// M55-LABEL:   func.func @fixed_spaces(
// M55:           memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// M55:           %[[DRAM:.*]] = memref.view %{{.*}}[%{{.*}}][] {memplan.offset = 0 : i64, memplan.space = "dram"} : memref<256xi8, "dram"> to memref<64xf32, "dram">
// M55-NEXT:      memref.store %{{.*}}, %[[DRAM]][%c0] : memref<64xf32, "dram">
// M55-NEXT:      return
func.func @fixed_spaces() {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %w = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %z, %w[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
  %d = memref.alloc() : memref<64xf32, "dram">
  memref.store %z, %d[%c0] : memref<64xf32, "dram">
  memref.dealloc %d : memref<64xf32, "dram">
  return
}

// -----

// A size nothing bounds: x86_64's unbounded heap takes it; cortex-m55 has nowhere to put
// it (an error naming every space and why), and leaves it as it is. With --assume n<=4096
// its bound, 16 KiB, goes to cortex-m55's SRAM pool as a view of the dynamic size.
// BOUNDED:       memref.global "private" @memplan_pool_sram : memref<16384xi8, "sram">
// BOUNDED-LABEL: func.func @unbounded(
// BOUNDED-SAME:      %[[N:.*]]: index)
// BOUNDED:         %[[VIEW:.*]] = memref.view %{{.*}}[%{{.*}}][%[[N]]] {memplan.offset = 0 : i64, memplan.space = "sram"} : memref<16384xi8, "sram"> to memref<?xf32, "sram">
// BOUNDED-NEXT:    memref.memory_space_cast %[[VIEW]] : memref<?xf32, "sram"> to memref<?xf32>
// BOUNDED-NOT:     memref.dealloc
// BOUNDED-DIAG-NOT: nowhere to go
// CHECK-LABEL: func.func @unbounded(
// CHECK:         memref.alloc(%{{.*}}) {memplan.space = "heap"} : memref<?xf32>
// M55-LABEL:   func.func @unbounded(
// M55:           memref.alloc(%{{.*}}) : memref<?xf32>
// M55-NEXT:      memref.store
// M55-NEXT:      memref.dealloc
func.func @unbounded(%n: index) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  // M55-DIAG: mlir:[[# @LINE + 4]]:8: error: memref.alloc in @unbounded has nowhere to go: stack, sram, dram:
  // M55-DIAG-SAME: size not bounded (size comes from argument %n of @unbounded, which has no upper bound
  // M55-DIAG-SAME: heap: holds only 32768 B and the size has no bound (target cortex-m55)
  // NPU-DIAG: mlir:[[# @LINE + 1]]:8: error: memref.alloc in @unbounded has nowhere to go
  %a = memref.alloc(%n) : memref<?xf32>
  memref.store %z, %a[%c0] : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A buffer the NPU touches: on the stack where there is no NPU, in SRAM where there is one
// (the NPU cannot address the CPU's stack).
// CHECK-LABEL: func.func @npu(
// CHECK-NEXT:    memref.alloca() alignment = 64 {memplan.space = "stack"} : memref<512xi8>
// NPU:         memref.global "private" @memplan_pool_sram : memref<512xi8, "sram">
// NPU-LABEL:   func.func @npu(
// NPU-NOT:       memref.alloca
// NPU:           %[[VIEW:.*]] = memref.view %{{.*}} {memplan.offset = 0 : i64, memplan.space = "sram"}
// NPU-NEXT:      %[[CAST:.*]] = memref.memory_space_cast %[[VIEW]] : memref<512xi8, "sram"> to memref<512xi8>
// NPU-NEXT:      call @npu_op(%[[CAST]]) {memplan.device = "npu"}
func.func private @npu_op(memref<512xi8>)
func.func @npu() {
  %a = memref.alloc() : memref<512xi8>
  func.call @npu_op(%a) {memplan.device = "npu"} : (memref<512xi8>) -> ()
  memref.dealloc %a : memref<512xi8>
  return
}

// -----

// Buffers that cannot be a view of the frame or pool: a non-identity layout becomes an
// alloca of its own (stack) with its offset recorded; a tensor allocation gets the pool as
// its memory space, left to bufferization.
// CHECK-LABEL: func.func @no_view(
// CHECK:         memref.alloca() {memplan.offset = 0 : i64, memplan.space = "stack"} : memref<64xf32, strided<[2]>>
// CHECK-NOT:     memref.dealloc
// CHECK:         bufferization.alloc_tensor() {memplan.offset = {{[0-9]+}} : i64, memplan.space = "stack"} : tensor<256xf32>
// M55-LABEL:   func.func @no_view(
// M55:           bufferization.alloc_tensor() <{memory_space = "sram"}> {memplan.offset = 0 : i64, memplan.space = "sram"} : tensor<4096xf32>
func.func @no_view() {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64xf32, strided<[2]>>
  memref.store %z, %a[%c0] : memref<64xf32, strided<[2]>>
  memref.dealloc %a : memref<64xf32, strided<[2]>>
  %t = bufferization.alloc_tensor() : tensor<256xf32>
  %big = bufferization.alloc_tensor() : tensor<4096xf32>
  return
}

// Then what check rejects in the placed IR: the workgroup buffer of @fixed_spaces, on
// targets without workgroup memory. The placement leaves it alone; the target cannot run it.
// DIAG:           mlir:{{[0-9]+}}:8: error: workgroup allocation in @fixed_spaces, but target 'x86_64' has no workgroup memory
// M55-DIAG:       mlir:{{[0-9]+}}:8: error: workgroup allocation in @fixed_spaces, but target 'cortex-m55' has no workgroup memory
// NPU-DIAG:       mlir:{{[0-9]+}}:8: error: workgroup allocation in @fixed_spaces, but target 'cortex-m55+ethos-u55' has no workgroup memory
// BOUNDED-DIAG:   mlir:{{[0-9]+}}:8: error: workgroup allocation in @fixed_spaces, but target 'cortex-m55' has no workgroup memory

// After the errors, the frame of each function with a stack buffer, as the placed IR
// allocates it (on cortex-m55, @sizes has none: both its buffers are in SRAM).
// DIAG-NEXT:      stack frame @frame: 256 of 32768 bytes (1 allocation packed
// DIAG-NEXT:      stack frame @sizes ({{.*}}): 4096 of 32768 bytes
// DIAG-NEXT:      stack frame @npu ({{.*}}): 512 of 32768 bytes
// DIAG-NEXT:      stack frame @no_view ({{.*}}): 256 of 32768 bytes
// M55-DIAG-NEXT:  stack frame @frame: 256 of 8192 bytes
// M55-DIAG-NEXT:  stack frame @npu ({{.*}}): 512 of 8192 bytes
// M55-DIAG-NEXT:  stack frame @no_view ({{.*}}): 256 of 8192 bytes
// NPU-DIAG-NEXT:  stack frame @frame: 256 of 8192 bytes
// NPU-DIAG-NEXT:  stack frame @no_view ({{.*}}): 256 of 8192 bytes
// BOUNDED-DIAG-NEXT: stack frame @frame
