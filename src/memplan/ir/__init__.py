"""The IR layer: MLIR in and out through the bindings in `iree-base-compiler`.

Nothing outside this package touches binding quirks (contexts, locations,
error types); later layers use the helpers exported here.
"""

from .load import MlirChunk, SourceLoc, load_mlir, parse_mlir, source_loc

__all__ = ["MlirChunk", "SourceLoc", "load_mlir", "parse_mlir", "source_loc"]
