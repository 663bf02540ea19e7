"""Stream level: the transients and copies a stream program holds, read from the IR."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memplan.analysis.stream import StreamLifetime, is_stream_level, stream_listing
from memplan.ir import load_mlir
from memplan.ir.load import split_chunks

PEERS = Path(__file__).parent / "data" / "peers" / "iree"
STREAM_FILES = ["emplace_allocations.mlir", "elide_async_copies.mlir"]
_ALLOCA = re.compile(r"=\s*stream\.(?:async|resource)\.alloca\b")
_COPY = re.compile(r"\bstream\.(?:async\.(?:clone|copy|update|slice)|cmd\.copy)\b")


def _code_lines(text: str) -> list[str]:
    return [line.split("//", 1)[0] for line in text.splitlines()]


@pytest.mark.parametrize("name", STREAM_FILES)
def test_every_split_lists_the_allocas_and_copies_its_text_holds(name: str) -> None:
    path = PEERS / name
    texts = [text for _, text in split_chunks(path.read_text())]
    chunks = load_mlir(path)
    assert len(chunks) == len(texts) > 5
    totals = [0, 0]
    for chunk, text in zip(chunks, texts, strict=True):
        lines = _code_lines(text)
        allocas = sum(len(_ALLOCA.findall(line)) for line in lines)
        copies = sum(len(_COPY.findall(line)) for line in lines)
        listing = stream_listing(chunk)
        assert sum(len(f.allocations) for f in listing) == allocas, (name, chunk.index)
        assert sum(len(f.copies) for f in listing) == copies, (name, chunk.index)
        totals[0] += allocas
        totals[1] += copies
    assert all(totals), totals  # the files do hold both kinds


def test_split_with_constant_sizes_and_a_tied_chain() -> None:
    (chunk,) = [c for c in load_mlir(PEERS / "emplace_allocations.mlir") if c.index == 2]
    (function,) = stream_listing(chunk)
    assert function.function == "emplaceDispatchSequence"
    (alloca,) = function.allocations
    assert alloca.lifetime_kind is StreamLifetime.UNRESOLVED
    assert alloca.bytes is None  # sized by an argument
    # The target is written by four updates in a chain; the last one's result is returned.
    assert [c.op for c in function.copies] == ["stream.async.update"] * 4
    # Sizes by the source's own names, though `// CHECK-SAME:` lines sit inside the signature.
    assert alloca.size_value == "%target_size"
    assert {c.size_value for c in function.copies} == {"%update_size"}
    assert alloca.live[1] - alloca.live[0] == 6  # the alloca, four updates, util.return


def test_compiled_stream_output_sizes_transients_and_copies(data: Path) -> None:
    """`iree-compile --compile-to=stream` of a concat followed by an add (llvm-cpu)."""
    (chunk,) = load_mlir(data / "concat.stream.mlir")
    assert is_stream_level(chunk)
    by_name = {f.function: f for f in stream_listing(chunk)}
    cat = by_name["cat"]
    kinds = sorted((a.lifetime_kind.value, a.bytes) for a in cat.allocations)
    assert kinds == [("external", 256), ("transient", 256)]
    assert cat.transient_bytes == 256
    assert [(c.op, c.bytes) for c in cat.copies] == [("stream.cmd.copy", 128)] * 2
    assert cat.copied_bytes == 256
    (transient,) = [a for a in cat.allocations if a.lifetime_kind is StreamLifetime.TRANSIENT]
    external = next(a for a in cat.allocations if a is not transient)
    # The transient is deallocated after the execute; the result lives to the export.
    assert transient.live[0] > external.live[0] and transient.live[1] < external.live[1]


def test_tensor_level_is_not_stream_level(data: Path) -> None:
    (chunk,) = load_mlir(data / "append_two_pieces_dim1.mlir")
    assert not is_stream_level(chunk)
