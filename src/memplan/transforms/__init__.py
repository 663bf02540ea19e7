"""Rewrites that consume facts and plans; each prints IR the MLIR verifier accepts."""

from .constant_dest import rewrite_constant_destinations
from .inplace_state import rewrite_inplace_state
from .rewrite_report import RewriteReport
from .tensor_level import rewrite_tensor_level

__all__ = ["RewriteReport", "rewrite_constant_destinations", "rewrite_inplace_state",
           "rewrite_tensor_level"]
