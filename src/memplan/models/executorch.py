"""memplan as the memory-planning algorithm of ExecuTorch's `MemoryPlanningPass`.

A user adds one line to their lowering:

    edge.to_executorch(ExecutorchBackendConfig(memory_planning_pass=planning_pass()))

ExecuTorch (1.5.1, `exir/memory_planning.py`) calls the algorithm once per graph (the
top graph, then each control-flow submodule first) as
`algo(alignment, specs, graph_module, graph_signature, extra_padding)`, and
`MemoryPlanningAlgorithmSuite` writes the returned `mem_id`, `mem_offset` and
`mem_obj_id` back onto every spec. The rules ExecuTorch's own `greedy` honours are
honoured here the same way:

- `mem_id`: a spec a custom pool pass already pinned stays in that arena; the rest go
  to arena 1, or with `pools` to the pool the admission picks (`MemplanAlgorithm`).
- `storage_base`: a spec backed by another spec's storage sits at the base's offset
  plus `storage_base_offset`, in the base's arena, and is not packed itself.
- `graph_module.input_mem_buffer_sizes[mem_id]`: the bytes a control-flow submodule
  already owns at the bottom of that arena; the packing starts above them.
- alignment: every size is rounded up (`spec.realign`) and every offset is a multiple.
- `extra_padding`: added to the size of every arena that holds something.

Lifetimes are ExecuTorch's: inclusive node-index ranges, graph inputs from 0 and mutable
buffers to the last node; memplan's are half-open, hence `end + 1`.

Each arena is packed by `memplan.pack`: the heuristics, then, when their peak is above
the live-bytes lower bound, the exact solver within `time_limit`; every plan is validated
before it is written back.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from executorch.exir.memory_planning import (
    MemoryAlgoResult,
    MemoryPlanningAlgorithmSuite,
    SpecAllocResult,
)
from executorch.exir.passes.memory_planning_pass import MemoryPlanningPass
from executorch.exir.tensor import TensorSpec

from ..pack import (
    Buffer,
    PackResult,
    Problem,
    Solution,
    SolveStatus,
    lower_bound,
    plan,
    validate,
)
from ..pack.heuristics import choose_offset
from ..pack.planner import plan_exact

DEFAULT_ARENA = 1  # arena 0 holds constants; ExecuTorch plans activations into 1


class PlanningError(Exception):
    """The tensors cannot be planned as asked (a pool too small, a broken alias)."""


class Proof(Enum):
    """How far an arena's size is known to be from the best possible."""

    AT_BOUND = "at the lower bound"  # peak equals the most bytes live at once
    OPTIMAL = "proven optimal"  # above the bound, and the exact solver proved nothing lower
    OPEN = "not proven"  # the exact solver ran out of time
    HEURISTIC = "heuristic only"  # the exact solver was not asked


@dataclass(frozen=True)
class ArenaPool:
    """An arena ExecuTorch will allocate (`mem_id`) with the bytes it may hold."""

    name: str
    mem_id: int
    capacity: int
    alignment: int = 1


@dataclass(frozen=True)
class ArenaPlan:
    """One arena of one graph, as planned."""

    mem_id: int
    name: str
    tensors: int  # specs packed in it (storage-backed specs excluded)
    reserved: int  # bytes a control-flow submodule owns at its bottom
    lower_bound: int  # reserved + most bytes live at once + padding
    size: int  # the arena's size as returned to ExecuTorch
    proof: Proof
    seconds: float
    capacity: int | None = None
    call: int = 0  # which call planned it: submodules come first, the top graph last


@dataclass(frozen=True)
class Spill:
    """A tensor the fast pool could not take, with each pool's reason."""

    shape: tuple[int, ...]
    dtype: str
    bytes: int
    lifetime: tuple[int, int]
    pool: str
    reasons: tuple[tuple[str, str], ...]


