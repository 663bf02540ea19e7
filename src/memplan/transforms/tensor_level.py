"""The tensor-level rewrites in the order `memplan opt` runs them.

Constant destinations first: it never touches state updates, and the in-place
rewrite then sees the final destinations.
"""

from __future__ import annotations

from ..diagnostic import Diagnostic
from ..ir import MlirChunk
from .constant_dest import rewrite_constant_destinations
from .inplace_state import rewrite_inplace_state


def rewrite_tensor_level(chunk: MlirChunk) -> list[Diagnostic]:
    """Both rewrites on `chunk.module`, in place; what they rewrote and refused, in order."""
    constant = rewrite_constant_destinations(chunk.module, chunk.path)
    state = rewrite_inplace_state(chunk.module, chunk.path)
    return [*constant.rewritten, *constant.refused, *state.rewritten, *state.refused]
