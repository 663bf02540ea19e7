"""ONNX graphs: one arena of activations, a report only (ONNX Runtime takes no plan from
outside, so nothing is written and nothing is run). The graph is read by
`model.py`; this module is the one place its tensors become `BufferRequest`s."""

from __future__ import annotations

from typing import ClassVar

from ...buffers import Arena, BufferRequest
from ...errors import InputError
from ...plan.contract import ModelView, Offsets, Operator, ReadOptions

ARENA = "arena"
# Operators over a feature map's spatial windows: a patch-by-patch run would shrink their
# working set (issue 34; no rewrite is built for ONNX: the floor's note names it only).
SPATIAL = frozenset({"Conv", "ConvTranspose", "MaxPool", "AveragePool", "Pad"})


class OnnxFrontEnd:
    name: ClassVar[str] = "onnx"
    suffixes: ClassVar[tuple[str, ...]] = (".onnx",)
    runtime: ClassVar[str] = "ONNX Runtime"
    extra: ClassVar[str] = "onnx"
    writes: ClassVar[str | None] = None
    splits: ClassVar[bool] = False
    plans_in_hook: ClassVar[bool] = False
    takes_dims: ClassVar[bool] = True

    def read(self, path: str, options: ReadOptions) -> ModelView:
        from . import model as onnx_model

        if options.write:
            raise InputError(path, "ONNX Runtime takes no plan from outside: nothing to write "
                             "(drop -o)")
        model = onnx_model.load_onnx(path, dict(options.dims))
        buffers = tuple(BufferRequest(t.key, t.name, t.size, t.start, t.end,
                                      shares_with=t.shares_with) for t in model.tensors)
        notes = ("report only: ONNX Runtime takes no outside plan",
                 f"sizes rounded up to {onnx_model.ALIGNMENT} bytes (ONNX Runtime's CPU "
                 "alignment)", *model.notes)
        details = {t.key: {"dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes}
                   for t in model.tensors}
        operators = tuple(Operator(label, uses, ("patches",) if kind in SPATIAL else ())
                          for label, kind, uses in model.ops)
        return ModelView(path, self.name, (Arena(ARENA, buffers, onnx_model.ALIGNMENT),),
                         notes, details, model, operators)

    def write(self, view: ModelView, offsets: Offsets) -> None:
        return None

    def read_back(self, view: ModelView, data: bytes) -> Offsets:
        raise NotImplementedError("nothing is written for ONNX Runtime")

    def lower(self, view, planner):  # noqa: ANN001, ANN201 - not a hook front end
        raise NotImplementedError

    def original(self, view: ModelView) -> bytes:
        raise NotImplementedError("nothing is written for ONNX Runtime")

    def run(self, original, written, seed, progress):  # noqa: ANN001, ANN201
        raise NotImplementedError("nothing is written for ONNX Runtime")


FRONT_END = OnnxFrontEnd()
