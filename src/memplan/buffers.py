"""The one record of "a buffer to plan", below placement and packing.

Every front end (the MLIR census, TFLite, ONNX, ExecuTorch, TVM Relax, IREE's transient
arena) turns what it reads into `BufferRequest`s, in one place each; `place/` and the
model driver see nothing else. Sizes are bytes, lifetimes half-open `[start, end)` in
the front end's own step numbering.

A buffer released in parts: a buffer whose byte ranges die at different steps (a stage
input read patch by patch: a row band is dead once the last patch slicing it has run)
carries `parts`, each a byte range of it and the step its bytes die. The driver plans
such a buffer (alone in its share group, or with sharers inside its bytes: a part is then
held from the first step of any member over it, such as the input an in-place output is
written over, to the last) as one rectangle per part, the rectangles kept
at their relative offsets (a rigid group, `pack.rigid`: placed by first fit over time x
address among the other buffers, then pinned), so later buffers reuse the bands freed;
the lower bound and the offline-plan check count the rectangles (`pieces`). The runtime
sees one tensor at one offset: the parts only say which of its bytes nobody reads again.
`parts_from_reads` derives them from the byte ranges each step reads.

A staggered share group: an output written over its dying input at a lower address
(`share_offset` < 0; TFLM's windowed kernels, `runtimes/tflm/window.py`) holds the input's
bytes until that operator and its own from then on. Packed as one block over the group's
whole lifetime, the input's bytes would stay reserved after it died; `pieces` gives one
rectangle per stretch of steps instead, placed as a rigid group like a buffer's parts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

Key = int | str


@dataclass(frozen=True)
class Part:
    """Bytes `[offset, offset + size)` of a buffer, dead from step `end` on."""

    offset: int
    size: int
    end: int  # exclusive, as `BufferRequest.end`


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
    # where inside `shares_with`'s block it sits: 0 for an in-place op; a CONCATENATION's
    # input at the bytes of the output it becomes (a zero-copy join)
    share_offset: int = 0
    pinned: str | None = None  # a memory space chosen before us (a pool name, "workgroup")
    devices: tuple[str, ...] = ()  # devices that read or write it (empty: the default one)
    scope: str = ""  # buffers of different scopes never share bytes (MLIR: the function)
    in_loop: bool = False  # made once per iteration: no one static slot can hold it
    unbounded: str | None = None  # why `size` is None
    origin: str = ""  # where it comes from, for messages (a source location, an op)
    notes: tuple[str, ...] = ()  # how the front end decided something, when not obvious
    # released in parts (see the module's docstring): covering [0, size) in order, the
    # last ending at `end`; empty: every byte lives until `end`
    parts: tuple[Part, ...] = ()

    @property
    def lifetime(self) -> tuple[int, int]:
        """As packing sees it: a buffer never used still occupies one step."""
        return self.start, max(self.end, self.start + 1)

    @property
    def packed_size(self) -> int:
        return self.size or 0


@dataclass(frozen=True)
class Piece:
    """One rectangle of a share group as packing sees it: `offset` bytes above the group's
    block start, `size` bytes, live over `[start, end)`."""

    offset: int
    size: int
    start: int
    end: int


def released_in_parts(group: Sequence[BufferRequest]) -> bool:
    """The group is a buffer released in parts, with any sharers lying inside its bytes
    (a slice of it that is a view of its bytes): its parts are planned. A group of two
    such buffers, or one placed partly outside it, is planned whole."""
    owners = [b for b in group if len(b.parts) > 1]
    if len(owners) != 1:
        return False
    if len(group) == 1:
        return True
    try:
        at = group_offsets(group)
    except ValueError:
        return False
    root = owners[0]
    return at[root.key] == 0 and all(at[b.key] + b.packed_size <= root.packed_size
                                     for b in group)


def staggered(group: Sequence[BufferRequest]) -> bool:
    """The group has a member placed off the start of the buffer it shares and made after
    it (an output written over its dying input below or above its address, as a windowed
    operator may; a join's inputs, inside their output, are made before it): its members'
    bytes are not one block for the group's whole lifetime."""
    start = {b.key: b.start for b in group}
    return len(group) > 1 and any(
        b.shares_with is not None and (b.share_offset < 0 or (
            b.share_offset > 0 and b.start > start.get(b.shares_with, b.start)))
        for b in group)


def pieces(group: Sequence[BufferRequest]) -> list[Piece]:
    """The rectangles a share group packs as, each at a fixed offset from the group's
    block start, pairwise apart in time: one per part of a buffer released in parts (a
    part a sharer inside it holds earlier or longer lives as long); for a `staggered`
    group, one per stretch of steps over which the same members are live, spanning those
    members' bytes (the lowest start to the highest end), so each member holds its place
    only while it lives; else the group's one block (`merged`)."""
    if staggered(group):
        return _staggered_pieces(group)
    if released_in_parts(group):
        root = next(b for b in group if len(b.parts) > 1)
        at = group_offsets(group)
        found = []
        for p in root.parts:
            over = [b for b in group if b is not root and b.packed_size
                    and at[b.key] < p.offset + p.size and p.offset < at[b.key] + b.packed_size]
            # A sharer made before the root (the input an in-place root is written over)
            # holds these bytes from its own first step.
            start = min([root.start, *(b.start for b in over)])
            end = max([p.end, *(b.end for b in over)])
            found.append(Piece(p.offset, p.size, start, max(end, start + 1)))
        return found
    whole = merged(group)
    return [Piece(0, whole.packed_size, *whole.lifetime)]


def _staggered_pieces(group: Sequence[BufferRequest]) -> list[Piece]:
    at = group_offsets(group)
    spans = [(*b.lifetime, at[b.key], at[b.key] + b.packed_size) for b in group
             if b.packed_size]
    steps = sorted({t for s, e, _, _ in spans for t in (s, e)})
    found: list[Piece] = []
    for t0, t1 in zip(steps, steps[1:], strict=False):
        live = [(lo, hi) for s, e, lo, hi in spans if s <= t0 < e]
        if not live:
            continue
        lo, hi = min(lo for lo, _ in live), max(hi for _, hi in live)
        last = found[-1] if found else None
        if last and last.end == t0 and (last.offset, last.size) == (lo, hi - lo):
            found[-1] = Piece(lo, hi - lo, last.start, t1)
        else:
            found.append(Piece(lo, hi - lo, t0, t1))
    return found


def parts_from_reads(size: int, start: int, reads: Iterable[tuple[int, int, int]],
                     grain: int = 1) -> tuple[Part, ...]:
    """The parts of a buffer of `size` bytes made at `start`, from every read of it as
    `(step, lo, hi)`: bytes [lo, hi) read at `step`. Each byte dies after the last step
    that reads it (a byte nobody reads, after `start`); parts start at multiples of
    `grain`, so a grain dies with its latest byte (give a row of an image: freed bands
    are what later buffers can use, scattered bytes are holes no tensor fits in). Empty
    when every byte dies at the same step (nothing to release early)."""
    alignment = max(1, grain)
    chunks = -(-size // alignment)
    death = [start + 1] * chunks
    for step, lo, hi in reads:
        for c in range(max(0, lo) // alignment, min(chunks, -(-hi // alignment))):
            death[c] = max(death[c], step + 1)
    found: list[Part] = []
    for c, end in enumerate(death):
        if found and found[-1].end == end:
            last = found[-1]
            found[-1] = Part(last.offset, min(size, (c + 1) * alignment) - last.offset, end)
        else:
            found.append(Part(c * alignment, min(size, (c + 1) * alignment) - c * alignment,
                              end))
    return tuple(found) if len(found) > 1 else ()


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


def group_offsets(group: Sequence[BufferRequest]) -> dict[Key, int]:
    """Where each member of a share group sits inside the group's block (the lowest at 0),
    from the `share_offset`s along `shares_with`. A group whose members are placed two
    different ways (a cycle that does not add up) raises ValueError: no block holds it."""
    keys = {b.key for b in group}
    links: dict[Key, list[tuple[Key, int]]] = {b.key: [] for b in group}
    for b in group:
        if b.shares_with in keys and b.shares_with != b.key:
            links[b.key].append((b.shares_with, -b.share_offset))
            links[b.shares_with].append((b.key, b.share_offset))
    where: dict[Key, int] = {}
    for b in group:
        if b.key in where:
            continue
        where[b.key] = 0
        todo = [b.key]
        while todo:
            k = todo.pop()
            for other, delta in links[k]:
                if other not in where:
                    where[other] = where[k] + delta
                    todo.append(other)
                elif where[other] != where[k] + delta:
                    raise ValueError(f"buffer {other!r} is placed at two offsets in its "
                                     "share group")
    low = min(where.values(), default=0)
    return {k: v - low for k, v in where.items()}


def merged(group: Iterable[BufferRequest]) -> BufferRequest:
    """One buffer standing for a group that shares bytes: its block (every member at its
    `group_offsets` place; for an in-place chain the largest size), the union of the
    lifetimes (an in-place chain and a join's inputs then output are contiguous in time),
    the first member's name. A member off its own alignment inside the block is the front
    end's to avoid (`offline_plan_problems` reports it)."""
    group = list(group)
    first = group[0]
    sizes = [b.size for b in group]
    at = group_offsets(group)
    return BufferRequest(
        first.key, first.name,
        None if None in sizes else max(at[b.key] + b.size for b in group),
        min(b.start for b in group), max(b.end for b in group),
        max(b.alignment for b in group), None, 0, first.pinned, first.devices, first.scope,
        any(b.in_loop for b in group), first.unbounded, first.origin, first.notes)


# --- what a front end hands the driver: buffers planned together ---------------------

@dataclass(frozen=True)
class RuntimePlan:
    """What the runtime's own planner does with the same buffers."""

    planner: str  # e.g. "TFLM greedy", "executorch greedy"
    offsets: Mapping[Key, int]  # per buffer key, in the space `spaces` says (else the arena)
    sizes: Mapping[str, int]  # bytes it asks for, per space (arena) name
    spaces: Mapping[Key, str] = field(default_factory=dict)  # when it splits across spaces
    lower_bound: int | None = None  # of the runtime's own view, when it differs from ours


@dataclass(frozen=True)
class Arena:
    """Buffers the runtime plans together: one arena, or (with a target whose pools the
    runtime can address, `FrontEnd.splits`) one group the driver places across pools."""

    name: str
    buffers: tuple[BufferRequest, ...]
    alignment: int
    runtime: RuntimePlan | None = None
    runtime_error: str | None = None  # why the runtime's own planner refused, if it did
    reserved: Mapping[str, int] = field(default_factory=dict)  # bytes owned below, per space
    padding: int = 0  # bytes the runtime adds on top of a non-empty arena
