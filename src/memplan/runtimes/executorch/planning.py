"""memplan as the memory-planning algorithm of ExecuTorch's `MemoryPlanningPass`.

A user adds one line to their lowering (`planning_pass` of `memplan.runtimes.executorch.front_end`,
which hands this algorithm the model driver's planner):

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

Each call is planned by the model driver (`driver.plan_arena`, the same for every front
end): placed across the pools by `memplan.place` or, when it holds fewer tensor bytes in
the slower pools, `banked_greedy`'s own split improved (the driver's `_split_arena`),
each arena packed by `pack.pack` (the
heuristics, the exact solver within `time_limit` when they are above the live-bytes
lower bound, ExecuTorch's own plan and the placement's as incumbents); every plan is
validated before it is written back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .edge_yaml import libyaml_for_safe_loads

with libyaml_for_safe_loads():  # the first import of ExecuTorch: its edge-op table parsed fast
    from executorch.exir.memory_planning import (
        MemoryAlgoResult,
        MemoryPlanningAlgorithmSuite,
        SpecAllocResult,
    )
    from executorch.exir.passes.memory_planning_pass import MemoryPlanningPass
    from executorch.exir.tensor import TensorSpec

from ...buffers import Arena, BufferRequest, Part, RuntimePlan
from ...errors import BudgetError
from ...pack import PlanStatus
from ...plan.contract import Operator
from .inplace import InPlace
from .inplace import find as find_in_place
from .parts import released_parts

DEFAULT_ARENA = 1  # arena 0 holds constants; ExecuTorch plans activations into 1


class PlanningError(Exception):
    """The tensors cannot be planned as asked (a pool too small, a broken alias)."""


@dataclass(frozen=True)
class ArenaPool:
    """An arena ExecuTorch will allocate (`mem_id`) with the bytes it may hold."""

    name: str
    mem_id: int
    capacity: int
    alignment: int = 1


@dataclass(frozen=True)
class GraphArena:
    """One arena of one graph (one call of the hook), as the driver planned it."""

    call: int  # which call planned it: submodules come first, the top graph last
    mem_id: int
    plan: Any  # driver.ArenaPlan

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def tensors(self) -> int:
        return len(self.plan.buffers)

    @property
    def reserved(self) -> int:
        return self.plan.reserved

    @property
    def lower_bound(self) -> int:
        return self.plan.lower_bound

    @property
    def size(self) -> int:
        return self.plan.size

    @property
    def proof(self) -> PlanStatus:
        return self.plan.proof

    @property
    def seconds(self) -> float:
        return self.plan.seconds

    @property
    def capacity(self) -> int | None:
        return self.plan.capacity


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

    Each call turns ExecuTorch's specs into `BufferRequest`s (the one place it does),
    computes ExecuTorch's own plan of them (`greedy`, or `banked_greedy` with `pools`)
    as the runtime's plan, and hands them to the driver's planner (`driver.plan_arena`:
    with `pools`, fastest first, the placement policy of `memplan.place` spreads the
    unpinned tensors across the pools; each arena is packed by `pack.pack`, which
    keeps the best of memplan's, ExecuTorch's and the placement's plans). `time_limit`
    bounds the exact solver per arena (None or 0: heuristics only). After a call,
    `arenas` and `spills` say what was done (appended per graph, submodules first;
    `top_arenas` are the top graph's), and `specs` the top graph's specs by buffer key.
    """

    def __init__(self, *, time_limit: float | None = 10.0,
                 pools: Sequence[ArenaPool] | None = None,
                 planner: Callable[[Arena], Sequence[Any]] | None = None,
                 in_place: bool = False, parts: bool = False) -> None:
        self.time_limit = time_limit
        self.in_place = in_place  # outputs over dying inputs (`inplace.py`)
        self.shared: list[InPlace] = []  # the last call's (the top graph's) in-place ops
        self.parts = parts  # sliced tensors released in parts (`parts.py`)
        self.released: dict[Any, tuple[Part, ...]] = {}  # the last call's, by spec
        self.pools = tuple(pools or ())
        if len({p.mem_id for p in self.pools}) != len(self.pools):
            raise ValueError("pools must have distinct mem_ids")
        if any(p.mem_id < 1 for p in self.pools):
            raise ValueError("arena 0 holds constants: pool mem_ids start at 1")
        if planner is None:
            raise ValueError("the planner is the model driver's (runtimes.executorch.front_end."
                             "planning_pass gives it)")
        self.planner = planner
        self.arenas: list[GraphArena] = []
        self.spills: list[Spill] = []
        self.views: list[tuple[int, Arena]] = []  # (call, what it asked the planner)
        self.specs: dict[int, TensorSpec] = {}
        self.operators: tuple[Operator, ...] = ()  # the last call's (the top graph's)
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
        names = _op_names(graph_module)
        requests = {spec: self._request(i, spec, names) for i, spec in enumerate(roots)}
        self.shared = find_in_place(graph_module, {id(s) for s in roots}) if self.in_place \
            else []
        for done in self.shared:
            requests[done.output] = replace(requests[done.output],
                                            shares_with=requests[done.input].key)
        found = released_parts(graph_module, roots, alignment) if self.parts else {}
        self.released = {s: found[id(s)] for s in roots if id(s) in found}
        for spec, parts in self.released.items():
            requests[spec] = replace(requests[spec], parts=parts)
        self.operators = _operators(graph_module, {id(s): r.key for s, r in requests.items()})
        runtime, refused = self._runtime_plan(alignment, specs, graph_module,
                                              graph_signature, extra_padding, requests)

        arena_of: dict[TensorSpec, int] = {}
        offsets: dict[TensorSpec, int] = {}
        sizes: dict[int, int] = {}
        spec_of = {r.key: spec for spec, r in requests.items()}
        for name, members in self._groups(roots, requests).items():
            arena = Arena(name, tuple(members), alignment, runtime, refused,
                          {self.arena_name(m): r for m, r in enumerate(reserved) if r},
                          extra_padding)
            self.views.append((self.calls, arena))
            try:
                plans = self.planner(arena)
            except BudgetError as err:
                raise PlanningError(str(err)) from None
            for planned in plans:
                mem_id = self._mem_id(planned.name)
                if mem_id is None:
                    raise PlanningError(f"the planner put tensors in {planned.name}, "
                                        "which is no arena of this program")
                capacity = self._pool(mem_id).capacity if self._pool(mem_id) else None
                if capacity is not None and planned.size > capacity:
                    raise PlanningError(f"pool {planned.name} needs {planned.size} bytes of "
                                        f"{capacity}")
                for key, offset in planned.offsets.items():
                    offsets[spec_of[key]] = offset
                    arena_of[spec_of[key]] = mem_id
                sizes[mem_id] = planned.size
                self.arenas.append(GraphArena(self.calls, mem_id, planned))
                self.spills += [_spill(s, spec_of[s.buffer.key]) for s in planned.spills]
        _resolve_storage_bases(specs, arena_of, offsets)
        self.calls += 1
        self.specs = spec_of  # the last call's (the top graph's) specs by buffer key

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
    def top_arenas(self) -> list[GraphArena]:
        return [a for a in self.arenas if a.call == self.calls - 1]

    # --- the adaptation to BufferRequest --------------------------------------------------

    def _request(self, key: int, spec: TensorSpec, names: dict[int, str]) -> BufferRequest:
        pinned = self.arena_name(spec.mem_id) if spec.mem_id is not None else None
        return BufferRequest(key, names.get(id(spec), "?"), spec.allocated_memory,
                             spec.lifetime[0], spec.lifetime[1] + 1, pinned=pinned)

    def _groups(self, roots: list[TensorSpec], requests: dict[TensorSpec, BufferRequest]
                ) -> dict[str, list[BufferRequest]]:
        """The buffers planned together: with pools, every spec unpinned or pinned to a
        pool (placement spreads them); each other pinned arena apart."""
        groups: dict[str, list[BufferRequest]] = {}
        shared = self.arena_name(DEFAULT_ARENA) if not self.pools else "pools"
        for spec in roots:
            pool = self._pool(spec.mem_id) if spec.mem_id is not None else None
            if spec.mem_id is None or pool is not None:
                name = shared
            else:
                name = self.arena_name(spec.mem_id)
            groups.setdefault(name, []).append(requests[spec])
        return groups

    def arena_name(self, mem_id: int) -> str:
        pool = self._pool(mem_id)
        return pool.name if pool else f"arena {mem_id}"

    def _mem_id(self, name: str) -> int | None:
        for pool in self.pools:
            if pool.name == name:
                return pool.mem_id
        if name.startswith("arena ") and name[6:].isdigit():
            return int(name[6:])
        return None

    def _pool(self, mem_id: int | None) -> ArenaPool | None:
        return next((p for p in self.pools if p.mem_id == mem_id), None)

    def _runtime_plan(self, alignment: int, specs: list[TensorSpec], graph_module: Any,
                      graph_signature: Any, extra_padding: int,
                      requests: dict[TensorSpec, BufferRequest]
                      ) -> tuple[RuntimePlan | None, str | None]:
        """ExecuTorch's own planner on the same specs: what it would do without us."""
        from executorch.exir.memory_planning import greedy

        if self.pools:
            from executorch.exir.banked_memory_planning import (
                Bank,
                BankedGreedy,
                TargetMemoryMap,
            )

            planner = BankedGreedy(TargetMemoryMap(
                [Bank(p.name, p.capacity, p.mem_id, p.alignment) for p in self.pools]))
            label = "executorch banked_greedy"
        else:
            planner, label = greedy, "executorch greedy"
        try:
            result = planner(alignment, specs, graph_module, graph_signature, extra_padding)
        except Exception as err:  # BankPlacementError and whatever else its planner raises
            return None, str(err).strip().splitlines()[0] if str(err).strip() else \
                type(err).__name__
        placed = {requests[s].key: result.spec_dict[s] for s in requests
                  if s in result.spec_dict}
        sizes = {self.arena_name(m): size for m, size in enumerate(result.bufsizes) if m}
        return RuntimePlan(label, {k: r.mem_offset for k, r in placed.items()}, sizes,
                           {k: self.arena_name(r.mem_id) for k, r in placed.items()}), None


