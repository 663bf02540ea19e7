"""Print modules back to MLIR text, verified, one `// -----` chunk per module."""

from __future__ import annotations

import re
from collections.abc import Sequence

from iree.compiler import ir

from ..errors import InternalError
from .load import MlirChunk

_CHUNK_LOC = re.compile(r'loc\("-":(\d+):')


class VerifyError(InternalError):
    """A rewrite produced IR the verifier rejects: memplan's bug, never the user's."""


def verify(chunk: MlirChunk) -> None:
    try:
        chunk.module.operation.verify()
    except ir.MLIRError as err:
        first = str(err).strip().splitlines()
        raise VerifyError(f"{chunk.path}: internal error: rewritten IR fails verification: "
                          f"{' '.join(first[:3])}") from None


def print_module(chunk: MlirChunk, keep_locations: bool = False) -> str:
    """Verified text of the chunk; with `keep_locations`, `loc(...)` names the input file."""
    verify(chunk)
    text = chunk.module.operation.get_asm(enable_debug_info=keep_locations)
    if keep_locations:
        # The loader parses each chunk as a string (file "-", lines from 1): say which file
        # and line the locations are in.
        offset = getattr(chunk.path, "line_offset", 0)
        text = _CHUNK_LOC.sub(lambda m: f'loc("{chunk.path}":{int(m.group(1)) + offset}:',
                              text)
    return text


def print_chunks(chunks: Sequence[MlirChunk], keep_locations: bool = False) -> str:
    return "\n// -----\n\n".join(print_module(c, keep_locations) for c in chunks)