class MemplanAlgorithm:
    """The algorithm for `MemoryPlanningAlgorithmSuite(algo_list=[...])`.

    `time_limit` bounds the exact solver per arena (None or 0: heuristics only).
    `pools`, fastest first, turns on placement across several memories: unpinned
    tensors fill the first pool and spill to the next, by whichever of two admissions
    keeps more bytes in the first pool (smallest first, or largest first, each by best
    fit); a pool's capacity is never exceeded. After a call, `arenas`
    and `spills` say what was done (appended per graph, submodules first; `top_arenas`
    are the top graph's).
    """

    def __init__(self, *, time_limit: float | None = 10.0,
                 pools: Sequence[ArenaPool] | None = None) -> None:
        self.time_limit = time_limit
        self.pools = tuple(pools or ())
        if len({p.mem_id for p in self.pools}) != len(self.pools):
            raise ValueError("pools must have distinct mem_ids")
        if any(p.mem_id < 1 for p in self.pools):
            raise ValueError("arena 0 holds constants: pool mem_ids start at 1")
        self.arenas: list[ArenaPlan] = []
        self.spills: list[Spill] = []
        self.calls = 0
        # The suite names algorithms by __name__ when it compares them.
        self.__name__ = "memplan"

    def __call__(self, alignment: int, specs: Iterable[TensorSpec], graph_module: Any,
                 graph_signature: Any = None, extra_padding: int = 0) -> MemoryAlgoResult:
        specs = list(specs)
        reserved = list(getattr(graph_module, "input_mem_buffer_sizes", None) or [])
        # One alignment for every pool a tensor may land in, so that its size does not
        # change with the pool the admission picks.
        for pool in self.pools:
            alignment = _arena_alignment(alignment, pool)
        for spec in specs:
            spec.realign(alignment)
        roots = [s for s in specs if s.storage_base is None]
        arena_of = self._choose_arenas(roots, reserved, alignment)

        offsets: dict[TensorSpec, int] = {}
        sizes: dict[int, int] = {}
        for mem_id in sorted(set(arena_of.values())):
            members = [s for s in roots if arena_of[s] == mem_id]
            incumbent = self._incumbents.get(mem_id)
            arena_offsets, arena = self._pack_arena(
                mem_id, members, _at(reserved, mem_id), alignment, extra_padding, incumbent)
            offsets.update(arena_offsets)
            sizes[mem_id] = arena.size
            self.arenas.append(arena)
        _resolve_storage_bases(specs, arena_of, offsets)
        self.calls += 1

        result = MemoryAlgoResult({}, [])
        for spec, mem_obj_id in _memory_objects(specs, arena_of, offsets).items():
            result.spec_dict[spec] = SpecAllocResult(arena_of[spec], mem_obj_id, offsets[spec])
        used = [m for m, r in enumerate(reserved) if r] + list(sizes)
        result.bufsizes = [0] * max(2, max(used, default=0) + 1)
        for mem_id, r in enumerate(reserved):
            result.bufsizes[mem_id] = r  # a submodule's arena stays even when we add nothing
        for mem_id, size in sizes.items():
            result.bufsizes[mem_id] = size
        return result

    @property
    def top_arenas(self) -> list[ArenaPlan]:
        return [a for a in self.arenas if a.call == self.calls - 1]

    # --- arenas -------------------------------------------------------------------------

    def _pool(self, mem_id: int | None) -> ArenaPool | None:
        return next((p for p in self.pools if p.mem_id == mem_id), None)

    def _choose_arenas(self, roots: list[TensorSpec], reserved: list[int],
                       alignment: int) -> dict[TensorSpec, int]:
        """The arena of every unaliased spec: its pin, else arena 1 or a pool's."""
        self._incumbents: dict[int, dict[TensorSpec, int]] = {}
        if not self.pools:
            return {s: s.mem_id if s.mem_id is not None else DEFAULT_ARENA for s in roots}
        fixed = {s: s.mem_id for s in roots if s.mem_id is not None and not self._pool(s.mem_id)}
        free = [s for s in roots if s not in fixed]
        capacities = {p.mem_id: max(0, p.capacity - _at(reserved, p.mem_id)) for p in self.pools}
        # Two admissions, and the one that keeps more bytes in the first (fastest) pool
        # wins: smallest first (the most tensors, as `memplan.place` admits) and largest
        # first (the most bytes when a few large tensors dominate).
        options = [self._admit(free, capacities, alignment, largest_first=False),
                   self._admit(free, capacities, alignment, largest_first=True)]
        fast = self.pools[0].mem_id
        chosen = max(options, key=lambda o: (len(o), sum(  # placing everything comes first
            s.allocated_memory for s, (mem_id, _) in o.items() if mem_id == fast)))
        arena_of = dict(fixed)
        for spec in free:
            if spec not in chosen:
                raise PlanningError(
                    f"no pool can hold a {spec.allocated_memory}-byte tensor (shape "
                    f"{list(spec.shape)}): {self._why_not(spec, capacities)}")
            mem_id, offset = chosen[spec]
            arena_of[spec] = mem_id
            self._incumbents.setdefault(mem_id, {})[spec] = offset
            if mem_id != fast and spec.mem_id is None:
                self.spills.append(Spill(
                    tuple(spec.shape), str(spec.dtype).removeprefix("torch."),
                    spec.allocated_memory, (spec.lifetime[0], spec.lifetime[1]),
                    self._pool(mem_id).name, self._refusals(spec, mem_id, chosen, capacities)))
        return arena_of

    def _admit(self, specs: list[TensorSpec], capacities: dict[int, int], alignment: int,
               largest_first: bool) -> dict[TensorSpec, tuple[int, int]]:
        """Pinned specs, then the others in size order, each at its best-fit offset in
        the first pool (fastest first) where it stays within the capacity: (arena, offset)
        per admitted spec. A spec no pool takes is left out."""
        admitted: dict[TensorSpec, tuple[int, int]] = {}
        sign = -1 if largest_first else 1
        order = sorted(specs, key=lambda s: (s.mem_id is None, sign * s.allocated_memory,
                                             s.lifetime[0], s.lifetime[1]))
        for spec in order:
            pools = [self._pool(spec.mem_id)] if spec.mem_id is not None else self.pools
            for pool in pools:
                busy = sorted((offset, offset + other.allocated_memory)
                              for other, (mem_id, offset) in admitted.items()
                              if mem_id == pool.mem_id and _live_together(spec, other))
                offset = choose_offset(busy, spec.allocated_memory, alignment, best_fit=True)
                if offset + spec.allocated_memory <= capacities[pool.mem_id]:
                    admitted[spec] = (pool.mem_id, offset)
                    break
        return admitted

    def _refusals(self, spec: TensorSpec, mem_id: int,
                  chosen: dict[TensorSpec, tuple[int, int]],
                  capacities: dict[int, int]) -> tuple[tuple[str, str], ...]:
        """Why each faster pool did not take `spec` in the admission chosen."""
        reasons = []
        for pool in self.pools:
            if pool.mem_id == mem_id:
                break
            reasons.append((pool.name, self._why_pool_refused(spec, pool, chosen, capacities)))
        return tuple(reasons)

    def _why_pool_refused(self, spec: TensorSpec, pool: ArenaPool,
                          chosen: dict[TensorSpec, tuple[int, int]],
                          capacities: dict[int, int]) -> str:
        capacity = capacities[pool.mem_id]
        if spec.allocated_memory > capacity:
            return f"{spec.allocated_memory} B is over the capacity of {capacity} B"
        live = spec.allocated_memory + sum(
            other.allocated_memory for other, (mem_id, _) in chosen.items()
            if mem_id == pool.mem_id and _live_together(spec, other))
        return (f"full: {live} B of its tensors would be live at once with it, "
                f"{capacity} B fit" if live > capacity else
                f"full: no gap of {spec.allocated_memory} B left where it is live")

    def _why_not(self, spec: TensorSpec, capacities: dict[int, int]) -> str:
        return "; ".join(f"{p.name} holds {capacities[p.mem_id]} B" for p in self.pools)

    def _pack_arena(self, mem_id: int, members: list[TensorSpec], reserved: int,
                    alignment: int, extra_padding: int,
                    incumbent: dict[TensorSpec, int] | None
                    ) -> tuple[dict[TensorSpec, int], ArenaPlan]:
        pool = self._pool(mem_id)
        align = _arena_alignment(alignment, pool)
        base = _round_up(reserved, align)
        started = time.perf_counter()
        packed = [s for s in members if s.allocated_memory > 0]
        problem = Problem(tuple(
            Buffer(str(i), s.lifetime[0], s.lifetime[1] + 1, s.allocated_memory, align)
            for i, s in enumerate(packed)))
        best, proof = self._solve(problem, packed, incumbent)
        offsets = {s: base for s in members}  # an empty tensor occupies no bytes
        for s, offset in zip(packed, best.solution.offsets, strict=True):
            offsets[s] = base + offset
        size = base + best.peak + (extra_padding if members else 0)
        arena = ArenaPlan(
            mem_id, pool.name if pool else f"arena {mem_id}", len(members), reserved,
            base + best.lower_bound + (extra_padding if members else 0), size, proof,
            time.perf_counter() - started, pool.capacity if pool else None, self.calls)
        if pool is not None and size > pool.capacity:
            raise PlanningError(f"pool {pool.name} needs {size} bytes of {pool.capacity}")
        return offsets, arena

    def _solve(self, problem: Problem, packed: list[TensorSpec],
               incumbent: dict[TensorSpec, int] | None) -> tuple[PackResult, Proof]:
        best = plan(problem)
        if incumbent is not None and packed:
            # The placement policy already holds a packing that fits its pool; keep it
            # unless the packers find a lower one.
            kept = Solution(tuple(incumbent[s] for s in packed), "placement")
            validate(problem, kept, check_capacity=False)
            if kept.peak(problem) < best.peak:
                best = PackResult(problem, kept, best.lower_bound, kept.peak(problem), 0.0)
        if best.peak <= best.lower_bound:
            return best, Proof.AT_BOUND
        if not self.time_limit:
            return best, Proof.HEURISTIC
        exact = plan_exact(problem, minimize=True, time_limit=self.time_limit)
        if exact.peak <= best.peak:
            best = exact
        if best.peak <= best.lower_bound:
            return best, Proof.AT_BOUND
        proven = exact.status is SolveStatus.OPTIMAL and exact.peak == best.peak
        return best, Proof.OPTIMAL if proven else Proof.OPEN


