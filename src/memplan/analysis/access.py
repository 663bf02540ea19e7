"""Access modes: which function arguments, globals and constants a program reads or writes.

Tensors are values, so "written" means what bufferization will do: a value is
written when it (or a view of it: `extract_slice`, `cast`, reshapes) is used as
a destination -- the `outs` of a linalg op, the dest of `tensor.insert_slice`,
`tensor.insert`, `tensor.scatter` -- since the op then updates that buffer in
place. A global is written by `util.global.store` / `ml_program.global_store`.

A destination whose old contents the op never reads (a linalg payload that
ignores its out argument) counts as written, not read.

Diagnostics: a constant (`arith.constant`, `util.unfoldable_constant`, or an
immutable global) that is written is a warning -- IREE then copies it into a
read-write buffer each call, or for small non-splat constants fails to compile
(seed 001). `memplan opt` removes these (transforms/constant_dest.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from iree.compiler import ir

from ..diagnostic import Diagnostic
from ..ir import MlirChunk, SourceLoc, ops, source_loc
from ..ir import tensor_ops as t
from ..ir.types import is_ranked_tensor
from ..ir.walk import FunctionOps, function_ops, ssa_name, symbol_name
from .notes import diagnostic_at


@dataclass(frozen=True)
class Access:
    """How one argument, global or constant is used."""

    kind: str  # "argument" | "global" | "constant"
    name: str  # "%arg0", "@k_cache", "%cst"
    function: str  # enclosing function; "" for globals (module-wide)
    type: str
    reads: bool
    writes: bool
    location: SourceLoc | None

    @property
    def mode(self) -> str:
        if self.reads and self.writes:
            return "read-write"
        return "write" if self.writes else "read" if self.reads else "unused"


@dataclass
class _Uses:
    reads: bool = False
    writers: list[ir.Operation] = field(default_factory=list)


def value_uses(value: ir.Value) -> _Uses:
    """Whether `value` is read, and which ops write it (directly or through a view)."""
    found = _Uses()
    _collect(value, found)
    return found


def _collect(value: ir.Value, found: _Uses) -> None:
    for use in value.uses:
        owner = use.owner.operation
        if owner.name in ops.VIEW_OPS and use.operand_number == 0:
            _collect(owner.results[0], found)
        elif t.is_destination(use):
            found.writers.append(owner)
            found.reads |= t.reads_destination(owner, use.operand_number)
        else:
            found.reads = True


def access_modes(chunk: MlirChunk, funcs: Sequence[FunctionOps] | None = None) -> list[Access]:
    """Arguments and constants per function, then globals, in file order (`funcs`: the
    chunk's `function_ops`, when the caller has them)."""
    funcs = function_ops(chunk.module) if funcs is None else funcs
    accesses: list[Access] = []
    for func in funcs:
        accesses += _function_accesses(func, chunk.path)
    accesses += _global_accesses(chunk, funcs)
    return accesses


def _function_accesses(func: FunctionOps, path: str) -> list[Access]:
    fn = func.func
    name = symbol_name(fn)
    found: list[Access] = []
    arguments = fn.regions[0].blocks[0].arguments
    where = source_loc(fn, path) if len(arguments) else None
    for index, arg in enumerate(arguments):
        uses = value_uses(arg)
        found.append(Access("argument", f"%arg{index}", name, str(arg.type), uses.reads,
                            bool(uses.writers), where))
    for op in func.named(ops.CONSTANT_OPS):
        if is_ranked_tensor(op.results[0]):
            uses = value_uses(op.results[0])
            found.append(Access("constant", ssa_name(op.results[0]), name,
                                str(op.results[0].type), uses.reads, bool(uses.writers),
                                source_loc(op, path)))
    return found


def _global_accesses(chunk: MlirChunk, funcs: Sequence[FunctionOps]) -> list[Access]:
    loads: dict[str, bool] = {}
    stores: dict[str, bool] = {}
    for func in funcs:
        for op in func.named(ops.GLOBAL_LOAD_OPS | ops.GLOBAL_STORE_OPS):
            if op.name in ops.GLOBAL_LOAD_OPS:
                loads[t.global_symbol(op)] = True
            else:
                stores[t.global_symbol(op)] = True
    found = []
    for op in chunk.module.body.operations:
        if op.operation.name in ops.GLOBAL_OPS:
            sym = symbol_name(op)
            found.append(Access("global", f"@{sym}", "", str(_global_type(op)),
                                loads.get(sym, False), stores.get(sym, False),
                                source_loc(op, chunk.path)))
    return found


def _global_type(op: ir.OpView) -> ir.Type:
    attrs = op.operation.attributes
    return ir.TypeAttr(attrs["type"]).value


def written_constants(chunk: MlirChunk, funcs: Sequence[FunctionOps] | None = None
                      ) -> list[Diagnostic]:
    """A warning per op that writes a constant (or an immutable global's value)."""
    notes: list[Diagnostic] = []
    immutable = t.immutable_globals(chunk.module)
    for func in function_ops(chunk.module) if funcs is None else funcs:
        # The ops `is_constant` may say yes to, picked by name first.
        for op in func.named(ops.CONSTANT_OPS | ops.GLOBAL_LOAD_OPS):
            if not is_constant(op, immutable) or not is_ranked_tensor(op.results[0]):
                continue
            writers = value_uses(op.results[0]).writers
            if not writers:
                continue
            what, consequence = _constant_kind(op), _consequence(op)
            for writer in writers:
                notes.append(diagnostic_at(
                    "warning", writer, chunk.path, f"{writer.name} writes into "
                    f"{what} ({op.results[0].type}): {consequence}", "constant-written"))
    return notes


def _consequence(op: ir.Operation) -> str:
    attr = op.attributes["value"] if "value" in op.attributes else None
    if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
        return "`memplan opt` makes it tensor.empty + linalg.fill"
    return ("IREE copies it each call or fails to compile; `memplan opt` makes it a "
            "read-only input")


def is_constant(op: ir.Operation, immutable: set[str]) -> bool:
    """A constant, or the value of a global nobody stores to."""
    name = op.name
    if name in ops.CONSTANT_OPS or name == "ml_program.global_load_const":
        return True
    return name in ops.GLOBAL_LOAD_OPS and t.global_symbol(op) in immutable


def _constant_kind(op: ir.Operation) -> str:
    name = op.name
    if name in ops.CONSTANT_OPS:
        kind = "constant" if name == "arith.constant" else "unfoldable constant"
        return f"{kind} {ssa_name(op.results[0])}"
    return f"immutable global @{t.global_symbol(op)}"
