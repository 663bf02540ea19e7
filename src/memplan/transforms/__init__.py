"""Rewrites that consume facts and plans; each prints IR the MLIR verifier accepts."""

from .constant_dest import ConstantDestReport, rewrite_constant_destinations
from .inplace_state import InplaceStateReport, rewrite_inplace_state
from .tensor_level import rewrite_tensor_level

__all__ = ["ConstantDestReport", "InplaceStateReport", "rewrite_constant_destinations",
           "rewrite_inplace_state", "rewrite_tensor_level"]
