"""The ExecuTorch implementations of `memplan plan --rewrite` (`plan/rewrites.py`): each
takes the view of the .pt2 as it stands and returns it with its exported program
rewritten (`Candidate`), the program as read kept as what --check-run compares with, or
why it left the program alone."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ...plan.contract import ModelView
from ...plan.rewrites import Candidate, RewriteKind, RewriteOptions
from .patches import rewrite_patches
from .reorder import better_order

if TYPE_CHECKING:
    from .front_end import ExecutorchFrontEnd


def patches(fe: ExecutorchFrontEnd, view: ModelView, options: RewriteOptions
            ) -> Candidate | str:
    """Patch-by-patch execution of the first stage (`patches.py`), within
    `--max-recompute` more multiply-accumulates in the stage."""
    source = view.source
    found = rewrite_patches(source.exported, max_recompute=options.max_recompute,
                            in_place=RewriteKind.INPLACE in options.kinds)
    if found.model is None:
        return found.reason
    said = found.said("call nodes", "bytes live at once") + " (before ExecuTorch's lowering)"
    return Candidate(_view(view, found.model, parts=True), (said,), found.macs_before,
                     found.macs_after)


def reorder(fe: ExecutorchFrontEnd, view: ModelView, options: RewriteOptions
            ) -> Candidate | str:
    """The call nodes in an order with fewer bytes live at once (`reorder.py`)."""
    found = better_order(view.source.exported)
    if isinstance(found, str):
        return found
    exported, before, after, moved = found
    return Candidate(_view(view, exported), (
        f"{moved} call nodes moved: {before:,} B live at once before, {after:,} B after "
        "(before ExecuTorch's lowering)",))


def inplace(fe: ExecutorchFrontEnd, view: ModelView, options: RewriteOptions
            ) -> Candidate | str:
    """Elementwise outputs written over inputs that die there (`inplace.py`). Which
    operators qualify is decided on the graph ExecuTorch plans, so the program is lowered
    once here (heuristic packing) to name them."""
    from .front_end import memplan_planner

    candidate = _view(view, view.source.exported, in_place=True)
    lowered, _ = fe.lower(candidate, memplan_planner(view.source.pools, time_limit=None))
    shared = lowered.source.algorithm.shared
    if not shared:
        return "no operator writes over an input that dies there with the same shape, " \
               "dtype and layout"
    return Candidate(candidate, tuple(
        f"{d.kernel.removesuffix('.out')} {d.node} writes over {d.source} ({d.bytes:,} B)"
        for d in shared))


def _view(view: ModelView, exported, **flags: bool) -> ModelView:  # noqa: ANN001
    """The view with its program replaced, and the `_Source` flags given (`in_place`,
    `parts`) set."""
    source = view.source
    given = source.exported if source.given is None else source.given
    changed = replace(source, exported=exported, given=given, **flags)
    return ModelView(view.path, view.front_end, view.arenas, view.notes, view.details,
                     changed, view.operators)
