"""The schema of `memplan plan --json` (`plan_schema.json`, docs/json-schema.md) and a
validator for the part of JSON Schema it uses (type, enum, required, properties,
additionalProperties, items): tests and `benchmarks/plan_sweep.py` check real documents
against it without a package of their own."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def plan_schema() -> dict[str, Any]:
    return json.loads(resources.files("memplan.report").joinpath("plan_schema.json").read_text())


def problems(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every way `value` breaks `schema` ([] when it holds)."""
    found: list[str] = []
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else types
        if not any(_is(value, name) for name in names):
            return [f"{where}: {type(value).__name__} is not {'/'.join(names)}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, dict):
        found += [f"{where}: missing {key}" for key in schema.get("required", [])
                  if key not in value]
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                found += problems(item, properties[key], f"{where}.{key}")
            elif extra is False:
                found.append(f"{where}: unexpected {key}")
            elif isinstance(extra, dict):
                found += problems(item, extra, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            found += problems(item, schema["items"], f"{where}[{i}]")
    return found


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def plan_json_problems(document: Any) -> list[str]:
    """Every way a `memplan plan --json` document breaks the schema."""
    return problems(document, plan_schema())