def planning_pass(*, time_limit: float | None = 10.0, pools: Sequence[ArenaPool] | None = None,
                  **pass_options: Any) -> MemoryPlanningPass:
    """A `MemoryPlanningPass` planned by memplan; options go to the pass
    (`alloc_graph_input`, `alignment`, ...). Its algorithm is `.memory_planning_algo`
    `.algo_list[0]`, whose `arenas` and `spills` tell what it did."""
    algo = MemplanAlgorithm(time_limit=time_limit, pools=pools)
    return MemoryPlanningPass(
        memory_planning_algo=MemoryPlanningAlgorithmSuite(algo_list=[algo]), **pass_options)


def pools_from_target(target: Any) -> tuple[ArenaPool, ...]:
    """A target's pools (`memplan.targets.Target`) as ExecuTorch arenas, in the target's
    order (fastest first)."""
    return tuple(ArenaPool(p.name, i + 1, p.capacity, p.alignment)
                 for i, p in enumerate(target.pools))


def live_bytes_bound(specs: Iterable[TensorSpec]) -> int:
    """The most bytes of these (unaliased, realigned) specs live at once."""
    return lower_bound(Problem(tuple(
        Buffer(str(i), s.lifetime[0], s.lifetime[1] + 1, s.allocated_memory)
        for i, s in enumerate(specs) if s.allocated_memory > 0)))


