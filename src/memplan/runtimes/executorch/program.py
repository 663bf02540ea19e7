"""Whole ExecuTorch programs: lower an exported program with a chosen planner, read
the plan back off the graph, verify it with ExecuTorch's own checker and run it.

The planners compared are ExecuTorch's default (`greedy`, one arena), its
capacity-aware `banked_greedy` (several arenas) and memplan's
(`memplan.runtimes.executorch.planning`). Every lowering starts from the same exported program,
so the tensors planned are the same and only their offsets differ.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import torch
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge
from executorch.exir import memory as exir_memory
from executorch.exir.memory_planning import Verifier, get_node_tensor_specs
from executorch.exir.passes import MemoryPlanningPass

from ...pack import Buffer, Problem, live_bytes_profile, lower_bound
from .planning import (
    ArenaPool,
    GraphArena,
    MemplanAlgorithm,
    PlanningError,
    Spill,
    planning_pass,
)


class Planner(Enum):
    GREEDY = "executorch greedy"
    BANKED_GREEDY = "executorch banked_greedy"
    MEMPLAN = "memplan"


@dataclass(frozen=True)
class TensorRow:
    """One planned tensor of the top graph."""

    op: str  # what writes it: an operator, or "input"
    shape: tuple[int, ...]
    dtype: str
    bytes: int  # as planned: rounded up to the alignment
    lifetime: tuple[int, int]  # inclusive node indices, as ExecuTorch counts them
    mem_id: int
    offset: int
    aliased: bool  # lives inside another tensor's storage (`storage_base`)


@dataclass(frozen=True)
class Lowered:
    """A program lowered with one planner."""

    planner: Planner
    program: bytes  # the .pte
    arena_sizes: tuple[int, ...]  # index = mem_id; 0 holds constants (planned elsewhere)
    tensors: tuple[TensorRow, ...]
    seconds: float  # the whole `to_executorch`, planning included
    reuse_pairs: int  # tensor pairs sharing bytes, per ExecuTorch's verifier (which passed)
    arenas: tuple[GraphArena, ...] = ()  # memplan only: per-arena bound and proof
    spills: tuple[Spill, ...] = ()  # memplan with pools only
    # memplan with in_place: the operators whose output took an input's bytes (`bound`
    # counts both; the arenas' `lower_bound` counts them once)
    in_place: tuple[Any, ...] = ()
    released: int = 0  # memplan with parts: tensors planned as parts (`parts.py`)

    @property
    def total(self) -> int:
        return sum(self.arena_sizes)

    def bound(self, mem_id: int | None = None) -> int:
        """Most bytes live at once in one arena (all arenas when None): no plan of
        these tensors in that arena is smaller."""
        return lower_bound(_problem(r for r in self.tensors
                                    if mem_id is None or r.mem_id == mem_id))

    def peak_tensors(self, count: int = 5) -> list[TensorRow]:
        """The largest tensors live when the most bytes are: what a smaller peak must lose."""
        rows = [r for r in self.tensors if not r.aliased]
        profile = live_bytes_profile(_problem(rows))
        if not profile:
            return []
        step = max(profile, key=lambda p: p[1])[0]
        live = [r for r in rows if r.lifetime[0] <= step <= r.lifetime[1]]
        return sorted(live, key=lambda r: -r.bytes)[:count]


def load_exported(path: str | Path) -> torch.export.ExportedProgram:
    """Read a `torch.export.save`d program (.pt2); a bad file is an InputError. The archive
    is checked first and nothing in it is unpickled without restriction (runtimes/pt2.py)."""
    from ..pt2 import load_exported as load_checked

    return load_checked(path)


def lower(exported: torch.export.ExportedProgram, planner: Planner, *,
          pools: Sequence[ArenaPool] = (), time_limit: float | None = 10.0,
          graph_fixes: bool = False, arena_planner: Any = None, in_place: bool = False,
          parts: bool = False, fold_constants: bool = False) -> Lowered:
    """Lower a copy of `exported` to an ExecuTorch program planned by `planner`.

    `pools` (fastest first) are the arenas for the banked planners. `graph_fixes` turns
    on ExecuTorch's constant propagation (weight-only subgraphs folded into constants)
    and its reinplace pass, which change which tensors exist, not where they go.
    `arena_planner` plans each arena for `Planner.MEMPLAN`: the model driver's
    (`front_end.memplan_planner`), which this layer cannot import. `in_place`: memplan
    writes elementwise outputs over inputs that die there (`inplace.py`); `parts`: a
    sliced tensor's bytes are reused once no slice reads them again (`parts.py`);
    `fold_constants`: constant propagation alone (`lower_with`).
    """
    return lower_with(exported, planner,
                      _planning(planner, pools, time_limit, arena_planner, in_place, parts),
                      graph_fixes, fold_constants)


def _planning(planner: Planner, pools: Sequence[ArenaPool], time_limit: float | None,
              arena_planner: Any = None, in_place: bool = False, parts: bool = False
              ) -> MemoryPlanningPass:
    if planner is Planner.GREEDY:
        return MemoryPlanningPass()
    if planner is Planner.MEMPLAN:
        return planning_pass(time_limit=time_limit, pools=pools, planner=arena_planner,
                             in_place=in_place, parts=parts)
    return _banked_greedy_pass(pools)


def lower_with(exported: torch.export.ExportedProgram, planner: Planner,
               planning: MemoryPlanningPass, graph_fixes: bool = False,
               fold_constants: bool = False) -> Lowered:
    """Lower a copy of `exported` with this memory-planning pass (see `lower`);
    `fold_constants` turns on ExecuTorch's constant propagation alone (no reinplace)."""
    algo: MemplanAlgorithm | None = None
    if planner is Planner.MEMPLAN:
        algo = planning.memory_planning_algo.algo_list[0]
    config = ExecutorchBackendConfig(
        memory_planning_pass=planning,
        do_quant_fusion_and_const_prop=graph_fixes or fold_constants,
        run_reinplace_pass=graph_fixes)
    started = time.perf_counter()
    edge = to_edge(copy.deepcopy(exported), compile_config=EdgeCompileConfig())
    program = edge.to_executorch(config)
    seconds = time.perf_counter() - started
    ep = program.exported_program()
    # ExecuTorch runs its storage-reuse check only for an algorithm named "greedy": run
    # it on every plan. It raises when two tensors live at once share bytes.
    verifier = Verifier(ep.graph_module, planning.alloc_graph_input,
                        planning.alloc_graph_output, planning.alloc_mutable_buffers,
                        ep.graph_signature)
    verifier.verify_graph_input_output()
    shared = algo.shared if algo else []
    released = algo.released if algo else {}
    # An in-place output shares bytes with its input while both are live, and a tensor
    # released in parts gives up bytes before its last reader: the verifier refuses both
    # unless told; then every such overlap must be one memplan made.
    made = bool(shared or released)
    reuse_pairs = verifier.verify_storage_reuse(allow_lifetime_and_storage_overlap=made)
    if made:
        _only_planned_overlaps(ep.graph_module, planning, ep.graph_signature, shared, released)
    return Lowered(
        planner, bytes(program.buffer), tuple(ep.graph_module.meta["non_const_buffer_sizes"]),
        tuple(planned_tensors(ep.graph_module)), seconds, reuse_pairs,
        tuple(algo.top_arenas) if algo else (), tuple(algo.spills) if algo else (),
        tuple(shared), len(released))


