"""Read TVMScript text (what `IRModule.script()` prints) without running its code.

TVM's parser (`tvm.script.parser.core.entry.parse`) does not interpret a fixed
grammar: it hands each expression of the script to Python's `eval` (and each
assignment target to `exec`), with TVM's modules and Python's builtins in scope.
A script is therefore a program: `T.func_attr({"a": __import__("os").system(...)})`
would run. Model and kernel files are untrusted, so before TVM sees the text,
`check_script` accepts only the shape the printer emits and refuses the rest
with one line naming the place:

- at top level: the printer's `from tvm.script import ...` lines, docstrings and
  comments, and `@I.ir_module` classes / `@T.prim_func` / `@R.function` definitions;
- no imports elsewhere, no lambdas, comprehensions, f-strings, `global`, `try`,
  `raise`, `del`, `yield`, `await`, walrus, nested classes;
- no name or attribute beginning with `_` (dunders are the way out of any sandbox),
  no Python builtin but a few harmless ones (`range`, `int`, ...), no `tvm`;
- attribute chains from the DSL roots (`T`, `R`, `I`, `Tx`, `Axis`) may only reach
  TVM's own script and op modules (`T.tvm`-style paths to `os` are refused);
- `**` and `<<` only with a small constant on the right, no arithmetic on strings
  (the parser folds constants in Python: `10**10**10` would never finish).

The parser then runs with only the DSL roots in scope (not the `tvm` module).
What is left is TVM's own parsing of IR, which builds IR objects and nothing else.
"""

from __future__ import annotations

import ast
import builtins
import types
from pathlib import Path
from typing import Any

from ...errors import InputError
from .runtime import require_tvm

# What the printer puts at the top of a script (`IRModule.script()`).
_ALLOWED_IMPORTS = {
    ("tvm.script", "ir"), ("tvm.script", "tirx"), ("tvm.script", "relax"),
    ("tvm.script", "tir"), ("tvm.tirx.layout", "Axis"),
}
_SAFE_BUILTINS = {"range", "int", "float", "bool", "str", "tuple", "list", "dict", "len",
                  "min", "max", "abs", "True", "False", "None", "Ellipsis"}
_UNSAFE_BUILTINS = set(dir(builtins)) - _SAFE_BUILTINS
_DSL_ROOTS = ("I", "ir", "T", "tir", "R", "relax", "Tx", "tirx", "Axis")
# Modules an attribute chain from a DSL root may pass through.
_REACHABLE_MODULES = ("tvm.script.", "tvm.tirx.script.", "tvm.relax.script.", "tvm.relax.op.")
_REFUSED_NODES = (
    ast.Import, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.Global, ast.Nonlocal, ast.Try, ast.Raise, ast.Delete, ast.Yield, ast.YieldFrom,
    ast.Await, ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith, ast.NamedExpr,
    ast.JoinedStr, ast.Starred,
)
_SMALL = 64  # the largest right operand of `**` / `<<` a script may fold


def dsl_globals() -> dict[str, Any]:
    """The names TVM's parser may resolve: the DSL roots, nothing else."""
    from tvm.script.parser.core.entry import _default_globals

    return {k: v for k, v in _default_globals().items() if k in _DSL_ROOTS}


def check_script(text: str, path: str) -> None:
    """Raise `InputError` at the first construct outside what the printer emits."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as err:
        raise InputError(path, f"not TVMScript: {err.msg}", err.lineno) from None
    for stmt in tree.body:
        _check_top(stmt, path)
    roots = dsl_globals()
    for node in ast.walk(tree):
        _check_node(node, path, roots)


def _check_top(stmt: ast.stmt, path: str) -> None:
    if isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            if (stmt.module, alias.name) not in _ALLOWED_IMPORTS:
                raise InputError(path, f"import of {stmt.module}.{alias.name} refused: only the "
                                 "`from tvm.script import ...` lines TVM prints", stmt.lineno)
        return
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return  # a docstring
    if isinstance(stmt, ast.ClassDef | ast.FunctionDef) and stmt.decorator_list:
        return
    raise InputError(path, f"{type(stmt).__name__} at top level refused: a TVMScript file "
                     "holds `@I.ir_module` classes or `@T.prim_func`/`@R.function` "
                     "definitions only", stmt.lineno)


def _check_node(node: ast.AST, path: str, roots: dict[str, Any]) -> None:
    line = getattr(node, "lineno", None)
    if isinstance(node, _REFUSED_NODES):
        raise InputError(path, f"{type(node).__name__} refused: TVM's parser would evaluate "
                         "it as Python", line)
    if isinstance(node, ast.ImportFrom) and node.col_offset > 0:
        raise InputError(path, "import inside a definition refused", line)
    if isinstance(node, ast.ClassDef) and node.col_offset > 0:
        raise InputError(path, "nested class refused", line)
    if isinstance(node, ast.Name):
        if node.id.startswith("_") or node.id in _UNSAFE_BUILTINS or node.id == "tvm":
            raise InputError(path, f"name {node.id!r} refused: not TVMScript", line)
    elif isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise InputError(path, f"attribute {node.attr!r} refused: not TVMScript", line)
        _check_chain(node, path, roots)
    elif isinstance(node, ast.arg) and node.arg.startswith("_"):
        raise InputError(path, f"argument {node.arg!r} refused: not TVMScript", line)
    elif isinstance(node, ast.keyword) and node.arg is not None and node.arg.startswith("_"):
        raise InputError(path, f"keyword {node.arg!r} refused: not TVMScript", line)
    elif isinstance(node, ast.BinOp):
        _check_folding(node, path)


def _check_chain(node: ast.Attribute, path: str, roots: dict[str, Any]) -> None:
    """`T.a.b`: each module the chain passes through must be TVM's script or op code."""
    names: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        names.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name) or cur.id not in roots:
        return  # an attribute of a script value (a buffer's `.data`): IR, not Python
    obj = roots[cur.id]
    for name in reversed(names):
        obj = getattr(obj, name, None)
        if obj is None:
            return  # TVM's parser reports the unknown name itself
        if isinstance(obj, types.ModuleType) and not obj.__name__.startswith(_REACHABLE_MODULES):
            raise InputError(path, f"{cur.id}.{'.'.join(reversed(names))} reaches module "
                             f"{obj.__name__}: refused", node.lineno)


def _check_folding(node: ast.BinOp, path: str) -> None:
    for side in (node.left, node.right):
        if isinstance(side, ast.Constant) and isinstance(side.value, str | bytes):
            raise InputError(path, "arithmetic on a string constant refused", node.lineno)
    if isinstance(node.op, ast.Pow | ast.LShift):
        right = node.right
        if not (isinstance(right, ast.Constant) and isinstance(right.value, int)
                and not isinstance(right.value, bool) and abs(right.value) <= _SMALL):
            raise InputError(path, f"`{'**' if isinstance(node.op, ast.Pow) else '<<'}` with a "
                             f"right operand other than a constant up to {_SMALL} refused",
                             node.lineno)


def load_script(path: str | Path, text: str | None = None) -> Any:
    """The IRModule (or function) a TVMScript file holds, read through TVM's parser after
    `check_script`; a file TVM rejects is one line too."""
    path = str(path)
    require_tvm(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(path, f"cannot read: {err}") from None
    check_script(text, path)
    from tvm.script.parser.core.entry import parse

    try:
        return parse(text, extra_vars=dsl_globals())
    except Exception as err:  # noqa: BLE001 - TVM raises its own types for bad scripts
        first = next((line for line in str(err).splitlines() if line.strip()), type(err).__name__)
        raise InputError(path, f"TVM's parser rejects it: {first.strip()}") from None
