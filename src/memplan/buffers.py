"""The one record of "a buffer to plan", below placement and packing.

Every front end (the MLIR census, TFLite, ONNX, ExecuTorch, TVM Relax, IREE's transient
arena) turns what it reads into `BufferRequest`s, in one place each; `place/` and the
model driver see nothing else. Sizes are bytes, lifetimes half-open `[start, end)` in
the front end's own step numbering.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Key = int | str


@dataclass(frozen=True)
class BufferRequest:
    """One buffer: how large, when live, where it may and may not go."""

    key: Key  # the front end's own name for it (TFLite: the position in the offline plan)
    name: str  # what a person reads in tables and plots
    size: int | None  # bytes the runtime reserves; None: no proven bound (see `unbounded`)
    start: int
    end: int  # exclusive
    alignment: int = 1  # the buffer's own; a space's alignment is applied on top
    shares_with: Key | None = None  # in place: may reuse the bytes of this buffer
    pinned: str | None = None  # a memory space chosen before us (a pool name, "workgroup")
    devices: tuple[str, ...] = ()  # devices that read or write it (empty: the default one)
    scope: str = ""  # buffers of different scopes never share bytes (MLIR: the function)
    in_loop: bool = False  # made once per iteration: no one static slot can hold it
    unbounded: str | None = None  # why `size` is None
    origin: str = ""  # where it comes from, for messages (a source location, an op)
    notes: tuple[str, ...] = ()  # how the front end decided something, when not obvious

    @property
    def lifetime(self) -> tuple[int, int]:
        """As packing sees it: a buffer never used still occupies one step."""
        return self.start, max(self.end, self.start + 1)

    @property
    def packed_size(self) -> int:
        return self.size or 0


def share_groups(buffers: Sequence[BufferRequest]) -> list[list[BufferRequest]]:
    """Buffers that share bytes in place, as groups (a chain of in-place ops is one
    group), each group in the order given, groups in order of their first member."""
    index = {b.key: i for i, b in enumerate(buffers)}
    root = list(range(len(buffers)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, b in enumerate(buffers):
        j = index.get(b.shares_with) if b.shares_with is not None else None
        if j is not None:
            a, c = find(i), find(j)
            if a != c:
                root[max(a, c)] = min(a, c)
    groups: dict[int, list[BufferRequest]] = {}
    for i, b in enumerate(buffers):
        groups.setdefault(find(i), []).append(b)
    return list(groups.values())


def merged(group: Iterable[BufferRequest]) -> BufferRequest:
    """One buffer standing for a group that shares bytes: the largest size, the union of
    the lifetimes (an in-place chain is contiguous in time), the first member's name."""
    group = list(group)
    first = group[0]
    sizes = [b.size for b in group]
    return BufferRequest(
        first.key, first.name, None if None in sizes else max(sizes),
        min(b.start for b in group), max(b.end for b in group),
        max(b.alignment for b in group), None, first.pinned, first.devices, first.scope,
        any(b.in_loop for b in group), first.unbounded, first.origin, first.notes)
