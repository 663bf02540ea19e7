// Kernels after the LLVM conversion, shaped as `iree-compile --compile-to=executable-targets`
// (llvm-cpu) leaves them: stack slots are llvm.alloca.
module {
  llvm.func @kernel(%arg0: !llvm.ptr) -> i32 {
    %one = llvm.mlir.constant(1 : i32) : i32
    %a = llvm.alloca %one x !llvm.array<4 x f32> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %b = llvm.alloca %one x !llvm.array<4 x f32> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %n = llvm.mlir.constant(8192 : i64) : i64
    %big = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
    %zero = llvm.mlir.constant(0 : i32) : i32
    llvm.return %zero : i32
  }
  llvm.func @dynamic(%count: i64) {
    %buf = llvm.alloca %count x i8 : (i64) -> !llvm.ptr
    llvm.return
  }
  llvm.func @in_block_loop(%limit: i64) {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    llvm.br ^loop(%zero : i64)
  ^loop(%i: i64):
    %tmp = llvm.alloca %one x !llvm.array<16 x i32> : (i64) -> !llvm.ptr
    %next = llvm.add %i, %one : i64
    %more = llvm.icmp "slt" %next, %limit : i64
    llvm.cond_br %more, ^loop(%next : i64), ^done
  ^done:
    llvm.return
  }
}
