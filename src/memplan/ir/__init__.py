"""The IR layer: MLIR in and out through the bindings in `iree-base-compiler`.

Nothing outside this package touches binding quirks (contexts, locations,
error types); later layers use the helpers exported here. `ops` is the one
vocabulary of op kinds, `walk` the one set of structural helpers, `types` the
one place that sizes an element.
"""

from .load import MlirChunk, clone_chunks, load_mlir, new_context, parse_mlir
from .source import SourceLoc, source_loc

__all__ = ["MlirChunk", "SourceLoc", "clone_chunks", "load_mlir", "new_context", "parse_mlir",
           "source_loc"]
