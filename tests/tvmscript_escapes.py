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


# More places TVM's parser (or Python, before it) evaluates an expression `{X}`: each
# file is valid Python with the expression in that place.
_FN = "@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n"
MORE_PLACEMENTS: dict[str, str] = {
    "default_argument": "@I.ir_module\nclass M:\n    @T.prim_func\n    def f(a={X}):\n"
                        "        T.evaluate(0)\n",
    "class_body": "@I.ir_module\nclass M:\n    x = {X}\n",
    "class_keyword": "@I.ir_module\nclass M(metaclass={X}):\n    x = 1\n",
    "class_base": "@I.ir_module\nclass M({X}):\n    x = 1\n",
    "comprehension": _FN + "        T.evaluate([y for y in [{X}]][0])\n",
    "lambda": _FN + "        T.evaluate((lambda: {X})())\n",
    "fstring": _FN + "        T.func_attr({{\"a\": f\"{{{X}}}\"}})\n",
    "subscript": _FN + "        A = T.alloc_buffer((4,))\n        T.evaluate(A[{X}])\n",
    "walrus": _FN + "        T.evaluate((y := {X}))\n",
    "with_statement": _FN + "        with {X}:\n            T.evaluate(0)\n",
    "match": _FN + "        match {X}:\n            case _:\n                T.evaluate(0)\n",
    "starred": _FN + "        T.evaluate(*[{X}])\n",
    "global": _FN + "        global g\n        g = {X}\n",
    "keyword_argument": _FN + "        T.evaluate(T.int32(0), x={X})\n",
    "double_star": _FN + "        T.func_attr(**{{\"a\": {X}}})\n",
    "if_condition": _FN + "        if {X}:\n            T.evaluate(0)\n",
    "assert": _FN + "        assert {X}, \"x\"\n",
    "dict_key": _FN + "        T.func_attr({{{X}: 1}})\n",
    "relax_body": ("@I.ir_module\nclass M:\n    @R.function\n"
                   "    def f(x: R.Tensor((4,), \"float32\")):\n        y = {X}\n"
                   "        return x\n"),
    "relax_annotation": ("@I.ir_module\nclass M:\n    @R.function\n"
                         "    def f(x: R.Tensor((4,), \"float32\")) -> {X}:\n        return x\n"),
    "module_attrs": "@I.ir_module\nclass M:\n    I.module_attrs({{\"a\": {X}}})\n",
    "string_annotation": ("@I.ir_module\nclass M:\n    @T.prim_func\n    def f(a: {S}):\n"
                          "        T.evaluate(0)\n"),
}

_HEADER = ("# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
           "# from tvm.script import relax as R\n\n")


def more_script(place: str, expr: str) -> str:
    return _HEADER + MORE_PLACEMENTS[place].format(X=expr, S=repr(expr))


def attempts(marker: str) -> dict[str, str]:
    """Escapes that name no module: Python's own objects reached from what TVMScript
    allows (a constant, a builtin's result, an IR value, the module name, a parser entry
    given a string), each creating `marker` if it got through."""
    m = repr(marker)
    touch = f"__import__('os').system('touch ' + {m})"
    inner = ("# from tvm.script import tirx as T\n@T.prim_func\ndef g():\n"
             f"    T.func_attr({{'a': {touch}}})\n")
    mro = "().__class__.__mro__[1].__subclasses__()"
    return {
        "dunder_subclasses": (f"[c for c in {mro} if c.__name__ == 'Popen'][0]"
                              f"(['touch', {m}]).wait()"),
        "dunder_globals": f"T.evaluate.__globals__['__builtins__']['open']({m}, 'w')",
        "dunder_class_of_ir": ("T.int32(0).__class__.__init__.__globals__['os']"
                               f".system('touch ' + {m})"),
        "format_traversal": "'{0.__globals__[os].system}'.format(T.evaluate)",
        "format_of_str_call": "str(1).format(T.evaluate)",
        "format_map": "'{a}'.format_map(dict(a=1))",
        "builtins_via_getattr": f"getattr(T, 'external_kernel').Path({m}).write_text('x')",
        "meta_var": f"T.meta_var(__import__('pathlib').Path({m}).write_text('x'))",
        "entry_parse": f"I.entry.parse({inner!r})",
        "tir_entry_parse": f"T.entry.parse({inner!r})",
        "ir_module_on_string": f"I.ir_module({inner!r})",
        "prim_func_on_string": f"T.prim_func({inner!r})",
        "pyfunc": f"I.pyfunc({touch})",
        "eval_name": f"eval({touch!r})",
        "exec_name": f"exec({touch!r})",
        "compile_name": f"compile({touch!r}, 'x', 'exec')",
        "vars_of_root": "vars(T)['external_kernel']",
        "script_method": f"T.int32(0).script().replace('x', {m})",
        "show_method": "T.int32(0).show()",
        "str_join_of_buffer": "str(1).join(T.alloc_buffer((4,)))",
        "module_name_attribute": "M.__dict__",
        "range_attribute": "range(1).count(0)",
        "list_of_buffer": "list(T.alloc_buffer((4,)))",
        "max_of_range": "max(range(10**18))",
        "repeat_list": "len([0] * 10**9)",
        "repeat_str_call": "len(str(10**60) * 10**8)",
        "pow_tower": "((((10**64)**64)**64)**64)**64 > 1",
        "pow_of_pow_right": "10**10**10",
        "shift_tower": "((1 << 64) << 64) << 64",
        "call_packed_string": f"R.call_packed('runtime.RPCTimeEvaluator', {touch!r})",
        "type_of_value": "type(T.int32(0)).mro()",
        "import_via_tvm": "tvm.runtime.load_module('x.so')",
        "pathlib_via_external_kernel": f"T.external_kernel.Path({m}).write_text('x')",
    }
