"""The decisions layer: where each buffer lives on a target, and whether budgets hold.

- `policy`: place buffers (`buffers.BufferRequest`) in a target's stack, pools and heap
  (`place`), from `model` (assignments, placements), `spaces` (what each space refuses,
  and why) and `admission` (what fits, packed with lifetimes);
- `budgets`: a group of MLIR allocations packed against a limit (frames, kernels);
- `workgroup`: GPU workgroup memory per kernel against the target's limit.

Front ends adapt to `BufferRequest` in one place each (MLIR: `frontends/mlir_census.py`).
"""

from .model import Assignment, Placement, SpaceUse
from .policy import place

__all__ = ["Assignment", "Placement", "SpaceUse", "place"]
