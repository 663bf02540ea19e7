"""Reading an MLIR input: one module per `// -----` chunk, in one MLIR context."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import MlirChunk
from ..ir.load import new_context, parse_chunks, read_mlir_text
from ..runtimes.iree.compile import is_torch_dialect, to_input_form


@dataclass(frozen=True)
class Input:
    chunks: list[MlirChunk]
    # A torch-dialect export (iree-turbine, torch-mlir) is lowered by IREE's input conversion
    # first, as `iree-compile --compile-to=input` does; its diagnostics then cite the
    # converted text, named `PATH (input form)`.
    lowered_from_torch: bool = False


def read(path: str) -> Input:
    """The file's modules, lowered to IREE's input form when it is a torch-dialect export."""
    text = read_mlir_text(path)
    if not is_torch_dialect(text):
        return Input(parse_chunks(text, path, new_context()))
    return Input(parse_chunks(to_input_form(text, path), f"{path} (input form)", new_context()),
                 lowered_from_torch=True)