def planning_pass(*, time_limit: float | None = 10.0, pools: Sequence[ArenaPool] | None = None,
                  planner: Callable[[Arena], Sequence[Any]] | None = None,
                  in_place: bool = False, parts: bool = False,
                  **pass_options: Any) -> MemoryPlanningPass:
    """A `MemoryPlanningPass` planned by memplan; options go to the pass
    (`alloc_graph_input`, `alignment`, ...). Its algorithm is `.memory_planning_algo`
    `.algo_list[0]`, whose `arenas` and `spills` tell what it did (and `shared`, with
    `in_place`, the operators whose output takes a dying input's bytes; `released`, with
    `parts`, the sliced tensors planned as parts)."""
    algo = MemplanAlgorithm(time_limit=time_limit, pools=pools, planner=planner,
                            in_place=in_place, parts=parts)
    return MemoryPlanningPass(
        memory_planning_algo=MemoryPlanningAlgorithmSuite(algo_list=[algo]), **pass_options)


def pools_from_target(target: Any) -> tuple[ArenaPool, ...]:
    """A target's pools (`memplan.targets.Target`) as ExecuTorch arenas, in the target's
    order (fastest first)."""
    return tuple(ArenaPool(p.name, i + 1, p.capacity, p.alignment)
                 for i, p in enumerate(target.pools))


