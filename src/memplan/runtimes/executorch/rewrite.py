"""The ExecuTorch implementations of `memplan plan --rewrite` (`plan/rewrites.py`): each
takes the view of the .pt2 as it stands and returns it with its exported program
rewritten (`Candidate`), the program as read kept as what --check-run compares with, or
why it left the program alone."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ...plan.contract import ModelView
from ...plan.rewrites import Candidate, RewriteOptions
from .patches import rewrite_patches

if TYPE_CHECKING:
    from .front_end import ExecutorchFrontEnd


def patches(fe: ExecutorchFrontEnd, view: ModelView, options: RewriteOptions
            ) -> Candidate | str:
    """Patch-by-patch execution of the first stage (`patches.py`), within
    `--max-recompute` more multiply-accumulates in the stage."""
    source = view.source
    found = rewrite_patches(source.exported, max_recompute=options.max_recompute)
    if found.exported is None:
        return found.reason
    rows, cols = found.grid
    said = (f"call nodes 0-{found.split_after} run as {rows}x{cols} patches assembled into "
            f"{found.split_node}: stage multiply-accumulates +{found.recompute:.1%}, "
            f"bytes live at once {found.bound_before:,} B -> {found.bound_after:,} B "
            "(before ExecuTorch's lowering)")
    given = source.exported if source.given is None else source.given
    rewritten = replace(source, exported=found.exported, given=given)
    return Candidate(ModelView(view.path, view.front_end, view.arenas, view.notes,
                               view.details, rewritten, view.operators), (said,),
                     found.macs_before, found.macs_after)
