"""Placement policy: which memory space of a target holds each allocation.

Matches: every allocation of a module in the default memory space (an
allocation whose type already names a pool of the target is pinned to that
pool; any other explicit memory space, such as GPU workgroup memory, is left
where the IR put it and reported as such).

Decides, trying spaces in the target's order (stack, pools as the target file
lists them, heap), for each space:
  1. refuse, per buffer, what the space can never hold: a device that uses the
     buffer cannot reach the space, the size has no proven bound, the buffer is
     made inside a loop (a stack or pool slot is one buffer at one offset), it
     is over a per-allocation limit or over the whole capacity;
  2. admit the rest smallest first while the admitted set, packed with
     lifetimes by the offset planner, stays within the capacity: the longest
     prefix whose live bytes fit is packed once; what that packing puts above
     the capacity, and every larger buffer, is then tried in turn by best fit
     into the kept packing, with a full re-pack of its function only when that
     misses (`_admit_group_incremental`); a buffer that would push the peak over
     the capacity is refused ("full").
     The stack is packed per function (one frame each); a pool or the heap per
     module, each function in a region of its own (see `_pack`).

Refuses: a buffer that every space refused has nowhere to go; it is reported
with each space's reason, never silently dropped.

Why smallest first: the stack and fast pools are small; filling them with many
small buffers moves the most accesses there, and a large buffer that did not
fit costs the least to move. Why functions do not share bytes in a pool:
without a call graph we cannot prove two functions are never live together
(a caller and its callee are), so the bound is sound, if not tight.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..analysis.census import Allocation
from ..diagnostic import Diagnostic
from ..pack import InvalidPlan, PackResult, Problem, Solution, lower_bound, plan, validate
from ..pack.heuristics import choose_offset
from ..targets import Target
from .budgets import allocation_buffer

STACK = "stack"
HEAP = "heap"


@dataclass(frozen=True)
class Request:
    """One allocation to place, with the devices that read or write it on this target."""

    allocation: Allocation
    devices: tuple[str, ...]
    notes: tuple[str, ...] = ()  # how the devices were decided, when not obvious

    @property
    def size(self) -> int | None:
        return self.allocation.bytes_or_bound

    @property
    def function(self) -> str:
        return self.allocation.function

    @property
    def lifetime(self) -> tuple[int, int]:
        start, end = self.allocation.lifetime
        return start, max(end, start + 1)  # an unused buffer still occupies one step

    @property
    def pinned_pool(self) -> str | None:
        return space_name(self.allocation.memory_space)


@dataclass(frozen=True)
class Decision:
    """Where one allocation lives, and why; `space` is None when it has nowhere to go."""

    allocation: Allocation
    devices: tuple[str, ...]
    space: str | None
    offset: int | None  # byte offset in the space (the function's frame for the stack)
    reason: str
    refusals: tuple[tuple[str, str], ...] = ()  # (space, why) for every space that said no

    @property
    def placed(self) -> bool:
        return self.space is not None


@dataclass(frozen=True)
class SpaceUse:
    """Peak use of one memory space (one function's frame for the stack)."""

    space: str
    function: str | None  # the frame's function for the stack, None for module-wide spaces
    peak: int
    lower_bound: int  # most bytes simultaneously live: no packing can do better
    capacity: int | None
    buffers: int

    @property
    def label(self) -> str:
        return f"{self.space} @{self.function}" if self.function else self.space


@dataclass(frozen=True)
class Placement:
    target: Target
    decisions: tuple[Decision, ...]
    usage: tuple[SpaceUse, ...] = field(default_factory=tuple)

    @property
    def unplaced(self) -> list[Decision]:
        return [d for d in self.decisions if not d.placed]


def unplaced_diagnostics(placement: Placement) -> list[Diagnostic]:
    """An error per allocation with nowhere to go, with every space's reason."""
    diags = []
    for d in placement.unplaced:
        a = d.allocation
        size = a.bytes_or_bound
        what = f"{a.op_name} of {size} bytes" if size is not None else f"{a.op_name}"
        diags.append(Diagnostic("error", a.location, f"{what} in @{a.function} has {d.reason} "
                                f"(target {placement.target.name})", code="unplaced"))
    return diags


@dataclass(frozen=True)
class _Space:
    """A space as the admission loop sees it: capacity, packing scope, static refusals."""

    name: str
    capacity: int | None
    alignment: int
    per_function: bool  # the stack: one frame per function
    static_offsets: bool  # the heap hands out addresses at run time: no offsets to report
    refuse: Callable[[Request], str | None]


def place(requests: Sequence[Request], target: Target, *,
          admission: str = "incremental") -> Placement:
    """Place every request on `target`; see the module docstring for the rules.

    `admission="reference"` runs the previous admission (a full re-pack per buffer past
    the prefix): slow, kept to compare decisions against in tests and benchmarks.
    """
    if admission not in _ADMISSIONS:
        raise ValueError(f"unknown admission {admission!r}")
    admit_group = _ADMISSIONS[admission]
    decisions: dict[int, Decision] = {}
    pending: list[int] = []
    for i, req in enumerate(requests):
        fixed = _fixed_space(req, target)
        if fixed is not None:
            decisions[i] = fixed
        else:
            pending.append(i)

    refusals: dict[int, list[tuple[str, str]]] = {i: [] for i in pending}
    usage: list[SpaceUse] = []
    for space in _spaces(target):
        candidates = []
        for i in pending:
            why = space.refuse(requests[i])
            if why is None:
                candidates.append(i)
            else:
                refusals[i].append((space.name, why))
        admitted, full, uses = _admit(space, requests, candidates, admit_group)
        usage += uses
        for i, why in full.items():
            refusals[i].append((space.name, why))
        for i, offset in admitted.items():
            decisions[i] = _accepted(requests[i], space, offset, refusals[i], uses)
        pending = [i for i in pending if i not in admitted]

    for i in pending:
        req = requests[i]
        decisions[i] = Decision(req.allocation, req.devices, None, None,
                                _nowhere(refusals[i]), tuple(refusals[i]))
    return Placement(target, tuple(decisions[i] for i in range(len(requests))), tuple(usage))


# --- spaces -------------------------------------------------------------------------

def _spaces(target: Target) -> list[_Space]:
    """The target's spaces in placement order; a missing stack or heap refuses everything,
    so that every buffer's reasons name all three kinds of space."""
    spaces = [_stack_space(target) if target.stack else
              _absent(STACK, "the target has no addressable stack", per_function=True)]
    spaces += [_pool_space(target, pool.name) for pool in target.pools]
    spaces.append(_heap_space(target) if target.heap else
                  _absent(HEAP, "the target has no heap", per_function=False))
    return spaces


def _absent(name: str, why: str, per_function: bool) -> _Space:
    return _Space(name, None, 1, per_function, False, lambda _request: why)


def _stack_space(target: Target) -> _Space:
    stack = target.stack
    assert stack is not None

    def refuse(req: Request) -> str | None:
        if req.pinned_pool is not None:
            return f"the IR asks for memory space '{req.pinned_pool}'"
        if req.size is None:
            return _unbounded(req)
        missing = [d for d in req.devices if d not in stack.addressable_by]
        if missing:
            return f"not addressable by {', '.join(missing)}"
        if req.allocation.loop_depth > 0:
            return _IN_LOOP
        if stack.max_allocation is not None and req.size > stack.max_allocation:
            return f"{req.size} B is over the per-allocation limit of {stack.max_allocation} B"
        if req.size > stack.max_frame:
            return f"{req.size} B is over the frame limit of {stack.max_frame} B"
        return None

    return _Space(STACK, stack.max_frame, stack.alignment, True, True, refuse)


def _pool_space(target: Target, name: str) -> _Space:
    pool = target.pool(name)
    assert pool is not None

    def refuse(req: Request) -> str | None:
        if req.pinned_pool is not None and req.pinned_pool != name:
            return f"the IR asks for memory space '{req.pinned_pool}'"
        if req.size is None:
            return _unbounded(req)
        missing = [d for d in req.devices if d not in pool.reachable_by]
        if missing:
            return f"not reachable by {', '.join(missing)}"
        if req.allocation.loop_depth > 0:
            return _IN_LOOP
        if req.size > pool.capacity:
            return f"{req.size} B is over the capacity of {pool.capacity} B"
        return None

    return _Space(name, pool.capacity, pool.alignment, False, True, refuse)


def _heap_space(target: Target) -> _Space:
    heap = target.heap
    assert heap is not None

    def refuse(req: Request) -> str | None:
        if req.pinned_pool is not None:
            return f"the IR asks for memory space '{req.pinned_pool}'"
        missing = [d for d in req.devices if d not in heap.reachable_by]
        if missing:
            return f"not reachable by {', '.join(missing)}"
        if heap.capacity is not None:
            if req.size is None:
                return f"holds only {heap.capacity} B and the size has no bound"
            if req.size > heap.capacity:
                return f"{req.size} B is over the capacity of {heap.capacity} B"
        return None

    return _Space(HEAP, heap.capacity, heap.alignment, False, False, refuse)


# A stack or pool slot is one buffer at one offset; a loop makes one buffer per iteration
# (and an alloca there takes new stack each time, seed 000). `memplan opt` hoists first.
_IN_LOOP = "inside a loop: one static slot cannot hold a buffer made every iteration"


def _unbounded(req: Request) -> str:
    why = req.allocation.unbounded_reason
    return f"size not bounded ({why})" if why else "size not bounded"


def space_name(memory_space: str | None) -> str | None:
    """A memory space as the census prints it, without the quotes of a string attribute:
    `memref<4xf32, "sram">` is in pool `sram`."""
    if memory_space and len(memory_space) > 1 and memory_space[0] == memory_space[-1] == '"':
        return memory_space[1:-1]
    return memory_space


def _fixed_space(req: Request, target: Target) -> Decision | None:
    """A memory space the IR already chose and that is not ours to change."""
    space = space_name(req.allocation.memory_space)
    if space is None or target.pool(space) is not None:
        return None
    if space == "workgroup":
        why = "GPU workgroup memory: budgeted per kernel by `memplan check`"
    else:
        why = f"memory space '{space}' fixed in the IR; not a space of {target.name}"
    return Decision(req.allocation, req.devices, space, None, why)


# --- admission ----------------------------------------------------------------------

@dataclass(frozen=True)
class _Packed:
    offsets: dict[int, int]  # request index -> byte offset
    peak: int
    lower_bound: int


def _admit(space: _Space, requests: Sequence[Request], candidates: list[int],
           admit_group: _AdmitGroup
           ) -> tuple[dict[int, int | None], dict[int, str], list[SpaceUse]]:
    """Admit candidates smallest first while the packed peak stays within the capacity.

    Returns the admitted buffers with their offsets, the refused ones with why,
    and the space's use (one entry per function for the stack).
    """
    groups: dict[str | None, list[int]] = {}
    for i in candidates:
        groups.setdefault(requests[i].function if space.per_function else None, []).append(i)

    admitted: dict[int, int | None] = {}
    full: dict[int, str] = {}
    uses: list[SpaceUse] = []
    for function, members in groups.items():
        kept, packed, refused = admit_group(space, requests, members)
        where = f"the frame of @{function}" if space.per_function else space.name
        for i, (need, at_least) in refused.items():
            full[i] = (f"full: {where} would need {'at least ' if at_least else ''}{need} B "
                       f"of {space.capacity} B")
        for i in kept:
            admitted[i] = packed.offsets[i] if space.static_offsets else None
        uses.append(SpaceUse(space.name, function, packed.peak, packed.lower_bound,
                             space.capacity, len(kept)))
    return admitted, full, uses


def _admit_group_reference(space: _Space, requests: Sequence[Request], members: list[int]
                           ) -> tuple[list[int], _Packed, dict[int, tuple[int, bool]]]:
    """The previous admission, kept as a reference for tests and benchmarks.

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
        floor = _lower_bound(space, requests, kept + [i])
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


def _admit_group_incremental(space: _Space, requests: Sequence[Request], members: list[int]
                             ) -> tuple[list[int], _Packed, dict[int, tuple[int, bool]]]:
    """Smallest first, with a handful of packer runs instead of one per buffer.

    1. Everything at once, as before, but the packer runs only when the live-bytes lower
       bound of everything fits (otherwise no packing can).
    2. The longest smallest-first prefix whose lower bound fits (bisection over a sweep,
       no packing: lower bounds only grow with the prefix) is packed once by `plan`;
       buffers that packing put above the capacity are taken out and tried again below.
    3. Every buffer not yet admitted, smallest first: refused without packing when the
       lower bound overflows; else placed into the current packing by best fit among the
       buffers of its function whose lifetimes overlap its own
       (`heuristics.choose_offset`); only when that would overflow is its function
       re-packed from scratch with it (`plan`), and not again while the packing is the
       one that already failed, or for a buffer at least as tight (lower bound) as the
       last that failed a re-pack since it.

    The packing returned is validated region by region and fits the capacity.
    """
    order = sorted(members, key=lambda i: (requests[i].size or 0, requests[i].lifetime, i))
    capacity = space.capacity
    bound = _lower_bound(space, requests, order)
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
            if _lower_bound(space, requests, order[:middle]) <= capacity:
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


_AdmitGroup = Callable[[_Space, Sequence[Request], list[int]],
                       tuple[list[int], _Packed, dict[int, tuple[int, bool]]]]

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
    the order the functions first appear (as `_pack` lays them out)."""

    def __init__(self, regions: dict[str, _Region], alignment: int) -> None:
        self.regions = regions
        self.alignment = alignment  # each region's base is aligned to the space's alignment
        self.version = next(_versions)  # changes whenever the layout does

    @classmethod
    def pack(cls, space: _Space, requests: Sequence[Request], members: list[int]) -> _Layout:
        by_function: dict[str, list[int]] = {}
        for i in members:
            by_function.setdefault(requests[i].function, []).append(i)
        return cls({function: _plan_region(space, requests, group)
                    for function, group in by_function.items()}, space.alignment)

    @property
    def peak(self) -> int:
        return self._peak_with({})

    def _peak_with(self, heights: dict[str, int]) -> int:
        """The layout's top if some regions had the heights in `heights`."""
        base = 0
        for function, region in self.regions.items():
            base = _align_up(base, self.alignment) + heights.get(function, region.size)
        for function, height in heights.items():
            if function not in self.regions:  # a new region goes last
                base = _align_up(base, self.alignment) + height
        return base

    def members(self) -> list[int]:
        return [i for region in self.regions.values() for i in region.members]

    def lower_bound_with(self, space: _Space, requests: Sequence[Request], i: int) -> int:
        """What `_lower_bound` gives for these members plus request `i`."""
        function = requests[i].function
        total = sum(r.lower_bound for f, r in self.regions.items() if f != function)
        region = self.regions.get(function)
        if region is None:
            return total + (requests[i].size or 0)
        return total + max(region.lower_bound, _live_with(requests, region.members, i))

    def _best_fit(self, space: _Space, requests: Sequence[Request], i: int) -> tuple[int, int]:
        """Where best fit puts `i` in its function's region, and the region's new height."""
        req = requests[i]
        start, end = req.lifetime
        size = req.size or 0
        region = self.regions.get(req.function)
        busy = []
        if region is not None:
            for j, offset in zip(region.members, region.offsets, strict=True):
                other_start, other_end = requests[j].lifetime
                if other_start < end and start < other_end:
                    busy.append((offset, offset + (requests[j].size or 0)))
            busy.sort()
        alignment = max(space.alignment, req.allocation.alignment or 1)
        offset = choose_offset(busy, size, alignment, best_fit=True)
        return offset, max(region.size if region else 0, offset + size)

    def peak_if_inserted(self, space: _Space, requests: Sequence[Request], i: int) -> int:
        _, height = self._best_fit(space, requests, i)
        return self._peak_with({requests[i].function: height})

    def insert(self, space: _Space, requests: Sequence[Request], i: int, capacity: int) -> bool:
        """Put `i` into its function's region by best fit if the space still fits; say if so.

        A region that grows pushes the regions after it up: offsets within a region are
        relative to its base, so nothing placed moves relative to its neighbours.
        """
        req = requests[i]
        offset, height = self._best_fit(space, requests, i)
        if self._peak_with({req.function: height}) > capacity:
            return False
        region = self.regions.get(req.function)
        if region is None:
            self.regions[req.function] = _Region([i], [offset], height, req.size or 0)
        else:
            region.lower_bound = max(region.lower_bound,
                                     _live_with(requests, region.members, i))
            region.members.append(i)
            region.offsets.append(offset)
            region.size = height
        self.version = next(_versions)
        return True

    def trim_to(self, space: _Space, requests: Sequence[Request], capacity: int) -> list[int]:
        """Take out every buffer that ends above `capacity` until the layout fits; return
        them. The peak is some buffer's top, so each round takes out at least one."""
        taken: list[int] = []
        while self.peak > capacity:
            base = 0
            for function, region in list(self.regions.items()):
                base = _align_up(base, self.alignment)
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

    def repacked_with(self, space: _Space, requests: Sequence[Request], i: int) -> _Layout:
        """A new layout: `i`'s function packed from scratch with `i`, the others kept."""
        function = requests[i].function
        region = self.regions.get(function)
        regions = dict(self.regions)
        regions[function] = _plan_region(space, requests,
                                         (region.members if region else []) + [i])
        return _Layout(regions, self.alignment)

    def packed(self, space: _Space, requests: Sequence[Request]) -> _Packed:
        """Absolute offsets; every region validated against its own buffers and height,
        regions disjoint by construction, and the whole within the capacity."""
        offsets: dict[int, int] = {}
        base = lower = 0
        for region in self.regions.values():
            problem = _problem(space, requests, region.members)
            validate(Problem(problem.buffers, region.size), Solution(tuple(region.offsets)))
            base = _align_up(base, space.alignment)
            for i, offset in zip(region.members, region.offsets, strict=True):
                offsets[i] = base + offset
            base += region.size
            lower += region.lower_bound
        if space.capacity is not None and base > space.capacity:
            raise InvalidPlan(f"{space.name}: packed {base} B into {space.capacity} B")
        return _Packed(offsets, base, lower)



def _plan_region(space: _Space, requests: Sequence[Request], members: list[int]) -> _Region:
    result = _plan_function(space, requests, members)
    return _Region(list(members), list(result.solution.offsets), result.peak, result.lower_bound)


def _live_with(requests: Sequence[Request], members: list[int], i: int) -> int:
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


_ADMISSIONS: dict[str, _AdmitGroup] = {
    "incremental": _admit_group_incremental,
    "reference": _admit_group_reference,
}


def _pack(space: _Space, requests: Sequence[Request], members: list[int]) -> _Packed:
    """Offsets for `members`: each function packed with lifetimes, functions side by side.

    Within a function, lifetimes (op order) say who may share bytes. Across
    functions we have no call graph: a caller and its callee are live together,
    so each function gets its own region, laid out one after the other.
    """
    by_function: dict[str, list[int]] = {}
    for i in members:
        by_function.setdefault(requests[i].function, []).append(i)
    offsets: dict[int, int] = {}
    base = lower = 0
    for function_members in by_function.values():
        result = _plan_function(space, requests, function_members)
        base = _align_up(base, space.alignment)
        for i, offset in zip(function_members, result.solution.offsets, strict=True):
            offsets[i] = base + offset
        base += result.peak
        lower += result.lower_bound
    return _Packed(offsets, base, lower)


def _lower_bound(space: _Space, requests: Sequence[Request], members: list[int]) -> int:
    """Most bytes live at once, per function, summed over functions (as `_pack` lays them)."""
    by_function: dict[str, list[int]] = {}
    for i in members:
        by_function.setdefault(requests[i].function, []).append(i)
    return sum(lower_bound(_problem(space, requests, group)) for group in by_function.values())


def _plan_function(space: _Space, requests: Sequence[Request], members: list[int]) -> PackResult:
    return plan(_problem(space, requests, members))


def _problem(space: _Space, requests: Sequence[Request], members: list[int]) -> Problem:
    buffers = [allocation_buffer(requests[i].allocation, str(i), space.alignment)
               for i in members]
    return Problem(tuple(buffers), space.capacity)


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


# --- reasons ------------------------------------------------------------------------

def _accepted(req: Request, space: _Space, offset: int | None,
              refusals: list[tuple[str, str]], uses: list[SpaceUse]) -> Decision:
    use = next(u for u in uses if u.function in (None, req.function))
    capacity = "unbounded" if use.capacity is None else f"{use.capacity} B"
    where = f"@{req.function} frame peak" if space.per_function else "peak"
    fits = f"{space.name}: fits ({where} {use.peak} B of {capacity})"
    notes = _grouped(refusals) + [fits] + list(req.notes)
    return Decision(req.allocation, req.devices, space.name, offset, "; ".join(notes),
                    tuple(refusals))


def _nowhere(refusals: list[tuple[str, str]]) -> str:
    return "nowhere to go: " + "; ".join(_grouped(refusals))


def _grouped(refusals: list[tuple[str, str]]) -> list[str]:
    """`stack, sram: size not bounded (...)`: each reason once, with every space it holds for."""
    spaces_by_reason: dict[str, list[str]] = {}
    for space, why in refusals:
        spaces_by_reason.setdefault(why, []).append(space)
    return [f"{', '.join(spaces)}: {why}" for why, spaces in spaces_by_reason.items()]
