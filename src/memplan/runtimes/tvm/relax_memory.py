"""What Relax's `StaticPlanBlockMemory` planned, read per function, as arena tensors.

After that pass a Relax function allocates its intermediate tensors as
`R.memory.alloc_tensor(storage, 0, shape, dtype, dev)` in storages made by
`R.memory.alloc_storage(R.shape([bytes]), dev_index, scope, dtype)`: TVM's plan
reuses whole storages (one tensor at a time per storage, at offset 0), so TVM's
footprint is the sum of the storages' sizes. memplan reads the same tensors with
lifetimes in the function's binding order and packs them side by side.

A tensor lives from its `alloc_tensor` binding to the last use of any value that
may alias it: a plain `v = t`, and the result of any binding that is not a call
of a TIR kernel (a reshape is a view, a tuple holds it), transitively. A kernel
call in destination-passing style writes into its arguments and returns nothing,
so it ends no alias.

Refused, with the reason (the function keeps TVM's own plan):
- a function whose allocations sit under control flow (an `If`, a nested body);
- a storage whose size is not a constant (a dynamic shape beyond what
  StaticPlanBlockMemory bounded: TVM allocates it at run time);
- a storage used other than by `alloc_tensor` (handed to a call, returned).
Storages on another device index or in another scope than "global" stay TVM's
(one arena is one memory; moving them would force copies).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...pack import Buffer, Problem, violations

ARENA_SCOPE = "global"


@dataclass(frozen=True)
class StorageRecord:
    var: Any
    size: int
    binding: int  # index of its alloc_storage binding


@dataclass(frozen=True)
class TensorRecord:
    var: Any
    storage: Any  # the storage var it was placed in
    size: int  # bytes
    dtype: str
    shape: tuple[int, ...]
    start: int
    end: int  # exclusive: one past the last binding that uses it or an alias


@dataclass
class FunctionMemory:
    name: str
    storages: list[StorageRecord] = field(default_factory=list)
    tensors: list[TensorRecord] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # storages left to TVM, with why
    refused: str | None = None  # why the function keeps TVM's plan whole

    @property
    def tvm_bytes(self) -> int:
        """TVM's own plan of the storages memplan would replace: their sum."""
        return sum(s.size for s in self.storages)

    def problem(self, alignment: int) -> Problem:
        """The tensors as a packing problem; buffer i is tensor key i."""
        return Problem([Buffer(t.var.name, t.start, t.end, t.size, alignment)
                        for t in self.tensors])

    def tvm_offsets(self) -> tuple[int, ...]:
        """TVM's own plan as offsets: its storages side by side, each tensor at the start of
        the storage it was given."""
        base, at = 0, {}
        for s in self.storages:
            at[s.var] = base
            base += s.size
        return tuple(at[t.storage] for t in self.tensors)

    def tvm_plan_holds(self, alignment: int) -> bool:
        """TVM's plan is valid under memplan's lifetimes (then it is a fair incumbent)."""
        from ...pack import Solution

        return not violations(self.problem(alignment), Solution(self.tvm_offsets()),
                              check_capacity=False)


def flat_bindings(func: Any) -> list[Any] | None:
    """The function's bindings in order, or None when its body is not one sequence."""
    from tvm import relax

    body = func.body
    if not isinstance(body, relax.SeqExpr):
        return None
    return [b for block in body.blocks for b in block.bindings]


def _call_op_name(value: Any) -> str | None:
    """The operator a Relax call applies (`relax.memory.alloc_tensor`), None for a call of
    a function or kernel."""
    import tvm
    from tvm import relax

    if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op):
        return str(value.op.name)
    return None


def _int(expr: Any) -> int | None:
    """The integer a PrimValue / IntImm holds, or None when it is symbolic."""
    for _ in range(3):
        if isinstance(expr, int):
            return expr
        expr = getattr(expr, "value", None)
    return None


