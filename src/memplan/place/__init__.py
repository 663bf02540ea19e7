"""The decisions layer: where each buffer lives on a target, and whether budgets hold.

- `policy`: place allocations in a target's stack, pools and heap (`place`);
- `requests`: census records plus device use become placement requests;
- `workgroup`: GPU workgroup memory per kernel against the target's limit;
- `frame`: explicit stack allocations per function against the target's frame.
"""

from .policy import Decision, Placement, Request, SpaceUse, place
from .requests import build_requests

__all__ = ["Decision", "Placement", "Request", "SpaceUse", "build_requests", "place"]
