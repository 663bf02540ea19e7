"""JSON text as `json.dumps(data, indent=2)` writes it, byte for byte, in half the time.

With `indent`, the standard library encodes in pure Python through a generator
per container; a report of a large file (a census of 10,000 allocations) spends
most of a second there. This writes the same text by direct recursion, with
the common leaves (strings, ints, None) written in place. Types as `json.dumps`
takes them (str and int subclasses such as enums included), no `default=`, no
cycle check (a report is a tree); anything else raises the same TypeError.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring_ascii as _string

_INDENT = "  "


def dumps_indented(data: object) -> str:
    """`json.dumps(data, indent=2)`."""
    out: list[str] = []
    _write(data, "\n", out)
    return "".join(out)


def _write(value: object, newline: str, out: list[str]) -> None:
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, dict)):
        if not value:
            out.append("{}")
            return
        inner = newline + _INDENT
        separator = "{" + inner
        for key, item in value.items():  # type: ignore[attr-defined]
            head = separator + (_string(key) if type(key) is str else _key(key)) + ": "
            separator = "," + inner
            kind = type(item)
            if kind is str:
                out.append(head + _string(item))
            elif kind is int:
                out.append(head + int.__repr__(item))
            elif item is None:
                out.append(head + "null")
            else:
                out.append(head)
                _write(item, inner, out)
        out.append(newline + "}")
    elif kind is list or isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + _INDENT
        separator = "[" + inner
        for item in value:  # type: ignore[attr-defined]
            kind = type(item)
            if kind is str:
                out.append(separator + _string(item))
            elif kind is int:
                out.append(separator + int.__repr__(item))
            elif item is None:
                out.append(separator + "null")
            else:
                out.append(separator)
                _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    elif isinstance(value, str):
        out.append(_string(value))
    elif value is None or isinstance(value, (int, float)):  # bool is an int
        out.append(_scalar(value))
    else:  # the standard library's words
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _scalar(value: object) -> str:
    """None, a bool, an int or a float as `json.dumps` writes it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)  # an IntEnum as its number
    if value != value:  # type: ignore[comparison-overlap]
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"  # type: ignore[operator]
    return float.__repr__(value)  # type: ignore[arg-type]


def _key(key: object) -> str:
    if isinstance(key, str):
        return _string(key)
    if key is None or isinstance(key, (int, float)):
        return _string(_scalar(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