def planned_tensors(graph_module: Any) -> list[TensorRow]:
    """Every planned, non-constant tensor of the top graph, in order of first use."""
    ops: dict[int, str] = {}
    specs: dict[int, Any] = {}
    for node in graph_module.graph.nodes:
        for spec in get_node_tensor_specs(node):
            if spec.const or spec.mem_offset is None or spec.mem_id is None:
                continue
            specs.setdefault(id(spec), spec)
            if id(spec) in ops:
                continue
            if node.op == "placeholder":
                ops[id(spec)] = "input"
            elif node.op == "call_function" and node.target is not exir_memory.alloc:
                ops[id(spec)] = _op_name(node.target)
    rows = [TensorRow(ops.get(key, "?"), tuple(s.shape), str(s.dtype).removeprefix("torch."),
                      s.allocated_memory, (s.lifetime[0], s.lifetime[1]), s.mem_id,
                      s.mem_offset, s.storage_base is not None)
            for key, s in specs.items()]
    return sorted(rows, key=lambda r: (r.lifetime, r.mem_id, r.offset))


def random_inputs(exported: torch.export.ExportedProgram, seed: int = 0) -> list[torch.Tensor]:
    """Random user inputs of the shapes and dtypes the program was exported with."""
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for node in exported.graph.nodes:
        if node.op != "placeholder" or node.name not in _user_inputs(exported):
            continue
        val = node.meta["val"]
        shape = tuple(_upper(exported, d) for d in val.shape)
        if val.dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=generator).to(val.dtype))
        elif val.dtype == torch.bool:
            inputs.append(torch.randint(0, 2, shape, generator=generator).bool())
        else:  # token ids and indices: small non-negative values stay in range
            inputs.append(torch.randint(0, 8, shape, generator=generator, dtype=val.dtype))
    return inputs


@dataclass(frozen=True)
class DynamicDim:
    """A dimension of a user input that the export left symbolic, with its range."""

    input: str
    dim: int
    symbol: str
    lower: int
    upper: int | None  # None: unbounded


