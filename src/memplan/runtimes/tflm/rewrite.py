"""The TFLM implementations of `memplan plan --rewrite` (`plan/rewrites.py`): each takes
the view of the model as it stands and returns it rewritten (`Candidate`), the input file's
bytes kept as the baseline every run compares with, or why it left the model alone."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ...plan.rewrites import Candidate, NotBuilt, RewriteOptions
from . import model as tfl
from .inplace import in_place
from .reorder import better_order, with_order

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
    model, done = in_place(view.source.model)
    if not done:
        return "no operator writes over an input that dies there with the same shape and type"
    return Candidate(_view(fe, view, view.source.data, model), tuple(done))


def patches(fe: TfliteFrontEnd, view: ModelView, options: RewriteOptions) -> Candidate | str:
    """Patch-by-patch execution (issue 34, item 4), built in `patches.py`:
    `rewrite_patches(model_bytes, max_recompute) -> (new_bytes or None, report)`, the
    report with `macs_before`, `macs_after` and a line for people (`str(report)`)."""
    try:
        built = importlib.import_module(f"{__package__}.patches")
    except ModuleNotFoundError as err:
        if err.name == f"{__package__}.patches":
            raise NotBuilt("not built yet for tflm") from None
        raise
    data, report = built.rewrite_patches(view.source.data, options.max_recompute)
    if data is None:
        return str(report)
    model = tfl.parse_tflite(data, view.path, view.source.kernels, view.source.core)
    return Candidate(_view(fe, view, data, model), (str(report),),
                     getattr(report, "macs_before", None), getattr(report, "macs_after", None))


def _view(fe: TfliteFrontEnd, view: ModelView, data: bytes, model: tfl.TfliteModel
          ) -> ModelView:
    from .front_end import Source

    s = view.source
    return fe.view(view.path, Source(data, model, s.input, s.kernels, s.core))
