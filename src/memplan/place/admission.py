"""The admission of buffers into one space: smallest first while their packing,
with lifetimes, stays within the space's capacity (see `admit_group_incremental`);
each function packed in a region of its own, regions side by side."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..buffers import BufferRequest
from ..pack import Buffer, InvalidPlan, PackResult, Problem, Solution, lower_bound, pack, validate
from ..pack.greedy.heuristics import choose_offset
from .model import SpaceUse
from .spaces import Space, full


@dataclass(frozen=True)
class Packed:
    """Offsets of one packing group in a space, with its peak and live-bytes lower bound."""

    offsets: dict[int, int]  # request index -> byte offset
    peak: int
    lower_bound: int


AdmitGroup = Callable[[Space, Sequence[BufferRequest], list[int]],
                      tuple[list[int], Packed, dict[int, tuple[int, bool]]]]
"""An admission of one packing group: (space, requests, the group's request indices) ->
(the admitted, their packing, and per refused buffer the bytes it would have needed and
whether that is only a lower bound)."""


def admit(space: Space, requests: Sequence[BufferRequest], candidates: list[int],
          admit_group: AdmitGroup
          ) -> tuple[dict[int, int | None], dict[int, str], list[SpaceUse]]:
    """Admit candidates smallest first while the packed peak stays within the capacity.

    Returns the admitted buffers with their offsets, the refused ones with why,
    and the space's use (one entry per function for the stack).
    """
    groups: dict[str | None, list[int]] = {}
    for i in candidates:
        groups.setdefault(requests[i].scope if space.per_function else None, []).append(i)

    admitted: dict[int, int | None] = {}
    refused_why: dict[int, str] = {}
    uses: list[SpaceUse] = []
    for function, members in groups.items():
        kept, packed, refused = admit_group(space, requests, members)
        for i, (need, at_least) in refused.items():
            refused_why[i] = full(space, function, need, at_least)
        for i in kept:
            admitted[i] = packed.offsets[i] if space.static_offsets else None
        uses.append(SpaceUse(space.name, function, packed.peak, packed.lower_bound,
                             space.capacity, len(kept)))
    return admitted, refused_why, uses


def admit_group_incremental(space: Space, requests: Sequence[BufferRequest], members: list[int]
                             ) -> tuple[list[int], Packed, dict[int, tuple[int, bool]]]:
    """Smallest first, with a handful of packer runs instead of one per buffer.

    1. Everything at once, as before, but the packer runs only when the live-bytes lower
       bound of everything fits (otherwise no packing can).
    2. The longest smallest-first prefix whose lower bound fits (bisection over a sweep,
       no packing: lower bounds only grow with the prefix) is packed once by `plan`;
       buffers that packing put above the capacity are taken out and tried again below.
    3. Every buffer not yet admitted, smallest first: refused without packing when the
       lower bound overflows; else placed into the current packing by best fit among the
       buffers of its function whose lifetimes overlap its own
       (`pack.greedy.heuristics.choose_offset`); only when that would overflow is its function
       re-packed from scratch with it (`plan`), and not again while the packing is the
       one that already failed, or for a buffer at least as tight (lower bound) as the
       last that failed a re-pack since it.

    The packing returned is validated region by region and fits the capacity.
    """
    order = sorted(members, key=lambda i: (requests[i].size or 0, requests[i].lifetime, i))
    capacity = space.capacity
    bound = lower_bound_by_function(space, requests, order)
    everything = None
    if capacity is None or bound <= capacity:
        everything = _Layout.pack(space, requests, order)
        if capacity is None or everything.peak <= capacity:
            return order, everything.packed(space, requests), {}
    assert capacity is not None
    if everything is not None:
        bound_fits, layout = len(order), everything
    else:
        bound_fits, bound_over = 0, len(order)
        while bound_over - bound_fits > 1:
            middle = (bound_fits + bound_over) // 2
            if lower_bound_by_function(space, requests, order[:middle]) <= capacity:
                bound_fits = middle
            else:
                bound_over = middle
        layout = _Layout.pack(space, requests, order[:bound_fits])
    above = set(layout.trim_to(space, requests, capacity))
    rest = [i for i in order[:bound_fits] if i in above] + order[bound_fits:]

    refused: dict[int, tuple[int, bool]] = {}
    failed_version, failed_floor = None, None  # the last re-pack that did not fit
    for i in rest:
        floor = layout.lower_bound_with(space, requests, i)
        if floor > capacity:
            refused[i] = (floor, True)
            continue
        if layout.insert(space, requests, i, capacity):
            continue
        if failed_version == layout.version or (failed_floor is not None
                                                and floor >= failed_floor):
            refused[i] = (layout.peak_if_inserted(space, requests, i), False)
            continue
        trial = layout.repacked_with(space, requests, i)
        if trial.peak <= capacity:
            layout, failed_floor = trial, None
        else:
            failed_version, failed_floor = layout.version, floor
            refused[i] = (trial.peak, False)
    return layout.members(), layout.packed(space, requests), refused


_versions = itertools.count()


@dataclass
class _Region:
    """One function's buffers in a space, with offsets relative to the region's base."""

    members: list[int]
    offsets: list[int]
    size: int  # the region's height: its highest buffer's top
    lower_bound: int  # most bytes of these buffers live at once


class _Layout:
    """A space's packing under construction: one region per function, side by side in
    the order the functions first appear, each base aligned to the space's alignment."""

    def __init__(self, regions: dict[str, _Region], alignment: int) -> None:
        self.regions = regions
        self.alignment = alignment  # each region's base is aligned to the space's alignment
        self.version = next(_versions)  # changes whenever the layout does

    @classmethod
    def pack(cls, space: Space, requests: Sequence[BufferRequest], members: list[int]) -> _Layout:
        return cls({function: _plan_region(space, requests, group)
                    for function, group in by_function(requests, members).items()},
                   space.alignment)

    @property
    def peak(self) -> int:
        return self._peak_with({})

    def _peak_with(self, heights: dict[str, int]) -> int:
        """The layout's top if some regions had the heights in `heights`."""
        base = 0
        for function, region in self.regions.items():
            base = align_up(base, self.alignment) + heights.get(function, region.size)
        for function, height in heights.items():
            if function not in self.regions:  # a new region goes last
                base = align_up(base, self.alignment) + height
        return base

    def members(self) -> list[int]:
        return [i for region in self.regions.values() for i in region.members]

    def lower_bound_with(self, space: Space, requests: Sequence[BufferRequest], i: int) -> int:
        """What `lower_bound_by_function` gives for these members plus request `i`."""
        function = requests[i].scope
        total = sum(r.lower_bound for f, r in self.regions.items() if f != function)
        region = self.regions.get(function)
        if region is None:
            return total + (requests[i].size or 0)
        return total + max(region.lower_bound, _live_with(requests, region.members, i))

    def _best_fit(self, space: Space, requests: Sequence[BufferRequest], i: int) -> tuple[int, int]:
        """Where best fit puts `i` in its function's region, and the region's new height."""
        req = requests[i]
        start, end = req.lifetime
        size = req.size or 0
        region = self.regions.get(req.scope)
        busy = []
        if region is not None:
            for j, offset in zip(region.members, region.offsets, strict=True):
                other_start, other_end = requests[j].lifetime
                if other_start < end and start < other_end:
                    busy.append((offset, offset + (requests[j].size or 0)))
            busy.sort()
        alignment = max(space.alignment, req.alignment)
        offset = choose_offset(busy, size, alignment, best_fit=True)
        return offset, max(region.size if region else 0, offset + size)

    def peak_if_inserted(self, space: Space, requests: Sequence[BufferRequest], i: int) -> int:
        _, height = self._best_fit(space, requests, i)
        return self._peak_with({requests[i].scope: height})

    def insert(self, space: Space, requests: Sequence[BufferRequest], i: int, capacity: int
               ) -> bool:
        """Put `i` into its function's region by best fit if the space still fits; say if so.

        A region that grows pushes the regions after it up: offsets within a region are
        relative to its base, so nothing placed moves relative to its neighbours.
        """
        req = requests[i]
        offset, height = self._best_fit(space, requests, i)
        if self._peak_with({req.scope: height}) > capacity:
            return False
        region = self.regions.get(req.scope)
        if region is None:
            self.regions[req.scope] = _Region([i], [offset], height, req.size or 0)
        else:
            region.lower_bound = max(region.lower_bound,
                                     _live_with(requests, region.members, i))
            region.members.append(i)
            region.offsets.append(offset)
            region.size = height
        self.version = next(_versions)
        return True

    def trim_to(self, space: Space, requests: Sequence[BufferRequest], capacity: int) -> list[int]:
        """Take out every buffer that ends above `capacity` until the layout fits; return
        them. The peak is some buffer's top, so each round takes out at least one."""
        taken: list[int] = []
        while self.peak > capacity:
            base = 0
            for function, region in list(self.regions.items()):
                base = align_up(base, self.alignment)
                tops = [base + offset + (requests[i].size or 0)
                        for i, offset in zip(region.members, region.offsets, strict=True)]
                keep = [k for k, top in enumerate(tops) if top <= capacity]
                taken += [i for i, top in zip(region.members, tops, strict=True)
                          if top > capacity]
                if not keep:
                    del self.regions[function]
                    continue
                if len(keep) < len(region.members):
                    kept = [region.members[k] for k in keep]
                    offsets = [region.offsets[k] for k in keep]
                    height = max(o + (requests[i].size or 0)
                                 for i, o in zip(kept, offsets, strict=True))
                    self.regions[function] = _Region(
                        kept, offsets, height, lower_bound(_problem(space, requests, kept)))
                base += self.regions[function].size
            self.version = next(_versions)
        return taken

    def repacked_with(self, space: Space, requests: Sequence[BufferRequest], i: int) -> _Layout:
        """A new layout: `i`'s function packed from scratch with `i`, the others kept."""
        function = requests[i].scope
        region = self.regions.get(function)
        regions = dict(self.regions)
        regions[function] = _plan_region(space, requests,
                                         (region.members if region else []) + [i])
        return _Layout(regions, self.alignment)

    def packed(self, space: Space, requests: Sequence[BufferRequest]) -> Packed:
        """Absolute offsets; every region validated against its own buffers and height,
        regions disjoint by construction, and the whole within the capacity."""
        offsets: dict[int, int] = {}
        base = lower = 0
        for region in self.regions.values():
            problem = _problem(space, requests, region.members)
            validate(Problem(problem.buffers, region.size), Solution(tuple(region.offsets)))
            base = align_up(base, space.alignment)
            for i, offset in zip(region.members, region.offsets, strict=True):
                offsets[i] = base + offset
            base += region.size
            lower += region.lower_bound
        if space.capacity is not None and base > space.capacity:
            raise InvalidPlan(f"{space.name}: packed {base} B into {space.capacity} B")
        return Packed(offsets, base, lower)


def _plan_region(space: Space, requests: Sequence[BufferRequest], members: list[int]) -> _Region:
    result = plan_function(space, requests, members)
    return _Region(list(members), list(result.solution.offsets), result.peak, result.lower_bound)


def _live_with(requests: Sequence[BufferRequest], members: list[int], i: int) -> int:
    """Most bytes live at once during `i`'s lifetime, `i` included, among `members` + `i`."""
    start, end = requests[i].lifetime
    events = []
    for j in members:
        other_start, other_end = requests[j].lifetime
        if other_start < end and start < other_end:
            size = requests[j].size or 0
            events.append((max(other_start, start), size))
            events.append((other_end, -size))
    events.sort()  # at equal times frees (negative) come first: lifetimes are half-open
    live = peak = 0
    for _, delta in events:
        live += delta
        peak = max(peak, live)
    return peak + (requests[i].size or 0)


def by_function(requests: Sequence[BufferRequest], members: list[int]) -> dict[str, list[int]]:
    """`members` grouped by function, functions in the order they first appear."""
    groups: dict[str, list[int]] = {}
    for i in members:
        groups.setdefault(requests[i].scope, []).append(i)
    return groups


def lower_bound_by_function(space: Space, requests: Sequence[BufferRequest], members: list[int]
                            ) -> int:
    """Most bytes live at once, per function, summed over functions: functions do not share
    bytes in a space (see `place.policy`)."""
    return sum(lower_bound(_problem(space, requests, group))
               for group in by_function(requests, members).values())


def plan_function(space: Space, requests: Sequence[BufferRequest], members: list[int]
                  ) -> PackResult:
    """One function's buffers packed with their lifetimes, by the offset planner."""
    return pack(_problem(space, requests, members))


def _problem(space: Space, requests: Sequence[BufferRequest], members: list[int]) -> Problem:
    buffers = [Buffer(str(i), *requests[i].lifetime, requests[i].packed_size,
                      max(space.alignment, requests[i].alignment)) for i in members]
    return Problem(tuple(buffers), space.capacity)


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment
