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
- no builder that calls a function named by a string (`T.call_extern`, the packed
  calls, `T.Call`, `R.call_pure_packed`, `R.ExternFunc`, ...): TVM's Relax pipeline
  folds constants by compiling and running a kernel at plan time;
- the decorators that start a parse (`I.ir_module`, `T.prim_func`, `R.function`)
  only as decorators, with keyword arguments;
- `**` and `<<` only with a small constant on the right and a constant (or an IR value)
  on the left, no arithmetic on strings, no `*` of a list, tuple or builtin's result (the
  parser folds constants in Python: `10**10**10` or `(((10**64)**64)**64)**64` would
  never finish, `[0] * 10**9` would take 8 GB);
- `range` only as the iterable of a `for` (what the printer writes), and no builtin
  that iterates (`max(range(10**18))`, `list(A)` of a buffer: endless);
- an attribute of a script value (a buffer's `.data`, a node's field) only from the
  fields TVM's IR classes declare and the few IR methods a script calls (`astype`,
  `vload`, ...), never one of Python's own (`"{0.__globals__}".format(f)`, `str.join`)
  nor of a constant or a builtin's result; only the module's name (`cls = Module`,
  `cls.helper`) reaches any attribute, its functions;
- no class bases or keywords (a base chooses TVM's Python-module mode), no `match`,
  no string as an annotation (TVM compiles it);

The parser then runs with only the DSL roots in scope (not the `tvm` module), and
under an audit hook (`_Guard`) that stops it at the first event a parse never
needs (opening a file, a process, a socket, a library, an import, a function's
`__globals__` or a frame): should the static rules miss a path, the script still cannot
act. What is left is TVM's own
parsing of IR, which builds IR objects and nothing else.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import inspect
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
# The aliases TVM's printer and tutorials write: any other alias would let a name the guard
# reads as one DSL (`T`) stand for another (`relax as T`).
_CANONICAL_ALIASES = {"ir": "I", "tir": "T", "tirx": "T", "relax": "R"}
# No builtin that iterates its argument: a buffer iterates forever (`__getitem__` never ends).
_SAFE_BUILTINS = {"range", "int", "float", "bool", "str", "len", "abs", "True", "False", "None",
                  "Ellipsis"}
_UNSAFE_BUILTINS = set(dir(builtins)) - _SAFE_BUILTINS
_DSL_ROOTS = ("I", "ir", "T", "tir", "R", "relax", "Tx", "tirx", "Axis")
# Relax operator namespaces the printer writes as `R.<ns>.<op>`.
_RELAX_NAMESPACES = ("builtin", "ccl", "grad", "image", "memory", "nn", "vision", "vm")
# Objects in the roots' namespaces that are TVM's but no IR builder: each re-enters a
# parser, keeps Python code in the module, or evaluates Python values as IR.
_REFUSED_MEMBERS = {"pyfunc", "jit", "macro", "inline", "meta_var", "constexpr",
                    "llvm_lookup_intrinsic_id", "TYPE_CHECKING", "parse", "from_source"}
# These call a function named by a string (a C symbol, a global packed
# function, an op by name): TVM's Relax pipeline folds constants by compiling and running
# a kernel at plan time, so `T.call_extern("int32", "system", "...")` in a kernel that
# `R.call_tir` calls on a constant ran a shell command under `plan --runtime tvm`.
_CALLOUTS = {"call_extern", "call_pure_extern", "call_packed", "call_cpacked",
             "call_packed_lowered", "call_cpacked_lowered", "tvm_call_packed",
             "tvm_call_cpacked", "tvm_call_packed_lowered", "tvm_call_cpacked_lowered",
             "anylist_setitem_call_packed", "anylist_setitem_call_cpacked", "call_ffi_kernel",
             "call_kernel", "call_intrin", "Call", "ExternFunc", "call_pure_packed",
             "call_dps_packed", "call_inplace_packed", "call_builtin_with_ctx", "call_py_func"}
_REFUSED_MEMBERS |= _CALLOUTS
# Decorators that start a parse of their argument: only as decorators.
_PARSE_ENTRIES = {("I", "ir_module"), ("T", "prim_func"), ("R", "function")}
_REFUSED_NODES = (
    ast.Import, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.Global, ast.Nonlocal, ast.Try, ast.Raise, ast.Delete, ast.Yield, ast.YieldFrom,
    ast.Await, ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith, ast.NamedExpr,
    ast.JoinedStr, ast.Starred, ast.Match, ast.TryStar,
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
    # `T.axis.spatial(16, i)` binds a block's iterators; the printer writes it in every block.
    axis = roots["T"].axis
    allowed["T.axis"] = {name: getattr(axis, name) for name in vars(axis)
                         if not name.startswith("_") and _tvm_builder(getattr(axis, name))}
    # `Axis.laneid` is made by the metaclass for any name the class does not define;
    # a name it defines (`get`, `reg_dict`) is Python, not an axis.
    allowed["Axis"] = {name: None for name in dir(Axis)}
    return allowed


# Python's own attributes: on a script value they are a way back to Python
# (`str.format` walks attributes, `str.join` iterates a buffer forever).
_PYTHON_TYPES = (str, bytes, bytearray, int, float, complex, bool, list, tuple, dict, set,
                 frozenset, range, slice, type, object, functools.partial, types.FunctionType,
                 types.BuiltinFunctionType, types.MethodType, types.ModuleType, type(None))
# The IR methods a script calls on a value: each builds IR.
_IR_METHODS = {"astype", "vload", "vstore", "access_ptr", "offset_of", "elem_offset_of",
               "byte_offset_of", "ptr_to", "view", "local", "permute", "rearrange", "tile",
               "get_flattened_buffer", "with_dtype"}


@functools.cache
def value_attributes() -> frozenset[str]:
    """The attributes a script may take of a value: the fields TVM's IR classes declare
    (a buffer's `data`, a call's `args` excepted: Python has them too) and `_IR_METHODS`."""
    import tvm.ir
    import tvm.relax
    import tvm.tirx

    python = {name for t in _PYTHON_TYPES for name in dir(t)}
    fields = set()
    for module in (tvm.ir, tvm.tirx, tvm.relax):
        for cls in vars(module).values():
            if not isinstance(cls, type):
                continue
            for name in dir(cls):
                if name.startswith("_") or name in python:
                    continue
                try:
                    value = getattr(cls, name)
                except Exception:  # noqa: BLE001, S112 - a field readable on instances only
                    continue
                if not callable(value):
                    fields.add(name)
    return frozenset(fields | _IR_METHODS)


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
    modules = _module_names(tree)
    sequences = _sequence_names(tree)
    for node in ast.walk(tree):
        _check_node(node, path, allowed, context)
        if isinstance(node, ast.BinOp):
            _check_folding(node.left, node.op, node.right, node.lineno, path, sequences)
        elif isinstance(node, ast.AugAssign):
            _check_folding(node.target, node.op, node.value, node.lineno, path, sequences)
        if isinstance(node, ast.Attribute) and context.get(id(node)) != _BASE:
            _check_value_attribute(node, path, modules)


def _check_top(stmt: ast.stmt, path: str) -> None:
    if isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            if ((stmt.module, alias.name) not in _ALLOWED_IMPORTS
                    or alias.asname not in (None, _CANONICAL_ALIASES.get(alias.name))):
                raise InputError(path, f"import of {stmt.module}.{alias.name} refused: only the "
                                 "`from tvm.script import ...` lines TVM prints", stmt.lineno)
        return
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return  # a docstring
    if isinstance(stmt, ast.ClassDef) and (stmt.bases or stmt.keywords):
        raise InputError(path, f"class {stmt.name} with bases or keywords refused: TVM reads "
                         "a base as a Python module's", stmt.lineno)
    if isinstance(stmt, ast.ClassDef | ast.FunctionDef) and stmt.decorator_list:
        return
    raise InputError(path, f"{type(stmt).__name__} at top level refused: a TVMScript file "
                     "holds `@I.ir_module` classes or `@T.prim_func`/`@R.function` "
                     "definitions only", stmt.lineno)


_CALLED, _DECORATOR, _ANNOTATION, _BASE = "called", "decorator", "annotation", "base"
_LOOP = "loop"  # the `range` of `for i in range(n)`
_STRING_ANNOTATION = "string annotation"


def _contexts(tree: ast.AST) -> dict[int, str]:
    """How each expression node is used, for the nodes where that matters: called,
    a decorator (or the callee of one), an annotation, or the object of an attribute."""
    context: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
            context[id(node.iter.func)] = _LOOP
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


def _module_names(tree: ast.Module) -> set[str]:
    """The names that hold the module being parsed: a top-level class's name and a local
    only ever bound to one (`cls = Module`). Their attributes are the module's functions."""
    names = {stmt.name for stmt in tree.body if isinstance(stmt, ast.ClassDef)}
    bound: dict[str, bool] = {}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For) else []
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    alias = isinstance(node, ast.Assign) and target is sub and \
                        isinstance(node.value, ast.Name) and node.value.id in names
                    bound[sub.id] = bound.get(sub.id, True) and alias
    params = {a.arg for node in ast.walk(tree) if isinstance(node, ast.arguments)
              for a in node.posonlyargs + node.args + node.kwonlyargs}
    return (names | {name for name, alias in bound.items() if alias}) - params


def _mark_annotation(expr: ast.expr, context: dict[int, str]) -> None:
    # The parser evaluates an annotation to a type; the value is never bound to a name.
    for sub in ast.walk(expr):
        context.setdefault(id(sub), _ANNOTATION)
    context[id(expr)] = _ANNOTATION
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str | bytes):
        context[id(expr)] = _STRING_ANNOTATION


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
        if node.id == "range" and context.get(id(node)) != _LOOP:
            raise InputError(path, "range refused outside `for ... in range(...)`: not "
                             "TVMScript", line)
    elif isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise InputError(path, f"attribute {node.attr!r} refused: not TVMScript", line)
        _check_chain(node, path, allowed, context)
    elif isinstance(node, ast.arg) and node.arg.startswith("_"):
        raise InputError(path, f"argument {node.arg!r} refused: not TVMScript", line)
    elif isinstance(node, ast.keyword) and node.arg is not None and node.arg.startswith("_"):
        raise InputError(path, f"keyword {node.arg!r} refused: not TVMScript", line)
    elif isinstance(node, ast.Constant) and context.get(id(node)) == _STRING_ANNOTATION:
        raise InputError(path, "a string as an annotation refused: TVM compiles it as Python",
                         line)


