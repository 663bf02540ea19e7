"""What a model front end hands the planner: the tensors one arena holds, with lifetimes.

Every front end (TFLite, ONNX) reduces a model to `ArenaTensor`s: the bytes the
runtime reserves for the tensor, the steps it is live (half-open), and, for an
in-place op whose output may reuse its input's bytes, the tensor it shares them with.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArenaTensor:
    key: int  # the model's own numbering (TFLite: the position in the offline plan)
    name: str
    size: int  # bytes the runtime reserves, already rounded up to its alignment
    start: int
    end: int  # exclusive
    shares_with: int | None = None  # key of the tensor whose bytes it may reuse in place


def share_groups(tensors: list[ArenaTensor]) -> list[list[ArenaTensor]]:
    """Tensors that share bytes, as groups (a chain of in-place ops is one group),
    each group in key order, groups in order of their first member."""
    by_key = {t.key: t for t in tensors}
    root: dict[int, int] = {}

    def find(key: int) -> int:
        while root.get(key, key) != key:
            key = root[key]
        return key

    for t in tensors:
        if t.shares_with is not None and t.shares_with in by_key:
            a, b = find(t.key), find(t.shares_with)
            if a != b:
                root[max(a, b)] = min(a, b)
    groups: dict[int, list[ArenaTensor]] = {}
    for t in sorted(tensors, key=lambda t: t.key):
        groups.setdefault(find(t.key), []).append(t)
    return list(groups.values())
