"""Does a buffer leave the iteration that made it? Decided by following its memory."""

from __future__ import annotations

from pathlib import Path

from memplan.analysis.buffer_flow import EscapeKind, escape_from
from memplan.ir import load_mlir
from memplan.ir.walk import enclosing_loops, functions, symbol_name, walk


def _escapes(data: Path) -> dict[str, EscapeKind | None]:
    (chunk,) = load_mlir(data / "iter_args.mlir")
    found = {}
    for func in functions(chunk.module):
        (op,) = [op for op in walk(func) if op.name in ("memref.alloca", "memref.alloc")]
        escape = escape_from(op.results[0], enclosing_loops(op))
        found[symbol_name(func)] = escape.kind if escape else None
    return found


def test_iter_args_inside_the_iteration_do_not_escape(data: Path) -> None:
    found = _escapes(data)
    assert found["threaded_inner"] is None
    assert found["threaded_inner_dynamic"] is None
    assert found["through_if"] is None


def test_yielded_by_the_loop_it_is_made_in_escapes(data: Path) -> None:
    found = _escapes(data)
    assert found["to_next_iteration"] is EscapeKind.NEXT_ITERATION
    # Through the inner loop's result to the outer loop's yield.
    assert found["inner_result_yielded_out"] is EscapeKind.NEXT_ITERATION


def test_outside_any_loop_only_returns_and_branches_count(data: Path) -> None:
    chunks = load_mlir(data / "peers" / "iree" / "hoist_statically_bound_allocations.mlir")
    func = functions(chunks[6].module)[0]  # non_entry_bb_allocas_func_return_static
    (op,) = [op for op in walk(func) if op.name == "memref.alloca"]
    escape = escape_from(op.results[0], [])
    assert escape is not None and escape.kind is EscapeKind.RETURNED
    assert "returned" in escape.describe()
