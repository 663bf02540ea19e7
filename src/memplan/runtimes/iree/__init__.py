"""IREE: input programs' transient arenas (`front_end.py`; IREE's `LayoutSlices`
reproduced in `layout.py`, its compile cut before that pass in `stages.py`, the
`stream.resource.pack` ops in `packs.py`, entry points in `entry.py`), compiling and
running with iree-compile and iree-base-runtime (`compile.py`, `compare.py`), and the
runs that prove MLIR rewrites (`memref_harness.py`, `state_compare.py`)."""
