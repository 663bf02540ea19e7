"""Placement policy: which memory space of a target holds each allocation.

This module only ties the parts together (`place`): the data in `model`, each
space's refusals and the reason strings in `spaces`, the packing admission in
`admission`.

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
     misses (`admission.admit_group_incremental`); a buffer that would push the
     peak over the capacity is refused ("full").
     The stack is packed per function (one frame each); a pool or the heap per
     module, each function in a region of its own, regions side by side.

Refuses: a buffer that every space refused has nowhere to go; it is reported
with each space's reason, never silently dropped.

Why smallest first: the stack and fast pools are small; filling them with many
small buffers moves the most accesses there, and a large buffer that did not
fit costs the least to move. Why functions do not share bytes in a pool:
without a call graph we cannot prove two functions are never live together
(a caller and its callee are), so the bound is sound, if not tight.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..buffers import BufferRequest
from ..targets import Target
from .admission import AdmitGroup, admit, admit_group_incremental
from .model import Assignment, Placement, SpaceUse
from .spaces import accepted, fixed_space, nowhere, target_spaces


def place(requests: Sequence[BufferRequest], target: Target, *,
          admission: AdmitGroup = admit_group_incremental) -> Placement:
    """Place every request on `target`; see the module docstring for the rules.

    `admission` admits one packing group into a space; tests and a benchmark pass the
    previous admission (a full re-pack per buffer past the prefix) to compare against.
    """
    decisions: dict[int, Assignment] = {}
    pending: list[int] = []
    for i, req in enumerate(requests):
        fixed = fixed_space(req, target)
        if fixed is not None:
            decisions[i] = fixed
        else:
            pending.append(i)

    refusals: dict[int, list[tuple[str, str]]] = {i: [] for i in pending}
    usage: list[SpaceUse] = []
    for space in target_spaces(target):
        candidates = []
        for i in pending:
            why = space.refuse(requests[i])
            if why is None:
                candidates.append(i)
            else:
                refusals[i].append((space.name, why))
        admitted, full, uses = admit(space, requests, candidates, admission)
        usage += uses
        for i, why in full.items():
            refusals[i].append((space.name, why))
        for i, offset in admitted.items():
            decisions[i] = accepted(requests[i], space, offset, refusals[i], uses)
        pending = [i for i in pending if i not in admitted]

    for i in pending:
        decisions[i] = nowhere(requests[i], refusals[i])
    return Placement(target, tuple(decisions[i] for i in range(len(requests))), tuple(usage))
