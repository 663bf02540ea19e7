"""Passes: every rewrite as a named unit with options, run as a pipeline.

A pass is a dataclass (its fields are its options) with a `name`, a one-line
`summary` and `run(chunk, context) -> RewriteReport`; it is a thin shell over
the reusable rewrite function in its own module. `PASSES` registers them;
`memplan opt -p a,b` runs `parse_pipeline("a,b")` on every `// -----` chunk, the
whole pipeline per chunk as `mlir-opt --split-input-file` does.

To add a pass: write the rewrite as a function in `transforms/<name>.py`, add a
dataclass here with `name` and `summary`, append it to `PASSES`, and add its
golden file `tests/passes/<name>.mlir`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from iree.compiler import ir

from ..analysis.assumptions import Assumption
from ..diagnostic import Diagnostic
from ..errors import InputError
from ..ir import MlirChunk
from ..ir.source import SourceLoc
from ..mlir_requests import MlirPlacement
from ..targets import Target
from .constant_dest import rewrite_constant_destinations
from .hoist import hoist_and_bound
from .inplace_state import rewrite_inplace_state
from .placement import place_and_apply
from .rewrite_report import RewriteReport


@dataclass(frozen=True)
class PassContext:
    """What every pass may read: the target and what the user told us of the arguments."""

    target: Target | None = None  # None: only passes that need no target can run
    assumptions: tuple[Assumption, ...] = ()


class ModulePass(ABC):
    name: ClassVar[str]
    summary: ClassVar[str]

    @abstractmethod
    def run(self, chunk: MlirChunk, context: PassContext) -> RewriteReport:
        """Rewrite `chunk.module` in place; report what was rewritten and what was refused."""


@dataclass
class HoistAndBound(ModulePass):
    name: ClassVar[str] = "hoist-and-bound"
    summary: ClassVar[str] = ("move allocations out of loops; give stack allocations a static "
                              "size (their proven bound) at the function entry")

    def run(self, chunk: MlirChunk, context: PassContext) -> RewriteReport:
        return hoist_and_bound(chunk, context.assumptions)


@dataclass
class ConstantDestinations(ModulePass):
    name: ClassVar[str] = "constant-destinations"
    summary: ClassVar[str] = ("never write into a constant: splats become tensor.empty + "
                              "linalg.fill, others a read-only input")

    def run(self, chunk: MlirChunk, context: PassContext) -> RewriteReport:
        return rewrite_constant_destinations(chunk.module, chunk.path)


@dataclass
class StateInPlace(ModulePass):
    name: ClassVar[str] = "state-in-place"
    summary: ClassVar[str] = ("append to a global state (KV cache) in place: write only the "
                              "new data instead of concatenating and copying the context")

    def run(self, chunk: MlirChunk, context: PassContext) -> RewriteReport:
        return rewrite_inplace_state(chunk.module, chunk.path)


@dataclass
class PlaceBuffers(ModulePass):
    name: ClassVar[str] = "place"
    summary: ClassVar[str] = ("put every allocation in the target's stack, pools or heap by its "
                              "policy and write the packed layout into the IR")
    placements: list[MlirPlacement] = field(default_factory=list)  # filled by run, per chunk

    def run(self, chunk: MlirChunk, context: PassContext) -> RewriteReport:
        if context.target is None:
            raise InputError(chunk.path, "the place pass needs a target (--target)")
        placement, report = place_and_apply(chunk, context.target, context.assumptions)
        self.placements.append(placement)
        return report


PASSES: dict[str, type[ModulePass]] = {
    p.name: p for p in (HoistAndBound, ConstantDestinations, StateInPlace, PlaceBuffers)
}
# `memplan opt` without -p: constant destinations before the state rewrite, which then sees
# the final destinations; placement only when asked (`--place`).
DEFAULT_PIPELINE = (HoistAndBound.name, ConstantDestinations.name, StateInPlace.name)
# The rewrites whose effect `memplan copies` measures.
TENSOR_PIPELINE = (ConstantDestinations.name, StateInPlace.name)


def parse_pipeline(text: str) -> list[ModulePass]:
    """`hoist-and-bound,place` -> fresh pass instances, in order."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise InputError("--passes", "no pass named; see `memplan passes`")
    unknown = [name for name in names if name not in PASSES]
    if unknown:
        raise InputError("--passes", f"unknown pass '{unknown[0]}'; known: {', '.join(PASSES)}")
    return [PASSES[name]() for name in names]


def run_pipeline(chunks: Sequence[MlirChunk], passes: Sequence[ModulePass],
                 context: PassContext) -> RewriteReport:
    """Every pass on every chunk, chunk after chunk; one report in the order emitted.

    A pass whose result for a chunk fails MLIR's verifier is undone for that chunk (it is
    put back as the pass found it) and said as an error at the chunk's first line, with
    the verifier's reason: the run then fails (exit 1, nothing written) naming which
    rewrite could not be made, instead of handing over IR that does not verify (issue 31:
    `opt --place` on a file whose second chunk loads an alloca size from memory)."""
    report = RewriteReport()
    for chunk in chunks:
        with chunk.context:
            for p in passes:
                before = chunk.module.operation.clone()
                done = p.run(chunk, context)
                reason = _verifier_reason(chunk)
                if reason is None:
                    report.extend(done)
                    before.erase()
                    continue
                chunk.module = before.opview  # the broken one is dropped with its last use
                report.add_refused(Diagnostic(
                    "error", SourceLoc(str(chunk.path), chunk.first_line, 1),
                    f"the {p.name} pass cannot rewrite this chunk: its result fails MLIR "
                    f"verification ({reason}); the chunk is left as it was",
                    code="rewrite-unverified"))
                break  # the later passes expect this one's result
    return report


def _verifier_reason(chunk: MlirChunk) -> str | None:
    try:
        chunk.module.operation.verify()
    except ir.MLIRError as err:
        return " ".join(str(err).split())[:300]
    return None
