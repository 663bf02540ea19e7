"""Check by execution: compile with iree-compile (llvm-cpu), run with iree-base-runtime."""
