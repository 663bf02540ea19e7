"""Rewrites of a whole model that lower its bound below what its schedule allows
(`memplan plan MODEL --rewrite ...`), registered like passes: one `Rewrite` per kind,
with the runtimes that implement it.

An implementation is `module:function`, imported by name only when asked (a runtime's
module imports the runtime): `function(front_end, view, options) -> Candidate | str`,
the model rewritten as a new view (its `original` still the input as given, so a run
compares the rewritten model with the input), or why it left the model alone. The driver
keeps a candidate only when the lower bound drops (`driver.apply_rewrites`), and a written
model is kept only after a run shows the same outputs (`--check-run`; TFLM always runs
what it writes).
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:
    from .contract import ModelView


class RewriteKind(enum.Enum):
    REORDER = "reorder"
    INPLACE = "inplace"
    PATCHES = "patches"


@dataclass(frozen=True)
class RewriteOptions:
    kinds: tuple[RewriteKind, ...] = ()  # in the order they run
    everything: bool = False  # "all": a kind a runtime lacks is reported, not refused
    max_recompute: float = 0.2  # patches: at most this share more multiply-accumulates


@dataclass(frozen=True)
class Rewrite:
    kind: RewriteKind
    summary: str
    runtimes: Mapping[str, str] = field(default_factory=dict)  # front end -> module:function


# In the order they run: the graph first (patches), then its order, then sharing in it.
REWRITES: tuple[Rewrite, ...] = (
    Rewrite(RewriteKind.PATCHES, "run the high-resolution stage patch by patch (at most "
            "--max-recompute more multiply-accumulates)",
            {"tflm": "memplan.runtimes.tflm.rewrite:patches",
             "executorch": "memplan.runtimes.executorch.rewrite:patches"}),
    Rewrite(RewriteKind.REORDER, "run the operators in an order with fewer bytes live at "
            "once (every dependency kept)", {"tflm": "memplan.runtimes.tflm.rewrite:reorder",
                                              "executorch":
                                              "memplan.runtimes.executorch.rewrite:reorder"}),
    Rewrite(RewriteKind.INPLACE, "write an elementwise operator's output over an input "
            "that dies there (TFLM: also a windowed one's, shifted below it)",
            {"tflm": "memplan.runtimes.tflm.rewrite:inplace",
             "executorch": "memplan.runtimes.executorch.rewrite:inplace"}),
)


@dataclass(frozen=True)
class Candidate:
    """A rewritten model, as an implementation returns it."""

    view: ModelView
    what: tuple[str, ...]  # one line per change, for people
    macs_before: int | None = None  # multiply-accumulates, when the rewrite changes them
    macs_after: int | None = None


@dataclass(frozen=True)
class Rewritten:
    """What one rewrite asked for did."""

    kind: RewriteKind
    kept: bool
    bound_before: int  # the model's lower bound before this rewrite
    bound_after: int | None  # with it (None: not applied)
    what: tuple[str, ...] = ()
    reason: str | None = None  # why it was not kept
    macs_before: int | None = None
    macs_after: int | None = None

    @property
    def mac_overhead(self) -> float | None:
        """Extra multiply-accumulates as a share of the original's; 0 for a rewrite that
        runs the same operators."""
        if self.kind in (RewriteKind.REORDER, RewriteKind.INPLACE):
            return 0.0
        if self.macs_before and self.macs_after is not None:
            return self.macs_after / self.macs_before - 1
        return None


Implementation = Callable[..., "Candidate | str"]


def parse(text: str, runtime: str, max_recompute: float = 0.2) -> RewriteOptions:
    """`--rewrite reorder,inplace` or `all`, for one runtime: an unknown name, or one the
    runtime has no implementation of, is refused (with `all`: only those it has)."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise InputError("--rewrite", "no rewrite named (known: "
                         f"{', '.join(k.value for k in RewriteKind)}, all)")
    if not 0 <= max_recompute <= 10:
        raise InputError("--max-recompute", f"{max_recompute}: a share of the model's "
                         "multiply-accumulates between 0 and 10")
    if names == ["all"]:
        kinds = tuple(r.kind for r in REWRITES if runtime in r.runtimes)
        if not kinds:
            raise InputError("--rewrite", f"no rewrite is built for {runtime}")
        return RewriteOptions(kinds, True, max_recompute)
    kinds = []
    for name in names:
        try:
            kind = RewriteKind(name)
        except ValueError:
            raise InputError("--rewrite", f"unknown rewrite '{name}' (known: "
                             f"{', '.join(k.value for k in RewriteKind)}, all)") from None
        entry = registered(kind)
        if runtime not in entry.runtimes:
            built = ", ".join(entry.runtimes) or "none"
            raise InputError("--rewrite", f"{name} is not built for {runtime} (built for: "
                             f"{built})")
        if kind not in kinds:
            kinds.append(kind)
    # Each runs on what the ones before left: the order of REWRITES, whatever was typed.
    order = [r.kind for r in REWRITES]
    return RewriteOptions(tuple(sorted(kinds, key=order.index)), False, max_recompute)


def registered(kind: RewriteKind) -> Rewrite:
    return next(r for r in REWRITES if r.kind is kind)


def implementation(kind: RewriteKind, runtime: str) -> Implementation:
    """The runtime's function for `kind`."""
    module, function = registered(kind).runtimes[runtime].split(":")
    return getattr(importlib.import_module(module), function)
