"""The decisions layer: where each buffer lives on a target.

- `policy`: place buffers (`buffers.BufferRequest`) in a target's stack, pools and heap
  (`place`), from `model` (assignments, placements), `spaces` (what each space refuses,
  and why) and `admission` (what fits, packed with lifetimes);

It knows nothing of MLIR or of any model format: front ends adapt to `BufferRequest` in
one place each (MLIR: `frontends/mlir_census.py`). MLIR's own budgets (stack frames,
workgroup memory per kernel) are checks: `check/budgets.py`, `check/workgroup.py`.
"""

from .model import Assignment, Placement, SpaceUse
from .policy import place

__all__ = ["Assignment", "Placement", "SpaceUse", "place"]