def pools_target(pools: Sequence[ArenaPool]) -> Any:
    """The pools as a target for `memplan.place` (None without pools: one arena)."""
    if not pools:
        return None
    from ...targets.model import Pool, Target

    return Target("executorch pools", "the arenas given to planning_pass", ("cpu",),
                  pools=tuple(Pool(p.name, p.capacity, p.alignment, ("cpu",)) for p in pools))


# --- helpers --------------------------------------------------------------------------

def _arena_alignment(alignment: int, pool: ArenaPool | None) -> int:
    return math.lcm(alignment, pool.alignment) if pool else alignment


def _spill(spill: Any, spec: TensorSpec) -> Spill:
    return Spill(tuple(spec.shape), str(spec.dtype).removeprefix("torch."),
                 spec.allocated_memory, (spec.lifetime[0], spec.lifetime[1]), spill.space,
                 spill.reasons)


def _op_names(graph_module: Any) -> dict[int, str]:
    """What writes each spec (by id): an operator, or "input"."""
    from executorch.exir import memory as exir_memory
    from executorch.exir.memory_planning import get_node_tensor_specs

    names: dict[int, str] = {}
    graph = getattr(graph_module, "graph", None)
    for node in graph.nodes if graph is not None else ():
        for spec in get_node_tensor_specs(node):
            if id(spec) in names:
                continue
            if node.op == "placeholder":
                names[id(spec)] = "input"
            elif node.op == "call_function" and node.target is not exir_memory.alloc:
                target = node.target
                name = getattr(target, "__name__", None) or str(target)
                names[id(spec)] = name.removeprefix("aten.").removesuffix(".out")
    return names


_PATCHED = ("convolution", "max_pool2d", "avg_pool2d")


def _operators(graph_module: Any, key_of: dict[int, int]) -> tuple[Operator, ...]:
    """Each operator of the graph with the planned buffers it reads and writes (a tensor
    inside another's storage stands for its base): the floor of any order."""
    from executorch.exir import memory as exir_memory
    from executorch.exir.memory_planning import get_node_tensor_specs

    def root(spec: Any) -> Any:
        while getattr(spec, "storage_base", None) is not None:
            spec = spec.storage_base
        return spec

    found = []
    graph = getattr(graph_module, "graph", None)
    for node in graph.nodes if graph is not None else ():
        if node.op != "call_function" or node.target is exir_memory.alloc:
            continue
        keys = [key_of.get(id(root(spec))) for n in (node, *node.all_input_nodes)
                for spec in get_node_tensor_specs(n)]
        uses = tuple(dict.fromkeys(k for k in keys if k is not None))
        if uses:
            target = getattr(node.target, "__name__", None) or str(node.target)
            # A windowed operator's working set shrinks when it runs patch by patch.
            lowered = ("patches",) if any(w in target for w in _PATCHED) else ()
            found.append(Operator(f"{target.removeprefix('aten.')} {node.name}", uses,
                                  lowered))
    return tuple(found)


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