def _check_value_attribute(node: ast.Attribute, path: str, modules: set[str]) -> None:
    """`x.data`, `cls.helper`: an attribute of something other than a DSL root."""
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        cur = cur.value
    if isinstance(cur, ast.Name) and cur.id in _DSL_ROOTS:
        return  # `T.name`, `R.nn.name`: `_check_chain` judged it
    while isinstance(cur, ast.Attribute | ast.Subscript | ast.Call):
        cur = cur.func if isinstance(cur, ast.Call) else cur.value
    if not isinstance(cur, ast.Name | ast.BinOp | ast.UnaryOp | ast.BoolOp | ast.Compare
                      | ast.IfExp) or (isinstance(cur, ast.Name) and cur.id in _SAFE_BUILTINS):
        raise InputError(path, f"attribute {node.attr!r} of a Python value refused: not "
                         "TVMScript", node.lineno)
    if isinstance(node.value, ast.Name) and node.value.id in modules:
        return  # `cls.helper`: a function of the module
    if node.attr not in value_attributes():
        raise InputError(path, f"attribute {node.attr!r} refused: not a field of TVM's IR",
                         node.lineno)


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
    elif len(names) == 2 and root == "T" and names[0] == "axis":
        obj = allowed["T.axis"].get(names[1])
    elif len(names) == 1 and root == "Axis":
        obj = "axis" if names[0] not in allowed["Axis"] else None
    elif len(names) == 1:
        obj = allowed[root].get(names[0])
    else:
        obj = None
    if obj is None and names[-1] in _CALLOUTS:
        raise InputError(path, f"{dotted} refused: it calls a function named by a string, "
                         "which TVM's constant folding would run at plan time", node.lineno)
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


