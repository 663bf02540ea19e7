"""Read target descriptions from TOML, refusing anything malformed in one line.

Every complaint names the file and the key (`pools[1].capacity`) and says why;
a description that loads is consistent: every device a space names is one of
the target's devices, pool names are unique, the stack's per-allocation limit
is within its frame, alignments are powers of two.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from itertools import accumulate
from pathlib import Path
from typing import Any, TypeVar

from ..errors import InputError
from ..limits import MAX_VALUE
from .model import RESERVED_SPACE_NAMES, Heap, Pool, StackSpace, Target, WorkgroupSpace

T = TypeVar("T")

_PRESET_PACKAGE = "memplan.targets.presets"
_SPACE_KEYS = {"stack", "workgroup", "pools", "heap"}
_TOP_LEVEL_KEYS = {"name", "description", "devices", "tvm_target", "c_compiler"} | _SPACE_KEYS
# memplan runs `c_compiler` on TVM's C output, so a target file could name any program or
# option (gcc's -B or -fplugin load code): only a compiler driver found on PATH, with
# optimisation and machine options, is run.
_C_COMPILER = re.compile(r"[A-Za-z0-9_.+-]*(gcc|clang|cc)(-[0-9.]+)?")
_C_FLAG = re.compile(r"-(O[0-3sgz]?|m[A-Za-z0-9_.=+-]+|march=[A-Za-z0-9_.+-]+)")


def list_presets() -> list[str]:
    """Names of the targets shipped with memplan (file names may hold '+', e.g. a CPU+NPU)."""
    files = resources.files(_PRESET_PACKAGE).iterdir()
    return sorted(f.name.removesuffix(".toml") for f in files if f.name.endswith(".toml"))


def target_file(name_or_path: str) -> Path | None:
    """The file `--target` names, or None for a preset: an input no output may replace."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        return Path(name_or_path)
    return None


def load_target(name_or_path: str) -> Target:
    """A preset name (`x86_64`) or a path to a `.toml` file."""
    path = target_file(name_or_path)
    if path is not None:
        try:
            size = path.stat().st_size
            if size > MAX_TARGET_BYTES:
                raise InputError(path, f"{size:,} bytes; a target file holds at most "
                                 f"{MAX_TARGET_BYTES:,}")
            # Read up to the limit: a device or FIFO (`/dev/zero`) has no size to `stat`
            # and would be read forever.
            with open(path, "rb") as file:
                data = file.read(MAX_TARGET_BYTES + 1)
            if len(data) > MAX_TARGET_BYTES:
                raise InputError(path, f"more than {MAX_TARGET_BYTES:,} bytes; a target file "
                                 "holds at most that")
            text = data.decode("utf-8")
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


# Arrays and inline tables nested deeper than this are refused before parsing: tomllib
# reads them recursively (RecursionError near Python's limit); a target needs three.
MAX_NESTING = 100
# A basic string is matched as runs between escapes, not one character per repetition of
# a group: on a 20 MB string the group form took 5.0 s and 2.4 GB (the regex engine's
# backtracking stack), this one 0.18 s and nothing beyond the text (hostile_text.py).
_TOML_STRINGS_AND_COMMENTS = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*')
# A target description is a few hundred bytes; a file of more is refused before it is read.
MAX_TARGET_BYTES = 1 << 20


def nesting_depth(text: str) -> int:
    """Deepest nesting of `[` and `{` outside strings and comments."""
    brackets = re.sub(r"[^\[\]{}]", "", _TOML_STRINGS_AND_COMMENTS.sub("", text))
    if not brackets:
        return 0
    # A file is at most MAX_TARGET_BYTES: a plain running sum is fast enough, and keeps
    # numpy out of every command that reads a target.
    return max(accumulate(1 if c in "[{" else -1 for c in brackets))


def parse_target(text: str, path: str) -> Target:
    if len(text) > MAX_TARGET_BYTES:
        raise InputError(path, f"{len(text):,} characters; a target holds at most "
                         f"{MAX_TARGET_BYTES:,}")
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise InputError(path, f"invalid TOML: arrays or tables nested {depth} deep; memplan "
                         f"reads at most {MAX_NESTING} levels")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(path, f"invalid TOML: {err}") from None
    except ValueError:
        # Python refuses to convert integers of more than 4,300 digits.
        raise InputError(path, "invalid TOML: an integer is too long to be a number of "
                         "bytes") from None
    except RecursionError:  # the count above missed a form of nesting: still one line
        raise InputError(path, "invalid TOML: arrays or inline tables nested too deeply") \
            from None
    reader = _Reader(path)
    _reject_unknown_top_level(reader, data)
    devices = tuple(reader.strings(data, "devices", "", required=True))
    if not devices:
        raise reader.fail("", "devices", "must name at least one device (the first runs the "
                          "code)")
    target = Target(
        name=reader.string(data, "name", ""),
        description=reader.text(data, "description", ""),
        devices=devices,
        stack=reader.section(data, "stack", _stack),
        workgroup=reader.section(data, "workgroup", _workgroup),
        pools=tuple(_pool(reader, table, f"pools[{i}]")
                    for i, table in enumerate(reader.tables(data, "pools"))),
        heap=reader.section(data, "heap", _heap),
        source=path,
        tvm_target=reader.string(data, "tvm_target", "") if "tvm_target" in data else None,
        c_compiler=_c_compiler(reader, data),
    )
    _check_consistency(reader, target)
    return _default_reach(target)


