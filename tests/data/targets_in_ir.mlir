func.func @f16k() attributes {hal.executable.target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {max_stack_allocation_size = 16384 : i64, native_vector_size = 16 : i64}>} {
  %0 = memref.alloca() : memref<6144xf32>
  return
}
func.func @sve() attributes {hal.executable.target = #hal.executable.target<"llvm-cpu", "embedded-elf-arm_64", {cpu_features = "+v9a,+sve", max_stack_allocation_size = 32768 : i64}>} {
  return
}
func.func @gpu() attributes {hal.executable.target = #hal.executable.target<"rocm", "rocm-hsaco-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "gfx942", features = "", wgp = <compute = fp32, storage = b32, subgroup = none, dot = none, mma = [], subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 32768, max_workgroup_counts = [2147483647, 2147483647, 2147483647]>>}>} {
  %0 = memref.alloc() : memref<12288xf32, #gpu.address_space<workgroup>>
  return
}