def _python_sequence(expr: ast.expr, names: set[str]) -> bool:
    """A list, tuple, set or dict the parser would hold as a Python value (a literal, a
    builtin's result, a name bound to one, an item of one): `*` by an integer repeats it
    in memory."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.List | ast.Tuple | ast.Set | ast.Dict):
        return True
    if isinstance(expr, ast.Name):
        return expr.id in names
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
        and expr.func.id in _SAFE_BUILTINS


def _sequence_names(tree: ast.Module) -> set[str]:
    """Names bound (anywhere) to a Python sequence, to a fixed point: `x = (0,)`, `y = x`.
    TIR binds such a value as it is (Relax makes it a tuple of IR)."""
    names: set[str] = set()
    assigns = [node for node in ast.walk(tree) if isinstance(node, ast.Assign | ast.AnnAssign)
               and node.value is not None]
    while True:
        more = {sub.id for node in assigns if _python_sequence(node.value, names)
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                for sub in ast.walk(target) if isinstance(sub, ast.Name)} - names
        if not more:
            return names
        names |= more


def _check_folding(left: ast.expr, op: ast.operator, right: ast.expr, line: int, path: str,
                   sequences: set[str]) -> None:
    for side in (left, right):
        if isinstance(side, ast.Constant) and isinstance(side.value, str | bytes):
            raise InputError(path, "arithmetic on a string constant refused", line)
        if isinstance(op, ast.Mult) and _python_sequence(side, sequences):
            raise InputError(path, "`*` of a Python list, tuple or builtin's result refused",
                             line)
    if isinstance(op, ast.Pow | ast.LShift):
        # A Python number on the left grows with each `**`: only a bounded constant, or IR.
        ir_value = isinstance(left, ast.Name | ast.Attribute | ast.Call | ast.Subscript) \
            and not _python_sequence(left, sequences)
        if not (ir_value or (isinstance(left, ast.Constant) and isinstance(left.value, int | float)
                    and abs(left.value) <= 2**64)):
            raise InputError(path, f"`{'**' if isinstance(op, ast.Pow) else '<<'}` of "
                             "anything but a constant up to 2**64 or an IR value refused", line)
        if not (isinstance(right, ast.Constant) and isinstance(right.value, int)
                and not isinstance(right.value, bool) and abs(right.value) <= _SMALL):
            raise InputError(path, f"`{'**' if isinstance(op, ast.Pow) else '<<'}` with a "
                             f"right operand other than a constant up to {_SMALL} refused", line)


class _Guard:
    """An audit hook, armed only while TVM parses a checked script on this thread, that
    refuses every event a parse does not need. Parsing raises `builtins.id`, `compile`
    and `exec` (TVM evaluates each expression) and nothing else on the example scripts,
    the TIR corpus and the scripts of the TVM tests; anything else (a file opened, a
    process started, a library loaded, a module imported, `object.__getattr__` of a
    function's `__globals__` or a frame's `f_back`, `sys._getframe`) means the script
    reached Python it should not have, and the event raises before it happens."""

    _NEEDED = {"builtins.id", "compile", "exec"}
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


class _NoStack:
    """`inspect` as TVM's decorator factories see it during a parse, minus `stack()`.

    `@T.prim_func(private=True)`, `@R.function(pure=False)` and `@I.ir_module(...)` capture
    the caller's stack when called (`inspect.stack()` walks frames and opens their source
    files), for a decorator that a text parse never applies: the parser only asks the
    factory's result for its dispatch token. An empty stack keeps the audit hook strict."""

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)

    @staticmethod
    def stack(*_args: Any, **_kwargs: Any) -> list:
        return []


