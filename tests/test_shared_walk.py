"""One walk per function, shared by the read-only analyses, finds what their own walks find.

`memplan check` walks each function once (`function_ops`) and hands the ops to the
census, the access modes, the copy estimate and the device uses; each still walks
on its own when called without them. Both ways must give the same records, on
every MLIR file of the tests and examples (nested modules, executables, initializers,
`gpu.func`s, LLVM functions, split chunks).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memplan.analysis.access import access_modes, written_constants
from memplan.analysis.census import Allocation, take_census
from memplan.analysis.copies import estimate_copies
from memplan.analysis.devices import device_uses
from memplan.check.budgets import pack_allocations
from memplan.errors import InputError
from memplan.ir import load_mlir
from memplan.ir.ops import ALLOCATION_OPS, CONSTANT_OPS, FUNCTION_OPS, GLOBAL_OPS
from memplan.ir.tensor_ops import destination_operands, is_linalg_structured
from memplan.ir.walk import function_ops, functions, ops_named, walk
from memplan.pack import pack

TESTS = Path(__file__).parent
FILES = sorted([p for p in (TESTS / "data").rglob("*.mlir") if "peers" not in p.parts]
               + list((TESTS / "passes").glob("*.mlir"))
               + list((TESTS.parent / "examples").glob("*.mlir")))


def _chunks(path: Path) -> list:
    try:
        return load_mlir(path)
    except InputError:  # files that test bad input
        pytest.skip(f"{path.name} is refused as input")


def _where(ops) -> list[str]:
    return [f"{op.name} {op.location}" for op in ops]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_shared_walk_gives_what_each_walk_gives(path: Path) -> None:
    for chunk in _chunks(path):
        funcs = function_ops(chunk.module)
        assert [f.func for f in funcs] == functions(chunk.module)
        for f in funcs:
            assert _where(f.ops) == _where(walk(f.func))
            assert f.names == [op.name for op in f.ops]
            # `named` reads a per-function index of names: fewer kinds than names, more
            # kinds than names, one kind, none, and kinds the function does not hold.
            distinct = sorted(set(f.names))
            for kinds in ({distinct[0]} if distinct else set(), set(distinct[::2]),
                          set(distinct) | set(ALLOCATION_OPS), {"no.such_op"}, set()):
                assert f.named(kinds) == [op for op, name in zip(f.ops, f.names, strict=True)
                                          if name in kinds]
        everything = walk(chunk.module.operation)
        for kinds in (ALLOCATION_OPS, CONSTANT_OPS | FUNCTION_OPS | GLOBAL_OPS):
            assert _where(ops_named(chunk.module, kinds, funcs)) == \
                _where(op for op in everything if op.name in kinds)
        assert take_census(chunk, (), funcs) == take_census(chunk)
        assert access_modes(chunk, funcs) == access_modes(chunk)
        assert written_constants(chunk, funcs) == written_constants(chunk)
        assert estimate_copies(chunk.module, chunk.path, None, funcs) == \
            estimate_copies(chunk.module, chunk.path)
        assert list(device_uses(chunk.module, chunk.path, funcs).values()) == \
            list(device_uses(chunk.module, chunk.path).values())


def test_the_comparison_is_not_vacuous() -> None:
    """The files above hold allocations, constants and copies for both ways to find."""
    census, accesses, copies = 0, 0, 0
    for path in FILES:
        try:
            chunks = load_mlir(path)
        except InputError:
            continue
        for chunk in chunks:
            census += len(take_census(chunk))
            accesses += len(access_modes(chunk))
            copies += sum(len(e.items) for e in estimate_copies(chunk.module, chunk.path))
    assert census > 100 and accesses > 300 and copies > 100


def _allocation(size: int, lifetime: tuple[int, int], alignment: int | None = None
                ) -> Allocation:
    return Allocation("memref.alloca", "f", None, "i8", (size,), 1, size, size, None, None, 0,
                      lifetime, alignment)


@pytest.mark.parametrize("allocations", [
    [], [_allocation(100, (0, 3))], [_allocation(0, (2, 2))], [_allocation(24, (1, 5), 16)],
])
@pytest.mark.parametrize("capacity", [None, 10, 1000])
def test_one_buffer_packs_as_the_packer_would(allocations, capacity) -> None:
    ours = pack_allocations(allocations, capacity, alignment=8)
    packer = pack(ours.problem)
    assert ours.solution.offsets == packer.solution.offsets
    assert (ours.peak, ours.lower_bound, ours.fits) == \
        (packer.peak, packer.lower_bound, packer.fits)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_linalg_destinations_from_operand_segments(path: Path) -> None:
    """`destination_operands` reads a linalg op's ins/outs from its operand segments: the
    operands its OpView's `outputs` name."""
    for chunk in _chunks(path):
        for op in walk(chunk.module.operation):
            if is_linalg_structured(op):
                view = op.opview
                first = len(view.inputs)
                assert destination_operands(op) == list(range(first,
                                                              first + len(view.outputs)))
