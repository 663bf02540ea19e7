"""The runtimes memplan plans for, one folder each: everything that knows a runtime.

Each folder holds its runtime's reader, its own planner's figures, the writer, the
read-back, the runner and the options its front end adds to `memplan plan`; its
`front_end.py` defines `FRONT_END` (the contract of `memplan.plan.contract`) and has one
line in `memplan.plan.REGISTRY`. Only modules under this folder import a runtime's Python
package (tvm, executorch, torch, onnx, tflite_micro), always inside the module that needs
it, so memplan imports without any of them.

- `tflm/`: TFLite models on TensorFlow Lite Micro (one arena, `OfflineMemoryAllocation`).
- `executorch/`: torch.export programs lowered by ExecuTorch (one arena per pool).
- `iree/`: IREE input programs' transient arenas, and IREE runs of MLIR rewrites.
- `tvm/`: TVM's TIR stack frames and Relax arenas.
- `onnx/`: ONNX graphs (report only).
- `pt2.py`: the torch.export archive, read safely; ExecuTorch and TVM both read it.
- `native_stderr.py`: what native runtime code prints on fd 2, captured (TFLM, TVM).
"""
