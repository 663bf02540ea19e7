"""Read TVMScript text (what `IRModule.script()` prints) without running its code.

TVM's parser (`tvm.script.parser.core.entry.parse`) does not interpret a fixed
grammar: it hands each expression of the script to Python's `eval` (and each
assignment target to `exec`), with TVM's modules and Python's builtins in scope.
A script is therefore a program. Refusing modules by name is not enough: TVM's
script modules import `pathlib.Path`, their own parser, `print`, `copy.deepcopy`
and some 1,400 other callables an attribute chain can reach
(`T.external_kernel.Path("/f").write_text(...)`). So `check_script` works from
an allow-list of resolved objects, and refuses everything else with one line
naming the place:

- at top level: the printer's `from tvm.script import ...` lines, docstrings and
  comments, and `@I.ir_module` classes / `@T.prim_func` / `@R.function` definitions;
- no imports elsewhere, no lambdas, comprehensions, f-strings, `global`, `try`,
  `raise`, `del`, `yield`, `await`, walrus, nested classes;
- no name or attribute beginning with `_` (dunders are the way out of any sandbox),
  no Python builtin but a few harmless ones (`range`, `int`, ...), and no attribute
  of those builtins (`str.format` and friends);
- a DSL root (`T`, `R`, `I`, `Tx`, `Axis`) appears only as `root.name` or, for the
  Relax operator namespaces the printer uses (`R.nn`, `R.memory`, ...),
  `root.ns.name`, and the object that names must be one of `allowed_objects()`:
  TVM's IR builders and operators, not the helpers their modules import, not a
  parser entry (`I.entry.parse` would read a string as a new script), not
  `I.pyfunc`, macros, `meta_var` or the GPU namespaces; a class among them is only
  called or used as an annotation, never bound to a name whose attributes could
  then be reached;
- the decorators that start a parse (`I.ir_module`, `T.prim_func`, `R.function`)
  only as decorators, with keyword arguments;
- `**` and `<<` only with a small constant on the right, no arithmetic on strings
  (the parser folds constants in Python: `10**10**10` would never finish).

The parser then runs with only the DSL roots in scope (not the `tvm` module), and
under an audit hook (`_Guard`) that stops it at the first event a parse never
needs (opening a file, a process, a socket, a library, an import): should the
static rules miss a path, the script still cannot act. What is left is TVM's own
parsing of IR, which builds IR objects and nothing else.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import sys
import threading
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
# Relax operator namespaces the printer writes as `R.<ns>.<op>`.
_RELAX_NAMESPACES = ("builtin", "ccl", "grad", "image", "memory", "nn", "vision", "vm")
# Objects in the roots' namespaces that are TVM's but no IR builder: each re-enters a
# parser, keeps Python code in the module, or evaluates Python values as IR.
_REFUSED_MEMBERS = {"pyfunc", "jit", "macro", "inline", "meta_var", "constexpr",
                    "llvm_lookup_intrinsic_id", "TYPE_CHECKING", "parse", "from_source"}
# Decorators that start a parse of their argument: only as decorators.
_PARSE_ENTRIES = {("I", "ir_module"), ("T", "prim_func"), ("R", "function")}
_REFUSED_NODES = (
    ast.Import, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.Global, ast.Nonlocal, ast.Try, ast.Raise, ast.Delete, ast.Yield, ast.YieldFrom,
    ast.Await, ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith, ast.NamedExpr,
    ast.JoinedStr, ast.Starred,
)
_SMALL = 64  # the largest right operand of `**` / `<<` a script may fold
_ROOT_ALIASES = {"ir": "I", "tir": "T", "relax": "R", "tirx": "Tx"}


def dsl_globals() -> dict[str, Any]:
    """The names TVM's parser may resolve: the DSL roots, nothing else."""
    from tvm.script.parser.core.entry import _default_globals

    return {k: v for k, v in _default_globals().items() if k in _DSL_ROOTS}


def _tvm_builder(obj: Any) -> bool:
    """TVM's own IR builder, operator or IR class, judged on the object itself (a
    `functools.partial` by the function it wraps)."""
    if isinstance(obj, functools.partial):
        obj = obj.func
    if isinstance(obj, types.ModuleType):
        return False
    module = getattr(obj, "__module__", None) or ""
    if not module.startswith("tvm.") or module.startswith("tvm.backend."):
        return False
    # The GPU namespaces (`T.cuda`, `T.ptx`) are instances whose attributes reach further.
    return callable(obj) or isinstance(obj, type)


