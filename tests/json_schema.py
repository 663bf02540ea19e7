"""A checker for the part of JSON Schema memplan's schemas use (type, const, enum, required,
properties, additionalProperties, items, minimum, and `$ref` to the schema's own `$defs`),
so the tests need no schema library: every `--json` is checked against its schema file
under src/memplan/report/schemas/."""

from __future__ import annotations

import json
from pathlib import Path

SCHEMAS = Path(__file__).resolve().parents[1] / "src" / "memplan" / "report" / "schemas"
_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def load_schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def problems(value, schema: dict, where: str = "$", root: dict | None = None) -> list[str]:
    root = schema if root is None else root
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), f"{where}: only local $defs are read, not {ref}"
        schema = root["$defs"][ref.removeprefix("#/$defs/")]
    found = []
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        found.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, t) for t in types):
            return [*found, f"{where}: {value!r} is not of type {types}"]
    if "minimum" in schema and isinstance(value, int | float) and value < schema["minimum"]:
        found.append(f"{where}: {value} is below {schema['minimum']}")
    if isinstance(value, dict):
        found += [f"{where}: '{key}' is missing" for key in schema.get("required", [])
                  if key not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                found += problems(value[key], sub, f"{where}.{key}", root)
        if schema.get("additionalProperties") is False:
            found += [f"{where}: '{k}' is not in the schema" for k in value
                      if k not in schema.get("properties", {})]
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            found += problems(item, schema["items"], f"{where}[{i}]", root)
    return found


def _is(value, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])
