"""The target's memory spaces as placement sees them: what each space refuses
outright, and every reason string a placement gives (refused, full, accepted,
nowhere to go)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..buffers import BufferRequest
from ..targets import Target
from .model import HEAP, STACK, Assignment, SpaceUse


@dataclass(frozen=True)
class Space:
    """A space as the admission loop sees it: capacity, packing scope, static refusals."""

    name: str
    capacity: int | None
    alignment: int
    per_function: bool  # the stack: one frame per function
    static_offsets: bool  # the heap hands out addresses at run time: no offsets to report
    refuse: Callable[[BufferRequest], str | None]


def target_spaces(target: Target) -> list[Space]:
    """The target's spaces in placement order; a missing stack or heap refuses everything,
    so that every buffer's reasons name all three kinds of space."""
    spaces = [_stack_space(target) if target.stack else
              _absent(STACK, "the target has no addressable stack", per_function=True)]
    spaces += [_pool_space(target, pool.name) for pool in target.pools]
    spaces.append(_heap_space(target) if target.heap else
                  _absent(HEAP, "the target has no heap", per_function=False))
    return spaces


def fixed_space(req: BufferRequest, target: Target) -> Assignment | None:
    """A memory space the IR already chose and that is not ours to change."""
    space = req.pinned
    if space is None or target.pool(space) is not None:
        return None
    if space == "workgroup":
        why = "GPU workgroup memory: budgeted per kernel by `memplan check`"
    else:
        why = f"memory space '{space}' fixed in the IR; not a space of {target.name}"
    return Assignment(req, space, None, why)


def _absent(name: str, why: str, per_function: bool) -> Space:
    return Space(name, None, 1, per_function, False, lambda _request: why)


def _stack_space(target: Target) -> Space:
    stack = target.stack
    assert stack is not None

    def refuse(req: BufferRequest) -> str | None:
        return (_pinned_elsewhere(req, None)
                or _static_slot_refusal(req, stack.addressable_by, "addressable")
                or _over(req.size, stack.max_allocation, "per-allocation limit")
                or _over(req.size, stack.max_frame, "frame limit"))

    return Space(STACK, stack.max_frame, stack.alignment, True, True, refuse)


def _pool_space(target: Target, name: str) -> Space:
    pool = target.pool(name)
    assert pool is not None

    def refuse(req: BufferRequest) -> str | None:
        return (_pinned_elsewhere(req, name)
                or _static_slot_refusal(req, pool.reachable_by, "reachable")
                or _over(req.size, pool.capacity, "capacity"))

    return Space(name, pool.capacity, pool.alignment, False, True, refuse)


def _heap_space(target: Target) -> Space:
    heap = target.heap
    assert heap is not None

    def refuse(req: BufferRequest) -> str | None:
        if heap.capacity is not None and req.size is None:
            unbounded = f"holds only {heap.capacity} B and the size has no bound"
        else:
            unbounded = None
        return (_pinned_elsewhere(req, None)
                or _unreachable(req, heap.reachable_by, "reachable")
                or unbounded
                or _over(req.size, heap.capacity, "capacity"))

    return Space(HEAP, heap.capacity, heap.alignment, False, False, refuse)


# A stack or pool slot is one buffer at one offset; a loop makes one buffer per iteration
# (and an alloca there takes new stack each time, seed 000). `memplan opt` hoists first.
_IN_LOOP = "inside a loop: one static slot cannot hold a buffer made every iteration"


def _pinned_elsewhere(req: BufferRequest, space: str | None) -> str | None:
    if req.pinned is not None and req.pinned != space:
        return f"the IR asks for memory space '{req.pinned}'"
    return None


def _static_slot_refusal(req: BufferRequest, reached_by: tuple[str, ...], verb: str) -> str | None:
    """What a stack or pool refuses of any buffer: a slot at a static offset needs a bounded
    size, every device using the buffer able to reach it, and one buffer, not one per
    iteration."""
    if req.size is None:
        return _unbounded(req)
    why = _unreachable(req, reached_by, verb)
    if why is None and req.in_loop:
        why = _IN_LOOP
    return why


def _unreachable(req: BufferRequest, reached_by: tuple[str, ...], verb: str) -> str | None:
    missing = [d for d in req.devices if d not in reached_by]
    return f"not {verb} by {', '.join(missing)}" if missing else None


def _over(size: int | None, limit: int | None, what: str) -> str | None:
    if size is not None and limit is not None and size > limit:
        return f"{size} B is over the {what} of {limit} B"
    return None


def _unbounded(req: BufferRequest) -> str:
    why = req.unbounded
    return f"size not bounded ({why})" if why else "size not bounded"


# --- reasons of the admission ------------------------------------------------------------

def full(space: Space, function: str | None, need: int, at_least: bool) -> str:
    """A buffer the space could hold alone but not with those admitted before it."""
    where = f"the frame of @{function}" if space.per_function else space.name
    return (f"full: {where} would need {'at least ' if at_least else ''}{need} B "
            f"of {space.capacity} B")


def accepted(req: BufferRequest, space: Space, offset: int | None,
             refusals: list[tuple[str, str]], uses: list[SpaceUse]) -> Assignment:
    use = next(u for u in uses if u.function in (None, req.scope))
    capacity = "unbounded" if use.capacity is None else f"{use.capacity} B"
    where = f"@{req.scope} frame peak" if space.per_function else "peak"
    fits = f"{space.name}: fits ({where} {use.peak} B of {capacity})"
    notes = _grouped(refusals) + [fits] + list(req.notes)
    return Assignment(req, space.name, offset, "; ".join(notes),
                      tuple(refusals))


def nowhere(req: BufferRequest, refusals: list[tuple[str, str]]) -> Assignment:
    return Assignment(req, None, None,
                      "nowhere to go: " + "; ".join(_grouped(refusals)), tuple(refusals))


def _grouped(refusals: list[tuple[str, str]]) -> list[str]:
    """`stack, sram: size not bounded (...)`: each reason once, with every space it holds for."""
    spaces_by_reason: dict[str, list[str]] = {}
    for space, why in refusals:
        spaces_by_reason.setdefault(why, []).append(space)
    return [f"{', '.join(spaces)}: {why}" for why, spaces in spaces_by_reason.items()]