def _c_compiler(r: _Reader, data: dict[str, Any]) -> tuple[str, ...]:
    if "c_compiler" not in data:
        return ()
    argv = r.strings(data, "c_compiler", "", required=True)
    if not argv or not _C_COMPILER.fullmatch(argv[0]):
        raise r.fail("", "c_compiler", "must start with a C compiler's name on PATH "
                     "(e.g. arm-none-eabi-gcc; no path)")
    for flag in argv[1:]:
        if not _C_FLAG.fullmatch(flag):
            raise r.fail("", "c_compiler", f"'{flag}' refused: only -O and machine "
                         "options (-m..., -march=...) are passed to the compiler")
    return tuple(argv)


def _default_reach(target: Target) -> Target:
    """An omitted `addressable_by`/`reachable_by` of the stack or heap means the first
    device: the one that runs the code owns its stack and its heap."""
    first = (target.default_device,)
    if target.stack and not target.stack.addressable_by:
        target = replace(target, stack=replace(target.stack, addressable_by=first))
    if target.heap and not target.heap.reachable_by:
        target = replace(target, heap=replace(target.heap, reachable_by=first))
    return target


def _reject_unknown_top_level(r: _Reader, data: dict[str, Any]) -> None:
    # A table we do not know is most likely a memory space we do not model
    # (`[scratchpad]`): say so rather than "unknown key".
    for key, value in data.items():
        if key in _TOP_LEVEL_KEYS:
            continue
        if isinstance(value, dict | list):
            raise r.fail("", key, "unknown memory space (known: stack, workgroup, [[pools]], "
                         "heap; a named memory is a [[pools]] entry)")
        raise r.fail("", key, f"unknown key (allowed: {', '.join(sorted(_TOP_LEVEL_KEYS))})")


def _check_consistency(r: _Reader, target: Target) -> None:
    """Cross-field rules a single key cannot express."""
    if len(set(target.devices)) != len(target.devices):
        raise r.fail("", "devices", "a device is listed twice")
    known = set(target.devices)
    users: list[tuple[str, str, tuple[str, ...]]] = []
    if target.stack:
        users.append(("stack", "addressable_by", target.stack.addressable_by))
        limit = target.stack.max_allocation
        if limit is not None and limit > target.stack.max_frame:
            raise r.fail("stack", "max_allocation",
                         f"{limit} is larger than max_frame {target.stack.max_frame}")
    users += [(f"pools[{i}]", "reachable_by", p.reachable_by) for i, p in enumerate(target.pools)]
    if target.heap:
        users.append(("heap", "reachable_by", target.heap.reachable_by))
    for where, key, names in users:
        for name in names:
            if name not in known:
                raise r.fail(where, key, f"unknown device '{name}' (devices: "
                             f"{', '.join(target.devices)})")
    seen: set[str] = set()
    for i, pool in enumerate(target.pools):
        if pool.name in RESERVED_SPACE_NAMES:
            raise r.fail(f"pools[{i}]", "name", f"'{pool.name}' names another kind of space")
        if pool.name in seen:
            raise r.fail(f"pools[{i}]", "name", f"pool '{pool.name}' is defined twice")
        seen.add(pool.name)


def _stack(r: _Reader, t: dict[str, Any], where: str) -> StackSpace:
    r.reject_unknown(t, {"max_frame", "max_allocation", "alignment", "addressable_by",
                         "description"}, where)
    return StackSpace(
        max_frame=r.size(t, "max_frame", where),
        max_allocation=r.size(t, "max_allocation", where, required=False),
        alignment=r.alignment(t, where, 16),
        addressable_by=tuple(r.strings(t, "addressable_by", where)),
        description=r.text(t, "description", where),
    )


def _workgroup(r: _Reader, t: dict[str, Any], where: str) -> WorkgroupSpace:
    r.reject_unknown(t, {"limit_per_kernel", "alignment", "description"}, where)
    return WorkgroupSpace(
        limit_per_kernel=r.size(t, "limit_per_kernel", where),
        alignment=r.alignment(t, where, 16),
        description=r.text(t, "description", where),
    )


def _pool(r: _Reader, t: dict[str, Any], where: str) -> Pool:
    r.reject_unknown(t, {"name", "capacity", "alignment", "reachable_by", "description"}, where)
    return Pool(
        name=r.string(t, "name", where),
        capacity=r.size(t, "capacity", where),
        alignment=r.alignment(t, where, 16),
        reachable_by=tuple(r.strings(t, "reachable_by", where, required=True)),
        description=r.text(t, "description", where),
    )


def _heap(r: _Reader, t: dict[str, Any], where: str) -> Heap:
    r.reject_unknown(t, {"capacity", "alignment", "reachable_by", "description"}, where)
    return Heap(
        reachable_by=tuple(r.strings(t, "reachable_by", where)),
        capacity=r.size(t, "capacity", where, required=False),
        alignment=r.alignment(t, where, 64),
        description=r.text(t, "description", where),
    )


def _describe(value: object) -> str:
    """A TOML value for a one-line message, however large or deep it is."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        return f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:40] + "..."


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

    def text(self, t: dict[str, Any], key: str, where: str) -> str:
        """An optional free-text field."""
        value = t.get(key, "")
        if not isinstance(value, str):
            raise self.fail(where, key, "must be a string")
        return value

    def alignment(self, t: dict[str, Any], where: str, default: int) -> int:
        value = self.size(t, "alignment", where, required=False)
        if value is None:
            return default
        if value & (value - 1):
            raise self.fail(where, "alignment", f"must be a power of two, not {value}")
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
            raise self.fail(where, key, f"must be a positive number of bytes, not "
                            f"{_describe(value)}")
        if value > MAX_VALUE:
            raise self.fail(where, key, f"{_describe(value)} is above memplan's limit 2**40")
        return value

    def section(self, data: dict[str, Any], key: str,
                build: Callable[[_Reader, dict[str, Any], str], T]) -> T | None:
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


def target_of(target: Target | str) -> Target:
    """A target, or its preset name or .toml file."""
    return target if isinstance(target, Target) else load_target(target)
