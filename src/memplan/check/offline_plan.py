"""An offline plan read back from a model, checked on its own: what the runtime will do.

Independent of whatever wrote the plan: it takes the tensors and lifetimes the front
end reads from the file and the offsets found in its metadata, and says what is wrong.
"""

from __future__ import annotations

from ..buffers import BufferRequest, Key, share_groups
from ..pack import Buffer, Problem, Solution, violations

ONLINE = -1


def offline_plan_problems(tensors: list[BufferRequest], offsets: dict[Key, int],
                          alignment: int, limit: int = 10) -> list[str]:
    """Reasons the plan is unsound ([] when sound): a tensor off its alignment, or two
    tensors live at the same time whose bytes overlap. Tensors an in-place op lets share
    bytes may overlap only by sitting at the same offset; a tensor at -1 is the
    runtime's to plan around the others and is not checked here."""
    buffers: list[Buffer] = []
    placed: list[int] = []

    def add(members: list[BufferRequest], offset: int) -> None:
        buffers.append(Buffer(members[0].name, min(t.lifetime[0] for t in members),
                              max(t.lifetime[1] for t in members),
                              max(t.packed_size for t in members), alignment))
        placed.append(offset)

    for group in share_groups(tensors):
        mine = [t for t in group if offsets.get(t.key, ONLINE) != ONLINE]
        if mine and len({offsets[t.key] for t in mine}) == 1:
            add(mine, offsets[mine[0].key])
        else:
            for t in mine:
                add([t], offsets[t.key])
    return violations(Problem(buffers), Solution(tuple(placed)), check_capacity=False,
                      limit=limit)
