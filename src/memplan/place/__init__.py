"""The decisions layer: where each buffer lives on a target, and whether budgets hold.

- `policy`: place allocations in a target's stack, pools and heap (`place`), from
  `model` (requests, assignments, placements), `spaces` (what each space refuses, and
  why) and `admission` (what fits, packed with lifetimes);
- `budgets`: a group of allocations packed against a limit (frames, kernels);
- `requests`: census records plus device use become placement requests;
- `module`: the placement of one parsed module (census + device use);
- `workgroup`: GPU workgroup memory per kernel against the target's limit.
"""

from typing import TYPE_CHECKING

from .model import Assignment, Placement, Request, SpaceUse
from .policy import place

if TYPE_CHECKING:
    from .requests import build_requests


def __getattr__(name: str) -> object:
    # `requests` reads the IR (the MLIR bindings); a model's arena is placed without them.
    if name != "build_requests":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .requests import build_requests

    return build_requests

__all__ = ["Assignment", "Placement", "Request", "SpaceUse", "build_requests", "place"]