# --- helpers --------------------------------------------------------------------------

def _at(values: list[int], index: int) -> int:
    return values[index] if index < len(values) else 0


def _round_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _arena_alignment(alignment: int, pool: ArenaPool | None) -> int:
    return math.lcm(alignment, pool.alignment) if pool else alignment


def _live_together(a: TensorSpec, b: TensorSpec) -> bool:
    return a.lifetime[0] <= b.lifetime[1] and b.lifetime[0] <= a.lifetime[1]


def _resolve_storage_bases(specs: list[TensorSpec], arena_of: dict[TensorSpec, int],
                           offsets: dict[TensorSpec, int]) -> None:
    """Put every storage-backed spec inside its base, following chains of bases."""
    pending = [s for s in specs if s.storage_base is not None]
    while pending:
        waiting = []
        for spec in pending:
            base = spec.storage_base
            if base not in offsets:
                waiting.append(spec)
                continue
            offset = offsets[base] + spec.storage_base_offset
            if spec.storage_base_offset < 0 or offset % spec.alignment:
                raise PlanningError(
                    f"a tensor aliased at offset {spec.storage_base_offset} inside its base "
                    f"breaks alignment {spec.alignment}")
            if spec.storage_base_offset + spec.allocated_memory > base.allocated_memory:
                raise PlanningError("a storage-backed tensor does not fit inside its base")
            offsets[spec] = offset
            arena_of[spec] = arena_of[base]
        if len(waiting) == len(pending):
            raise PlanningError(
                f"{len(waiting)} storage-backed tensors have a base that is not planned")
        pending = waiting


def _memory_objects(specs: list[TensorSpec], arena_of: dict[TensorSpec, int],
                    offsets: dict[TensorSpec, int]) -> dict[TensorSpec, int]:
    """Number the memory objects: specs whose bytes touch, transitively, share one.

    ExecuTorch's verifier asks exactly this: two specs of an arena that overlap in
    storage (at any time) carry the same `mem_obj_id`, and no others need to.
    """
    ids: dict[TensorSpec, int] = {}
    next_id = 0
    for mem_id in sorted(set(arena_of.values())):
        members = sorted((s for s in specs if arena_of[s] == mem_id),
                         key=lambda s: (offsets[s], -s.allocated_memory))
        top, current = -1, -1
        for spec in members:
            lo, size = offsets[spec], spec.allocated_memory
            if size == 0:  # touches nothing
                ids[spec] = next_id
                next_id += 1
                continue
            if lo >= top:
                current, next_id = next_id, next_id + 1
            ids[spec] = current
            top = max(top, lo + size)
    return ids
