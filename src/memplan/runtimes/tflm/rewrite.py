"""The TFLM implementations of `memplan plan --rewrite` (`plan/rewrites.py`): each takes
the view of the model as it stands and returns it rewritten (`Candidate`), the input file's
bytes kept as the baseline every run compares with, or why it left the model alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...plan.rewrites import Candidate, RewriteKind, RewriteOptions
from . import model as tfl
from .inplace import in_place
from .patches import rewrite_patches
from .reorder import better_order, with_order
from .scratch import KernelSet
from .window import choose

if TYPE_CHECKING:
    from ...plan.contract import ModelView
    from .front_end import TfliteFrontEnd


def reorder(fe: TfliteFrontEnd, view: ModelView, options: RewriteOptions) -> Candidate | str:
    source = view.source
    found = better_order(source.model)
    if isinstance(found, str):
        return found
    order, before, after = found
    data = with_order(source.data, order, view.path)
    model = tfl.parse_tflite(data, view.path, source.kernels, source.core)
    moved = sum(1 for i, j in enumerate(order) if i != j)
    return Candidate(_view(fe, view, data, model), (
        f"{moved} of {len(order)} operators moved: {before:,} B live at once before, "
        f"{after:,} B after (tensor bytes, scratch included)",))


def inplace(fe: TfliteFrontEnd, view: ModelView, options: RewriteOptions) -> Candidate | str:
    """Elementwise outputs over a dying input at its bytes (`inplace.py`), then windowed
    operators' outputs below their dying input where that lowers the plan (`window.py`:
    TFLM's reference kernels only; CMSIS-NN's walk their output in other orders)."""
    from .front_end import planned_head

    model, done = in_place(view.source.model)
    if view.source.kernels is KernelSet.REFERENCE:
        model, windowed = choose(model, planned_head)
        done += windowed
    if not done:
        return ("no operator writes over an input that dies there (elementwise with the same "
                "shape, or a window whose shift lowers the plan)")
    return Candidate(_view(fe, view, view.source.data, model), tuple(done))


def patches(fe: TfliteFrontEnd, view: ModelView, options: RewriteOptions) -> Candidate | str:
    """Patch-by-patch execution of the first stage (`patches.py`), within
    `--max-recompute` more multiply-accumulates in the stage."""
    found = rewrite_patches(view.source.data, max_recompute=options.max_recompute,
                            path=str(view.path),
                            windowed=RewriteKind.INPLACE in options.kinds
                            and view.source.kernels is KernelSet.REFERENCE)
    if found.model is None:
        return found.reason
    model = tfl.parse_tflite(found.model, view.path, view.source.kernels, view.source.core)
    return Candidate(_view(fe, view, found.model, model),
                     (found.said("operators", "schedule bound"),),
                     found.macs_before, found.macs_after)


def _view(fe: TfliteFrontEnd, view: ModelView, data: bytes, model: tfl.TfliteModel
          ) -> ModelView:
    from .front_end import Source

    s = view.source
    return fe.view(view.path, Source(data, model, s.input, s.kernels, s.core))
