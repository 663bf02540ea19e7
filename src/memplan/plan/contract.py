"""The front-end contract: what every runtime (TFLM, ONNX Runtime, ExecuTorch, TVM Relax,
IREE's transient arena) supplies so that one driver (`memplan.plan.driver`) plans its models.

A front end reads a model into a `ModelView`: arenas of `BufferRequest`s (`buffers.py`),
with the runtime's own plan of each when it has one. The driver places and packs them
and hands the offsets back to `write`, which returns the model in the runtime's form
(or None: report only); `read_back` reads the offsets out of those bytes again, so the
plan checked is the plan the runtime will see. `run` executes the original and the
written model on the runtime; the driver calls it in a child process (`plan/child.py`),
so a crash of the runtime is one line, never memplan's.

A runtime that plans inside its own compiler (ExecuTorch's `MemoryPlanningPass`) sets
`plans_in_hook` and implements `lower`: the runtime calls its hook, the hook calls the
driver's `ArenaPlanner` on the buffers it was given, and `lower` returns the view of
what was planned with the artifact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..buffers import Arena, Key
from ..targets import Target
from .rewrites import RewriteOptions


@dataclass(frozen=True)
class Operator:
    """One operator of the model's graph, as far as memory goes: every buffer it touches
    is live while it runs, whatever the order of the others (`plan/floor.py`)."""

    name: str  # for people: "CONV_2D #0"
    uses: tuple[Key, ...]  # its inputs, outputs and scratch buffers (planned ones)
    # The rewrites (`plan/rewrites.py` names) that could lower this operator's working
    # set: "patches" for a convolution at high resolution, "inplace" for an elementwise one.
    lowered_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelView:
    """A model as the driver sees it."""

    path: str
    front_end: str  # its registry name
    arenas: tuple[Arena, ...]
    notes: tuple[str, ...] = ()
    details: Mapping[Key, Mapping[str, Any]] = field(default_factory=dict)  # dtype, shape, op
    source: Any = field(default=None, compare=False, repr=False)  # the front end's own
    # The graph, when the front end knows it: what the floor of any order is computed
    # from. Empty: no floor is reported.
    operators: tuple[Operator, ...] = ()


Step = Callable[[str], None]
"""`step(label)`: the work a long command is in now, for the caller's progress line."""


def no_step(label: str) -> None:
    """The progress callback of a caller that shows none."""


@dataclass(frozen=True)
class Option:
    """A `memplan plan` option of one runtime's own, declared in its package's
    `__init__.py` (`OPTIONS`), so the command lists it without importing the runtime. Its
    value reaches the front end as `ReadOptions.extra[dest]`."""

    flag: str  # "--kernels"
    dest: str  # "kernels"
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None


@dataclass(frozen=True)
class ReadOptions:
    target: Target | None = None
    dims: Mapping[str, int] = field(default_factory=dict)  # symbolic dimensions (--dim)
    write: bool = False  # a written model is wanted (-o): read what writing needs
    time_limit: float | None = 10.0  # seconds for the exact solver, per arena
    extra: Mapping[str, Any] = field(default_factory=dict)  # the runtime's own `Option`s
    step: Step = field(default=no_step, compare=False, repr=False)
    rewrites: RewriteOptions | None = None  # --rewrite: what to try before planning
    # --dim NAME=..N: one plan for every size up to N (front ends with `takes_dim_bounds`)
    dim_bounds: Mapping[str, int] = field(default_factory=dict)



Offsets = Mapping[str, Mapping[Key, int]]  # per arena name (space), per buffer key


@dataclass(frozen=True)
class Measured:
    """One model run on the runtime (returned by `FrontEnd.run` for each model)."""

    arena: int | None  # the arena bytes the runtime needed (its smallest, when searched)
    extra: Mapping[str, int] = field(default_factory=dict)  # e.g. TFLM's head and tail


@dataclass(frozen=True)
class RunCheck:
    """The original and the written model run on the same inputs."""

    identical: bool  # outputs bit for bit
    original: Measured
    planned: Measured
    runtime: str  # who ran them, e.g. "TFLM's interpreter"

    @property
    def no_larger(self) -> bool:
        a, b = self.original.arena, self.planned.arena
        return a is None or b is None or b <= a