def dynamic_dims(exported: torch.export.ExportedProgram) -> list[DynamicDim]:
    """The symbolic dimensions of the user inputs: ExecuTorch plans them at `upper`."""
    found = []
    users = _user_inputs(exported)
    for node in exported.graph.nodes:
        if node.op != "placeholder" or node.name not in users:
            continue
        for i, d in enumerate(getattr(node.meta.get("val"), "shape", ())):
            if isinstance(d, int):
                continue
            lower, upper = _range(exported, d)
            found.append(DynamicDim(node.name, i, str(d), lower, upper))
    return found


def _range(exported: torch.export.ExportedProgram, d: Any) -> tuple[int, int | None]:
    bounds = exported.range_constraints.get(d.node.expr)
    if bounds is None:
        return 0, None
    lower, upper = int(bounds.lower), bounds.upper
    return lower, None if not upper.is_finite else int(upper)


def _upper(exported: torch.export.ExportedProgram, d: Any) -> int:
    """A dimension's size for an input at the bound ExecuTorch planned for."""
    if isinstance(d, int):
        return d
    lower, upper = _range(exported, d)
    if upper is None:
        raise ValueError(f"dimension {d} has no upper bound (at least {lower})")
    return upper


def run(program: bytes, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """Execute a .pte's `forward` with `executorch.runtime` (it allocates the arenas
    the program asks for)."""
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(program).load_method("forward")
    return [t.clone() if isinstance(t, torch.Tensor) else t for t in method.execute(inputs)]


def identical(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Bit for bit: NaNs in the same places with the same payload count as equal."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            if _bytes(x).ne(_bytes(y)).any():
                return False
        elif x != y:
            return False
    return True


# --- helpers --------------------------------------------------------------------------

def _only_planned_overlaps(graph_module: Any, planning: MemoryPlanningPass, signature: Any,
                           shared: Sequence[Any], released: dict[Any, Any]) -> None:
    """Raise unless every two tensors live at once that share bytes are one storage (a
    view and its base, as ExecuTorch's verifier allows), an in-place output and its
    input (`inplace.InPlace`, chains included), or one takes bytes of a tensor released in
    parts (`parts.py`) that are dead by its first step."""
    from executorch.exir.memory_planning import collect_specs_from_nodes

    specs = list(collect_specs_from_nodes(
        graph_module.graph.nodes, signature, ignore_const=True,
        ignore_graph_input=not planning.alloc_graph_input,
        ignore_graph_output=not planning.alloc_graph_output,
        ignore_mutable_buffers=not planning.alloc_mutable_buffers, do_assertion=False,
        ignore_out_var_node=False, dedup=True))
    group: dict[int, int] = {}

    def find(spec: Any) -> int:
        while spec.storage_base is not None:
            spec = spec.storage_base
        i = id(spec)
        while group.get(i, i) != i:
            i = group[i]
        return i

    for done in shared:
        a, b = find(done.output), find(done.input)
        group[max(a, b)] = min(a, b)
    for n, lhs in enumerate(specs):
        for rhs in specs[n + 1:]:
            if (Verifier.storage_overlap(lhs, rhs) and Verifier.lifetime_overlap(lhs, rhs)
                    and find(lhs) != find(rhs) and not _freed(lhs, rhs, released)
                    and not _freed(rhs, lhs, released)):
                raise PlanningError(f"two tensors share bytes while both live: {lhs} and "
                                    f"{rhs}")


def _freed(whole: Any, other: Any, released: dict[Any, Any]) -> bool:
    """Every byte of `whole` under `other` belongs to a part dead before `other`'s first
    step (lifetimes inclusive, parts' ends exclusive)."""
    parts = released.get(whole)
    if not parts or whole.mem_id != other.mem_id:
        return False
    lo = other.mem_offset - whole.mem_offset
    hi = lo + other.allocated_memory
    return all(p.end <= other.lifetime[0] for p in parts
               if p.offset < hi and lo < p.offset + p.size)


def _banked_greedy_pass(pools: Sequence[ArenaPool]) -> MemoryPlanningPass:
    from executorch.exir.banked_memory_planning import (
        Bank,
        TargetMemoryMap,
        banked_memory_planning_pass,
    )

    return banked_memory_planning_pass(TargetMemoryMap(
        [Bank(p.name, p.capacity, p.mem_id, p.alignment) for p in pools]))


def _problem(rows: Any) -> Problem:
    return Problem(tuple(Buffer(str(i), r.lifetime[0], r.lifetime[1] + 1, r.bytes)
                         for i, r in enumerate(rows) if not r.aliased and r.bytes))


def _user_inputs(exported: torch.export.ExportedProgram) -> set[str]:
    from torch.export.graph_signature import InputKind

    return {spec.arg.name for spec in exported.graph_signature.input_specs
            if spec.kind == InputKind.USER_INPUT and hasattr(spec.arg, "name")}


def _op_name(target: Any) -> str:
    name = getattr(target, "__name__", None) or str(target)
    return name.removeprefix("aten.").removesuffix(".out")


def _bytes(t: torch.Tensor) -> torch.Tensor:
    return t.detach().contiguous().reshape(-1).view(torch.uint8)
