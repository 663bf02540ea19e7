"""The IR layer: MLIR in and out through the bindings in `iree-base-compiler`.

Nothing outside this package touches binding quirks (contexts, locations,
error types); later layers use the helpers exported here. `ops` is the one
vocabulary of op kinds, `walk` the one set of structural helpers, `types` the
one place that sizes an element.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .load import MlirChunk, clone_chunks, load_mlir, new_context, parse_mlir
    from .source import SourceLoc, source_loc

# The bindings take a quarter of a second to load: a command that reads no MLIR (`memplan
# pack`, `memplan plan`) must not pay for them because a type names a source location.
_HOME = {"MlirChunk": "load", "clone_chunks": "load", "load_mlir": "load",
         "new_context": "load", "parse_mlir": "load", "SourceLoc": "source",
         "source_loc": "source"}


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)


__all__ = ["MlirChunk", "SourceLoc", "clone_chunks", "load_mlir", "new_context", "parse_mlir",
           "source_loc"]