class RuntimeRefused(Exception):
    """The runtime cannot run a model (an op it lacks, a hybrid model): not a crash.
    `which` is "original" or "planned"."""

    def __init__(self, which: str, reason: str):
        super().__init__(reason)
        self.which = which
        self.reason = reason


Progress = Callable[[str, str], None]
"""`progress(which, what)`: called by `run` before each step that may crash, e.g.
`progress("planned", "at arena 3488 B")`: the driver's crash line quotes the last one."""

ArenaPlanner = Callable[[Arena], Sequence[Any]]
"""The driver's planner handed to a hook front end: one group of buffers in, one
`driver.ArenaPlan` per space used out (offsets by buffer key)."""


class FrontEnd(Protocol):
    name: ClassVar[str]  # registry name, e.g. "tflite"
    suffixes: ClassVar[tuple[str, ...]]  # ".tflite"
    runtime: ClassVar[str]  # who runs it, for messages: "TFLM's interpreter"
    extra: ClassVar[str]  # pip extra that brings its packages: memplan[extra]
    writes: ClassVar[str | None]  # suffix of the written model, None: report only
    splits: ClassVar[bool]  # the runtime can spread one arena's buffers over pools
    plans_in_hook: ClassVar[bool]
    # Optional (default False): a written model is kept only after a run on the runtime
    # shows it needs no larger an arena than the runtime's own plan (`verifies_writes`).
    # Optional (default False): `takes_dims`, the reader pins symbolic dimensions (--dim);
    # `takes_dim_bounds`, it also plans once for every size up to a bound (--dim NAME=..N).
    # Optional: `runnable(options) -> str | None`, why a model read with these options
    # cannot be run here (None: it can); `c_header(plan, header_path, check)`, the
    # runtime's own firmware header (`report.c_header.CHeader`) where the generic one
    # (one array per arena) is not what its runtime takes.
    # Optional: `write_own(view, at_bound) -> tuple[bytes, str] | None`, the model as the
    # runtime itself makes it (its own plan in every arena) and the sentence the report
    # says of it. A front end that has it keeps its own plan on a tie with memplan's, and
    # its own output whenever its plan is no larger than memplan's in every arena: where
    # writing memplan's plan costs a compile (IREE), an equal plan is not worth one. None:
    # its own plan is not known to be the one its output holds (`keeps_own`).

    def read(self, path: str, options: ReadOptions) -> ModelView: ...

    def write(self, view: ModelView, offsets: Offsets) -> bytes | None: ...

    def read_back(self, view: ModelView, data: bytes) -> Offsets: ...

    def lower(self, view: ModelView, planner: ArenaPlanner) -> tuple[ModelView, bytes | None]:
        ...

    def original(self, view: ModelView) -> bytes: ...

    def run(self, original: bytes, written: bytes, seed: int, progress: Progress) -> RunCheck:
        ...


def verifies_writes(front_end: FrontEnd) -> bool:
    """Whether a model this front end writes is run before it is kept (TFLM: it places its
    scratch and persistent data around the plan, so only a run shows what it needs)."""
    return bool(getattr(front_end, "verify_writes", False))



def keeps_own(front_end: FrontEnd) -> bool:
    """Whether a tie between the runtime's plan and memplan's goes to the runtime's, and
    its own output is kept when its plan is no larger in every arena (`write_own`)."""
    return callable(getattr(front_end, "write_own", None))


def takes_dims(front_end: FrontEnd) -> bool:
    return bool(getattr(front_end, "takes_dims", False))


def takes_dim_bounds(front_end: FrontEnd) -> bool:
    return bool(getattr(front_end, "takes_dim_bounds", False))


def unrunnable(front_end: FrontEnd, options: ReadOptions) -> str | None:
    """Why a model read with `options` cannot be run on this machine (None: it can)."""
    runnable = getattr(front_end, "runnable", None)
    return None if runnable is None else runnable(options)
