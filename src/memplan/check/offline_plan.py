"""An offline plan read back from a model, checked on its own: what the runtime will do.

Independent of whatever wrote the plan: it takes the tensors and lifetimes the front
end reads from the file and the offsets found in its metadata, and says what is wrong.
"""

from __future__ import annotations

from ..buffers import (
    BufferRequest,
    Key,
    group_offsets,
    pieces,
    released_in_parts,
    share_groups,
    staggered,
)
from ..pack import Buffer, Problem, Solution, violations

ONLINE = -1


def offline_plan_problems(tensors: list[BufferRequest], offsets: dict[Key, int],
                          alignment: int, limit: int = 10) -> list[str]:
    """Reasons the plan is unsound ([] when sound): a tensor off its alignment, or two
    tensors live at the same time whose bytes overlap. Tensors that share bytes (an
    in-place op, a zero-copy join) may overlap only where their group puts them: each at
    its `group_offsets` place in one block, which then counts as one buffer live over
    their lifetimes together; a tensor released in parts (`BufferRequest.parts`) counts as
    its parts, each live until its own end, and a staggered group (an output below the
    input it is written over) as its pieces (`buffers.pieces`); a tensor at -1 is the
    runtime's to plan around the others and is not checked here."""
    buffers: list[Buffer] = []
    placed: list[int] = []
    found: list[str] = []

    def add(members: list[BufferRequest], offset: int, extent: int) -> None:
        buffers.append(Buffer(members[0].name, min(t.lifetime[0] for t in members),
                              max(t.lifetime[1] for t in members), extent, alignment))
        placed.append(offset)

    for group in share_groups(tensors):
        if (released_in_parts(group) or staggered(group)) and all(
                offsets.get(t.key, ONLINE) != ONLINE for t in group):
            at = group_offsets(group)
            base = {offsets[t.key] - at[t.key] for t in group}
            if len(base) == 1:  # each sharer where its group puts it
                start = base.pop()
                t = next(b for b in group if at[b.key] == 0)
                for p in pieces(group):
                    buffers.append(Buffer(f"{t.name} [{p.offset}:{p.offset + p.size}]",
                                          p.start, p.end, p.size))
                    placed.append(start + p.offset)
                if start % alignment:  # its parts are checked unaligned, inside it
                    found.append(f"{t.name} at offset {start} is off its alignment "
                                 f"{alignment}")
                continue
        mine = [t for t in group if offsets.get(t.key, ONLINE) != ONLINE]
        try:
            at = group_offsets(mine)
        except ValueError as err:
            found.append(str(err))
            at = None
        if mine and at is not None and len({offsets[t.key] - at[t.key] for t in mine}) == 1:
            # A block starts where its lowest member is: the bytes below it are not its.
            add(mine, offsets[mine[0].key] - at[mine[0].key],
                max(at[t.key] + t.packed_size for t in mine))
            found += [f"{t.name} at offset {offsets[t.key]} is off its alignment "
                      f"{t.alignment}" for t in mine
                      if at[t.key] and offsets[t.key] % t.alignment]
        else:
            for t in mine:
                add([t], offsets[t.key], t.packed_size)
    return (found + violations(Problem(buffers), Solution(tuple(placed)),
                               check_capacity=False, limit=limit))[:limit]
