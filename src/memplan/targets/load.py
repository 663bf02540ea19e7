"""Read target descriptions from TOML, refusing anything malformed in one line."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InputError
from .model import Heap, Pool, StackSpace, Target, WorkgroupSpace

_PRESET_PACKAGE = "memplan.targets.presets"
_TOP_LEVEL_KEYS = {"name", "description", "devices", "stack", "workgroup", "pools", "heap"}


def list_presets() -> list[str]:
    files = resources.files(_PRESET_PACKAGE).iterdir()
    return sorted(f.name.removesuffix(".toml") for f in files if f.name.endswith(".toml"))


def load_target(name_or_path: str) -> Target:
    """A preset name (`x86_64`) or a path to a `.toml` file."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        path = Path(name_or_path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise InputError(path, f"cannot read target file: {reason}") from None
        return parse_target(text, str(path))
    if name_or_path not in list_presets():
        raise InputError(
            "--target", f"unknown target '{name_or_path}' (known: {', '.join(list_presets())})"
        )
    text = resources.files(_PRESET_PACKAGE).joinpath(f"{name_or_path}.toml").read_text()
    return parse_target(text, f"<preset {name_or_path}>")


def parse_target(text: str, path: str) -> Target:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(path, f"invalid TOML: {err}") from None
    reader = _Reader(path)
    reader.reject_unknown(data, _TOP_LEVEL_KEYS, "")
    devices = tuple(reader.strings(data, "devices", "", required=True))
    return Target(
        name=reader.string(data, "name", ""),
        description=str(data.get("description", "")),
        devices=devices,
        stack=reader.section(data, "stack", _stack),
        workgroup=reader.section(data, "workgroup", _workgroup),
        pools=tuple(_pool(reader, table, f"pools[{i}]")
                    for i, table in enumerate(reader.tables(data, "pools"))),
        heap=reader.section(data, "heap", _heap),
        source=path,
    )


def _stack(r: _Reader, t: dict[str, Any], where: str) -> StackSpace:
    r.reject_unknown(t, {"max_frame", "max_allocation", "alignment", "addressable_by"}, where)
    return StackSpace(
        max_frame=r.size(t, "max_frame", where),
        max_allocation=r.size(t, "max_allocation", where, required=False),
        alignment=r.size(t, "alignment", where, required=False) or 16,
        addressable_by=tuple(r.strings(t, "addressable_by", where)),
    )


def _workgroup(r: _Reader, t: dict[str, Any], where: str) -> WorkgroupSpace:
    r.reject_unknown(t, {"limit_per_kernel", "alignment"}, where)
    return WorkgroupSpace(
        limit_per_kernel=r.size(t, "limit_per_kernel", where),
        alignment=r.size(t, "alignment", where, required=False) or 16,
    )


def _pool(r: _Reader, t: dict[str, Any], where: str) -> Pool:
    r.reject_unknown(t, {"name", "capacity", "alignment", "reachable_by"}, where)
    return Pool(
        name=r.string(t, "name", where),
        capacity=r.size(t, "capacity", where),
        alignment=r.size(t, "alignment", where, required=False) or 16,
        reachable_by=tuple(r.strings(t, "reachable_by", where, required=True)),
    )


def _heap(r: _Reader, t: dict[str, Any], where: str) -> Heap:
    r.reject_unknown(t, {"capacity", "alignment", "reachable_by"}, where)
    return Heap(
        reachable_by=tuple(r.strings(t, "reachable_by", where)),
        capacity=r.size(t, "capacity", where, required=False),
        alignment=r.size(t, "alignment", where, required=False) or 64,
    )


class _Reader:
    """Typed access to TOML tables; every complaint names the file and the key."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, where: str, key: str, reason: str) -> InputError:
        return InputError(self.path, reason, f"{where}.{key}" if where else key)

    def reject_unknown(self, table: dict[str, Any], allowed: set[str], where: str) -> None:
        for key in table:
            if key not in allowed:
                raise self.fail(where, key, f"unknown key (allowed: {', '.join(sorted(allowed))})")

    def string(self, t: dict[str, Any], key: str, where: str) -> str:
        value = t.get(key)
        if not isinstance(value, str) or not value:
            raise self.fail(where, key, "missing or not a non-empty string")
        return value

    def strings(self, t: dict[str, Any], key: str, where: str, required: bool = False) -> list[str]:
        value = t.get(key)
        if value is None and not required:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(where, key, "missing or not a list of names")
        return value

    def size(self, t: dict[str, Any], key: str, where: str, required: bool = True) -> int | None:
        value = t.get(key)
        if value is None:
            if required:
                raise self.fail(where, key, "missing")
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.fail(where, key, f"must be a positive number of bytes, not {value!r}")
        return value

    def section(self, data: dict[str, Any], key: str, build):  # noqa: ANN001
        table = data.get(key)
        if table is None:
            return None
        if not isinstance(table, dict):
            raise self.fail("", key, "must be a table")
        return build(self, table, key)

    def tables(self, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail("", key, "must be an array of tables ([[pools]])")
        return value
