"""The previous admission of `memplan.place`, kept outside the package to compare the
incremental one against: `place(requests, target, admission=admit_group_reference)`.

Used by tests/test_placement.py and `benchmarks/placement.py --old` (which puts this
folder on `sys.path`). Slow: one packer run per buffer past the prefix.
"""

from __future__ import annotations

from collections.abc import Sequence

from memplan.buffers import BufferRequest
from memplan.place.admission import (
    Packed,
    align_up,
    by_function,
    lower_bound_by_function,
    plan_function,
)
from memplan.place.spaces import Space


def admit_group_reference(space: Space, requests: Sequence[BufferRequest], members: list[int]
                          ) -> tuple[list[int], Packed, dict[int, tuple[int, bool]]]:
    """The previous admission: a full re-pack per buffer past the prefix.

    Smallest first: the longest prefix that packs within the capacity, found by binary
    search, then each larger buffer that still fits where lifetimes leave room.

    Returns the admitted buffers, their packing, and for each refused buffer the bytes its
    admission would have needed (and whether that is only a lower bound).
    """
    order = sorted(members, key=lambda i: (requests[i].size or 0, requests[i].lifetime, i))
    everything = _pack(space, requests, order)
    if space.capacity is None or everything.peak <= space.capacity:
        return order, everything, {}  # the common case: one packing, no search
    capacity = space.capacity
    # Invariant: order[:fits] packs within the capacity, order[:over] does not.
    fits, over, packed = 0, len(order), _pack(space, requests, [])
    while over - fits > 1:
        middle = (fits + over) // 2
        trial = _pack(space, requests, order[:middle])
        if trial.peak <= capacity:
            fits, packed = middle, trial
        else:
            over = middle
    kept = order[:fits]
    refused: dict[int, tuple[int, bool]] = {}
    for i in order[fits:]:
        # Bytes live at once are a floor no packing beats: skip the packer when they overflow.
        floor = lower_bound_by_function(space, requests, kept + [i])
        if floor > capacity:
            refused[i] = (floor, True)
            continue
        trial = _pack(space, requests, kept + [i])
        if trial.peak <= capacity:
            kept.append(i)
            packed = trial
        else:
            refused[i] = (trial.peak, False)
    return kept, packed, refused


def _pack(space: Space, requests: Sequence[BufferRequest], members: list[int]) -> Packed:
    """Offsets for `members`: each function packed with lifetimes, functions side by side.

    Within a function, lifetimes (op order) say who may share bytes. Across
    functions we have no call graph: a caller and its callee are live together,
    so each function gets its own region, laid out one after the other.
    """
    offsets: dict[int, int] = {}
    base = lower = 0
    for function_members in by_function(requests, members).values():
        result = plan_function(space, requests, function_members)
        base = align_up(base, space.alignment)
        for i, offset in zip(function_members, result.solution.offsets, strict=True):
            offsets[i] = base + offset
        base += result.peak
        lower += result.lower_bound
    return Packed(offsets, base, lower)
