"""Rewrites that consume facts and plans; each prints IR the MLIR verifier accepts.

Each rewrite is a function in its own module and a pass in `passes.PASSES`.
"""

from .constant_dest import rewrite_constant_destinations
from .inplace_state import rewrite_inplace_state
from .rewrite_report import RewriteReport

__all__ = ["RewriteReport", "rewrite_constant_destinations", "rewrite_inplace_state"]