def _has_nested_allocation(value: Any) -> bool:
    from tvm import relax

    found = []

    def visit(e: Any) -> None:
        if _call_op_name(e) in ("relax.memory.alloc_storage", "relax.memory.alloc_tensor"):
            found.append(e)

    relax.analysis.post_order_visit(value, visit)
    return bool(found)


def read_function(name: str, func: Any, module: Any) -> FunctionMemory:
    """The storages and tensors of one Relax function after StaticPlanBlockMemory."""
    from tvm import relax, tirx

    out = FunctionMemory(name)
    bindings = flat_bindings(func)
    if bindings is None:
        out.refused = "its body is not a sequence of bindings"
        return out
    storages: dict[Any, StorageRecord] = {}
    defs: dict[Any, tuple] = {}  # tensor var -> (storage var, size, binding, dtype, shape)
    alias_of: dict[Any, set[Any]] = {}  # value var -> tensor vars it may alias
    last_use: dict[Any, int] = {}
    for i, b in enumerate(bindings):
        value = b.value if isinstance(b, relax.VarBinding) else None
        if value is None:
            out.refused = f"binding {b.var.name} matches a cast (MatchCast)"
            return out
        if isinstance(value, relax.If | relax.SeqExpr) and _has_nested_allocation(value):
            out.refused = f"allocations under control flow (binding {b.var.name})"
            return out
        op = _call_op_name(value)
        used = list(relax.analysis.free_vars(value))
        for v in used:
            last_use[v] = i
        if op == "relax.memory.alloc_storage":
            size = [_int(d) for d in value.args[0].values]
            scope = str(value.args[2].value)
            dev = _int(value.args[1])
            if len(size) != 1 or size[0] is None:
                out.kept.append(f"{b.var.name}: size not a constant (a dynamic shape)")
            elif dev != 0 or scope != ARENA_SCOPE:
                out.kept.append(f"{b.var.name}: device index {dev}, scope {scope!r} "
                                "(another memory: an arena there would force copies)")
            else:
                storages[b.var] = StorageRecord(b.var, size[0], i)
            continue
        if op == "relax.memory.alloc_tensor" and value.args[0] in storages:
            shape = [_int(d) for d in value.args[2].values]
            dtype = value.args[3].value
            elem = (dtype.bits * dtype.lanes + 7) // 8
            size = elem
            for d in shape:
                size *= d or 0
            if None in shape:  # a dynamic dimension TVM bounded: its storage is the bound
                size = storages[value.args[0]].size
            defs[b.var] = (value.args[0], size, i, str(dtype), tuple(d or 0 for d in shape))
            alias_of[b.var] = {b.var}
            continue
        if any(v in storages for v in used):
            out.refused = f"storage used by {b.var.name}, not by alloc_tensor"
            return out
        callee = value.op if isinstance(value, relax.Call) else None
        is_kernel = isinstance(callee, relax.GlobalVar) and \
            isinstance(module[callee], tirx.PrimFunc)
        if not is_kernel:
            aliased = set().union(*(alias_of.get(v, set()) for v in used)) if used else set()
            if aliased:
                alias_of[b.var] = aliased
    # The function's result may be (or hold) a tensor: live to the end.
    end_of_body = len(bindings)
    for v in relax.analysis.free_vars(func.body.body):
        last_use[v] = end_of_body
    ends: dict[Any, int] = {}
    for v, tensors in alias_of.items():
        for t in tensors:
            ends[t] = max(ends.get(t, defs[t][2]), last_use.get(v, defs[t][2]))
    out.storages = list(storages.values())
    out.tensors = [TensorRecord(t, s, size, dtype, shape, start, ends[t] + 1)
                   for t, (s, size, start, dtype, shape) in defs.items()]
    return out


def read_module(module: Any) -> list[FunctionMemory]:
    """Every Relax function of `module` (not only main), in name order."""
    from tvm import relax

    return [read_function(gv.name_hint, func, module)
            for gv, func in sorted(module.functions.items(), key=lambda kv: kv[0].name_hint)
            if isinstance(func, relax.Function)]
