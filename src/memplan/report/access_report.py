"""Access modes as a table or JSON (what `memplan check` prints for tensor programs)."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.access import Access
from .table import format_table


def format_access(accesses: Sequence[Access]) -> str:
    rows = [[a.function or "(module)", a.kind, a.name, a.type, a.mode] for a in accesses]
    return format_table(["function", "kind", "name", "type", "access"], rows)


def access_json(accesses: Sequence[Access]) -> list[dict[str, object]]:
    return [{"kind": a.kind, "name": a.name, "function": a.function, "type": a.type,
             "mode": a.mode} for a in accesses]