_STACK_CAPTURING = ("tvm.tirx.script.parser.entry", "tvm.script.parser.ir.entry",
                    "tvm.relax.script.parser.entry")


@contextlib.contextmanager
def _factories_without_stack():
    import importlib

    modules = [importlib.import_module(name) for name in _STACK_CAPTURING]
    saved = [module.inspect for module in modules]
    for module in modules:
        module.inspect = _NoStack()
    try:
        yield
    finally:
        for module, original in zip(modules, saved, strict=True):
            module.inspect = original


def _imports_blanked(text: str) -> str:
    """`text` with its import lines blank: TVM's parser takes none, and `check_script` has
    held them to the DSL's own modules, which `dsl_globals` binds. Lines keep their numbers."""
    lines = text.splitlines(keepends=True)
    for stmt in ast.parse(text).body:
        if isinstance(stmt, ast.ImportFrom):
            for i in range(stmt.lineno - 1, stmt.end_lineno or stmt.lineno):
                lines[i] = "\n"
    return "".join(lines)


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
    failure = None
    # A failed parse leaves TVM's BlockBuilder to be freed later, whose C++ destructor
    # logs "BlockBuilder destroyed with remaining blocks!" on fd 2. The exception's
    # traceback holds the parser's frames, and they the builder: it is freed here, once
    # the exception is gone, while fd 2 is still captured.
    with captured_stderr():
        try:
            with _factories_without_stack(), _Guard.armed(refused):
                result = parse(_imports_blanked(text), extra_vars=dsl_globals())
        except Exception as err:  # noqa: BLE001 - TVM raises its own types for bad scripts
            failure = next((line for line in str(err).splitlines() if line.strip()),
                           type(err).__name__).strip()
        if failure is not None:
            gc.collect()
    if refused:
        raise InputError(path, f"the script reached Python beyond TVMScript ({refused[0]}): "
                         "refused")
    if failure is not None:
        raise InputError(path, f"TVM's parser rejects it: {failure}")
    return result
