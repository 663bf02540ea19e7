"""The op kinds memplan reasons about: one vocabulary for every layer.

Each set names MLIR ops by their full name. Analyses, checks and rewrites ask
"is this a loop / an allocation / a view" here and nowhere else, so a dialect
that grows a new loop or view op is taught to memplan in one line.
"""

from __future__ import annotations

# Ops with a body that is a function: the unit every analysis works on.
FUNCTION_OPS = frozenset({"func.func", "gpu.func", "util.func", "llvm.func"})

# Ops holding the device code of a compiled program (kernels), apart from its host code.
EXECUTABLE_OPS = frozenset({
    "stream.executable", "flow.executable", "hal.executable", "hal.executable.variant",
    "hal.executable.source", "gpu.module",
})

# Ops whose body runs more than once; an op inside runs once per iteration.
LOOP_OPS = frozenset({
    "scf.for", "scf.parallel", "scf.forall", "scf.while", "affine.for", "affine.parallel",
})
# Loops whose iterations may run at the same time: each needs its own buffers.
PARALLEL_LOOP_OPS = frozenset({"scf.parallel", "scf.forall", "affine.parallel"})

# Ops with the AutomaticAllocationScope trait: a `memref.alloca` is freed when they exit.
ALLOCATION_SCOPE_OPS = FUNCTION_OPS | {
    "memref.alloca_scope", "affine.parallel", "async.execute", "gpu.launch",
}

STACK_ALLOCATION_OPS = frozenset({"memref.alloca"})
HEAP_ALLOCATION_OPS = frozenset({"memref.alloc"})
# Memref allocations (stack or heap): what hoisting and placement rewrite.
MEMREF_ALLOCATION_OPS = STACK_ALLOCATION_OPS | HEAP_ALLOCATION_OPS
# Stack slots after the LLVM conversion (`--compile-to=executable-targets` has them): the
# census counts them; no rewrite touches them.
LLVM_ALLOCATION_OPS = frozenset({"llvm.alloca"})
# Everything the census counts as an allocation op (tensor allocations bufferize to one).
ALLOCATION_OPS = MEMREF_ALLOCATION_OPS | LLVM_ALLOCATION_OPS | {"bufferization.alloc_tensor"}
DEALLOCATION_OPS = frozenset({"memref.dealloc"})

# Ops whose result is another name for (part of) the memory of operand 0.
MEMREF_VIEW_OPS = frozenset({
    "memref.subview", "memref.cast", "memref.reinterpret_cast", "memref.expand_shape",
    "memref.collapse_shape", "memref.view", "memref.transpose", "memref.assume_alignment",
    "memref.memory_space_cast", "llvm.getelementptr", "llvm.bitcast", "llvm.addrspacecast",
})
# Tensor ops whose result is a view of operand 0: writing the view writes the source.
TENSOR_VIEW_OPS = frozenset({
    "tensor.extract_slice", "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape",
    "tensor.reshape",
})
VIEW_OPS = MEMREF_VIEW_OPS | TENSOR_VIEW_OPS

# Users that read or write a memref through its strides, whatever its layout.
ANY_LAYOUT_USERS = frozenset({
    "memref.load", "memref.store", "affine.load", "affine.store", "affine.vector_load",
    "affine.vector_store", "vector.transfer_read", "vector.transfer_write", "vector.load",
    "vector.store", "vector.maskedload", "vector.maskedstore", "memref.copy", "memref.dim",
    "memref.prefetch", "memref.atomic_rmw", "memref.generic_atomic_rmw",
})
# Calls of a function by symbol (its `callee` attribute).
CALL_OPS = frozenset({"func.call", "util.call"})

# Function returns: their operands become the caller's (or an exported call's) results.
RETURN_OPS = frozenset({"func.return", "util.return"})

CONSTANT_OPS = frozenset({"arith.constant", "util.unfoldable_constant"})
# Loads of globals that may be stored (module state), and of all globals.
STATE_LOAD_OPS = frozenset({"util.global.load", "ml_program.global_load"})
GLOBAL_LOAD_OPS = STATE_LOAD_OPS | {"ml_program.global_load_const"}
GLOBAL_STORE_OPS = frozenset({"util.global.store", "ml_program.global_store"})
GLOBAL_OPS = frozenset({"util.global", "ml_program.global"})

# Index arithmetic whose result depends only on its operands and attributes.
PURE_INDEX_OPS = frozenset({
    "arith.addi", "arith.subi", "arith.muli", "arith.index_cast", "arith.index_castui",
    "arith.extsi", "arith.extui", "arith.trunci",
})
INTEGER_CAST_OPS = frozenset({
    "arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi", "arith.trunci",
})

# Stream dialect: resources the scheduler must find memory for, and ops that move bytes
# (a clone copies the whole resource; the others the length they are given).
STREAM_ALLOCATION_OPS = frozenset({"stream.async.alloca", "stream.resource.alloca"})
STREAM_COPY_OPS = frozenset({
    "stream.async.clone", "stream.async.copy", "stream.async.update", "stream.async.slice",
    "stream.cmd.copy",
})
