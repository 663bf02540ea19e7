"""A generated corpus of TVMScript files that try to run Python (issue 31).

Shared by tests/test_tvm_script_escapes.py and benchmarks/hostile_models.py. Two parts:

- `reachable()`: every callable an attribute chain from a DSL root (`T.x.y.z`) reaches,
  found by walking TVM's script namespaces as they are installed, grouped by where it
  comes from (`pathlib`, `builtins`, TVM's own parser, ...) so a test can take one of
  each kind and a sweep can take all;
- `writers(marker)`: expressions that create the file `marker` if TVM's parser ever
  evaluates them, through each way out the attackers reported (pathlib, a parser given
  a string, os/subprocess/open/exec reached through a module, a bound alias).

`PLACEMENTS` puts an expression where TVM's parser evaluates it; `script(place, expr)`
is the file.
"""

from __future__ import annotations

import types
from collections.abc import Iterator

ROOTS = ("T", "R", "I", "Tx")
DEPTH = 3

PLACEMENTS: dict[str, str] = {
    "statement": "@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n        {X}\n",
    "func_attr": ("@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n"
                  "        T.func_attr({{\"a\": {X}}})\n"),
    "assignment": ("@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n"
                   "        x = {X}\n        T.evaluate(0)\n"),
    "decorator_argument": ("@I.ir_module\nclass M:\n    @T.prim_func(private={X})\n"
                           "    def f():\n        T.evaluate(0)\n"),
    "annotation": ("@I.ir_module\nclass M:\n    @T.prim_func\n    def f(a: {X}):\n"
                   "        T.evaluate(0)\n"),
    "top_decorator_argument": "@T.prim_func(private={X})\ndef f():\n    T.evaluate(0)\n",
    "return_annotation": ("@I.ir_module\nclass M:\n    @T.prim_func\n    def f() -> {X}:\n"
                          "        T.evaluate(0)\n"),
    "loop_bound": ("@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n"
                   "        for i in range({X}):\n            T.evaluate(0)\n"),
}


def script(place: str, expr: str) -> str:
    return "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n" + \
        PLACEMENTS[place].format(X=expr)


def _kind(obj: object) -> str:
    """Where a callable comes from: its top-level package, or TVM's subpackage."""
    module = getattr(obj, "__module__", None) or type(obj).__module__ or "?"
    parts = module.split(".")
    top = ".".join(parts[:2]) if parts[0] == "tvm" else parts[0]
    return f"{top}:{'class' if isinstance(obj, type) else 'callable'}"


def reachable(depth: int = DEPTH) -> dict[str, list[str]]:
    """`{kind: [dotted chain, ...]}` of every callable reachable from the DSL roots
    through at most `depth` attributes, public names only (the guard refuses `_` ones)."""
    from memplan.runtimes.tvm.script import dsl_globals

    roots = dsl_globals()
    found: dict[str, list[str]] = {}
    seen: set[int] = set()
    frontier: list[tuple[str, object]] = [(r, roots[r]) for r in ROOTS]
    for _ in range(depth):
        nxt: list[tuple[str, object]] = []
        for dotted, obj in frontier:
            for name in _public(obj):
                try:
                    child = getattr(obj, name)
                except Exception:  # noqa: BLE001 - a property that needs an instance
                    continue
                chain = f"{dotted}.{name}"
                if callable(child) and not isinstance(child, types.ModuleType):
                    found.setdefault(_kind(child), []).append(chain)
                if id(child) not in seen and isinstance(child, types.ModuleType | type):
                    seen.add(id(child))
                    nxt.append((chain, child))
        frontier = nxt
    return found


def _public(obj: object) -> Iterator[str]:
    try:
        names = sorted(vars(obj)) if isinstance(obj, types.ModuleType) else dir(obj)
    except TypeError:
        return
    yield from (n for n in names if not n.startswith("_"))


def _find(targets: dict[str, object], depth: int = DEPTH) -> dict[str, str]:
    """For each target object, the shortest chain from a DSL root that reaches it."""
    from memplan.runtimes.tvm.script import dsl_globals

    roots = dsl_globals()
    want = {id(v): k for k, v in targets.items()}
    hits: dict[str, str] = {}
    seen: set[int] = set()
    frontier: list[tuple[str, object]] = [(r, roots[r]) for r in ROOTS]
    for _ in range(depth):
        nxt = []
        for dotted, obj in frontier:
            for name in _public(obj):
                try:
                    child = getattr(obj, name)
                except Exception:  # noqa: BLE001
                    continue
                chain = f"{dotted}.{name}"
                if id(child) in want:
                    hits.setdefault(want[id(child)], chain)
                if id(child) not in seen and isinstance(child, types.ModuleType | type):
                    seen.add(id(child))
                    nxt.append((chain, child))
        frontier = nxt
    return hits


def writers(marker: str) -> dict[str, str]:
    """`{name: expression}`: each creates `marker` if evaluated (and is otherwise valid
    Python in any placement)."""
    import builtins
    import os
    import pathlib
    import subprocess

    from tvm.script.parser.core import entry

    m = repr(marker)
    inner = ("# from tvm.script import tirx as T\n@T.prim_func\ndef g():\n"
             f"    T.func_attr({{'a': __import__('pathlib').Path({m}).write_text('x')}})\n")
    out = {"parser_string": f"I.entry.parse({inner!r})"}
    chains = _find({"Path": pathlib.Path, "os_system": os.system, "subprocess_run": subprocess.run,
                    "open": builtins.open, "exec": builtins.exec, "parse": entry.parse})
    calls = {"Path": f"@({m}).write_text('x')", "os_system": f"@('touch ' + {m})",
             "subprocess_run": f"@(['touch', {m}])", "open": f"@({m}, 'w')",
             "exec": f"@({f'open({m}, chr(119))'!r})", "parse": f"@({inner!r})"}
    for name, chain in chains.items():
        out[name] = calls[name].replace("@", chain, 1)
    return out


def alias_script(marker: str) -> str:
    """A module bound to a name, then reached through that name: no chain from a root."""
    return ("# from tvm.script import tirx as T\n@I.ir_module\nclass M:\n    @T.prim_func\n"
            "    def f():\n        k = T.external_kernel\n"
            f"        T.evaluate(k.Path({marker!r}).write_text('x'))\n")