@functools.cache
def allowed_objects() -> dict[str, dict[str, Any]]:
    """`{"T": {"alloc_buffer": obj, ...}, "R.nn": {...}}`: every object a script may
    name, by the dotted path it is named with (for "Axis", the names it may not use)."""
    from tvm.tirx.layout import Axis

    roots = dsl_globals()
    allowed: dict[str, dict[str, Any]] = {}
    for root in ("I", "T", "R", "Tx"):
        module = roots[root]
        allowed[root] = {name: obj for name, obj in vars(module).items()
                         if not name.startswith("_") and name not in _REFUSED_MEMBERS
                         and _tvm_builder(obj)}
    for ns in _RELAX_NAMESPACES:
        module = getattr(roots["R"], ns)
        allowed[f"R.{ns}"] = {name: obj for name, obj in vars(module).items()
                              if not name.startswith("_") and _tvm_builder(obj)
                              and getattr(obj, "__module__", "").startswith(module.__name__)}
    # `Axis.laneid` is made by the metaclass for any name the class does not define;
    # a name it defines (`get`, `reg_dict`) is Python, not an axis.
    allowed["Axis"] = {name: None for name in dir(Axis)}
    return allowed


def check_script(text: str, path: str) -> None:
    """Raise `InputError` at the first construct outside what the printer emits."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as err:
        raise InputError(path, f"not TVMScript: {err.msg}", err.lineno) from None
    except (ValueError, RecursionError, MemoryError) as err:
        raise InputError(path, f"not TVMScript: {type(err).__name__}") from None
    for stmt in tree.body:
        _check_top(stmt, path)
    allowed = allowed_objects()
    context = _contexts(tree)
    for node in ast.walk(tree):
        _check_node(node, path, allowed, context)


def _check_top(stmt: ast.stmt, path: str) -> None:
    if isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            if (stmt.module, alias.name) not in _ALLOWED_IMPORTS or alias.asname:
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


_CALLED, _DECORATOR, _ANNOTATION, _BASE = "called", "decorator", "annotation", "base"


def _contexts(tree: ast.AST) -> dict[int, str]:
    """How each expression node is used, for the nodes where that matters: called,
    a decorator (or the callee of one), an annotation, or the object of an attribute."""
    context: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            context.setdefault(id(node.func), _CALLED)
        elif isinstance(node, ast.Attribute):
            context[id(node.value)] = _BASE
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            for deco in node.decorator_list:
                context[id(deco)] = _DECORATOR
                if isinstance(deco, ast.Call):
                    context[id(deco.func)] = _DECORATOR
        if isinstance(node, ast.FunctionDef):
            for arg in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
                if arg.annotation is not None:
                    _mark_annotation(arg.annotation, context)
            if node.returns is not None:
                _mark_annotation(node.returns, context)
        elif isinstance(node, ast.AnnAssign):
            _mark_annotation(node.annotation, context)
    return context


def _mark_annotation(expr: ast.expr, context: dict[int, str]) -> None:
    # The parser evaluates an annotation to a type; the value is never bound to a name.
    for sub in ast.walk(expr):
        context.setdefault(id(sub), _ANNOTATION)
    context[id(expr)] = _ANNOTATION


def _check_node(node: ast.AST, path: str, allowed: dict[str, dict[str, Any]],
                context: dict[int, str]) -> None:
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
        if node.id in _DSL_ROOTS and context.get(id(node)) != _BASE:
            raise InputError(path, f"{node.id} used as a value refused: not TVMScript", line)
    elif isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise InputError(path, f"attribute {node.attr!r} refused: not TVMScript", line)
        _check_chain(node, path, allowed, context)
    elif isinstance(node, ast.arg) and node.arg.startswith("_"):
        raise InputError(path, f"argument {node.arg!r} refused: not TVMScript", line)
    elif isinstance(node, ast.keyword) and node.arg is not None and node.arg.startswith("_"):
        raise InputError(path, f"keyword {node.arg!r} refused: not TVMScript", line)
    elif isinstance(node, ast.BinOp):
        _check_folding(node, path)


def _check_chain(node: ast.Attribute, path: str, allowed: dict[str, dict[str, Any]],
                 context: dict[int, str]) -> None:
    """`T.a` / `R.nn.a`: the object named must be on the allow-list, and used as its
    kind allows."""
    if context.get(id(node)) == _BASE:
        return  # the outer attribute of the chain is the one judged
    names: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        names.append(cur.attr)
        cur = cur.value
    names.reverse()
    if not isinstance(cur, ast.Name):
        return  # an attribute of a call's result (IR) or a subscript: see `_Guard`
    if cur.id in _SAFE_BUILTINS:
        raise InputError(path, f"attribute of builtin {cur.id!r} refused: not TVMScript",
                         node.lineno)
    if cur.id not in _DSL_ROOTS:
        return  # an attribute of a script value (a buffer's `.data`): IR, not Python
    root = _ROOT_ALIASES.get(cur.id, cur.id)
    dotted = ".".join([cur.id, *names])
    if len(names) == 2 and root == "R" and names[0] in _RELAX_NAMESPACES:
        obj = allowed[f"R.{names[0]}"].get(names[1])
    elif len(names) == 1 and root == "Axis":
        obj = "axis" if names[0] not in allowed["Axis"] else None
    elif len(names) == 1:
        obj = allowed[root].get(names[0])
    else:
        obj = None
    if obj is None:
        raise InputError(path, f"{dotted} refused: not one of the IR builders and "
                         "operators TVMScript names", node.lineno)
    use = context.get(id(node))
    if (root, names[-1]) in _PARSE_ENTRIES and len(names) == 1:
        if use != _DECORATOR:
            raise InputError(path, f"{dotted} refused outside a decorator: it parses its "
                             "argument", node.lineno)
        return
    if isinstance(obj, type) and use not in (_CALLED, _ANNOTATION, _DECORATOR):
        raise InputError(path, f"{dotted} used as a value refused: a class is only called "
                         "or used as an annotation", node.lineno)


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


class _Guard:
    """An audit hook, armed only while TVM parses a checked script on this thread, that
    refuses every event a parse does not need. Parsing raises `builtins.id`, `compile`
    and `exec` (TVM evaluates each expression), `object.__getattr__`/`__setattr__`
    and `sys._getframe` (its own bookkeeping); anything else (a file opened, a process
    started, a library loaded, a module imported) means the script reached Python it
    should not have, and the event raises before it happens."""

    _NEEDED = {"builtins.id", "compile", "exec", "object.__getattr__",
               "object.__setattr__", "sys._getframe"}
    _installed = False
    _lock = threading.Lock()
    _armed: dict[int, list[str]] = {}

    @classmethod
    def install(cls) -> None:
        with cls._lock:
            if not cls._installed:
                sys.addaudithook(cls._hook)
                cls._installed = True

    @classmethod
    def _hook(cls, event: str, args: tuple) -> None:
        seen = cls._armed.get(threading.get_ident())
        if seen is None or event in cls._NEEDED:
            return
        seen.append(event)
        raise PermissionError(f"memplan: {event} refused while reading TVMScript")

    @classmethod
    @contextlib.contextmanager
    def armed(cls, refused: list[str]):
        """Arm the hook on this thread; the events it refused are appended to `refused`."""
        cls.install()
        cls._armed[threading.get_ident()] = refused
        try:
            yield
        finally:
            del cls._armed[threading.get_ident()]


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
    import gc

    from tvm.script.parser.core.entry import parse

    from ..native_stderr import captured_stderr

    refused: list[str] = []
    try:
        # A failed parse leaves TVM's BlockBuilder to be freed later, whose C++ destructor
        # logs "BlockBuilder destroyed with remaining blocks!" on fd 2: freed here, unheard.
        with captured_stderr(), _Guard.armed(refused):
            try:
                result = parse(text, extra_vars=dsl_globals())
            except Exception:
                gc.collect()
                raise
    except Exception as err:  # noqa: BLE001 - TVM raises its own types for bad scripts
        if not refused:
            first = next((line for line in str(err).splitlines() if line.strip()),
                         type(err).__name__)
            raise InputError(path, f"TVM's parser rejects it: {first.strip()}") from None
    if refused:
        raise InputError(path, f"the script reached Python beyond TVMScript ({refused[0]}): "
                         "refused")
    return result
