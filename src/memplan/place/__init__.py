"""The decisions layer: where each buffer lives on a target, and whether budgets hold.

- `policy`: place allocations in a target's stack, pools and heap (`place`), from
  `model` (requests, assignments, placements), `spaces` (what each space refuses, and
  why) and `admission` (what fits, packed with lifetimes);
- `budgets`: a group of allocations packed against a limit (frames, kernels);
- `requests`: census records plus device use become placement requests;
- `module`: the placement of one parsed module (census + device use);
- `workgroup`: GPU workgroup memory per kernel against the target's limit.
"""

from .model import Assignment, Placement, Request, SpaceUse
from .policy import place
from .requests import build_requests

__all__ = ["Assignment", "Placement", "Request", "SpaceUse", "build_requests", "place"]
