"""Generated TVMScript kernels for the TIR frame tests and benchmarks/tir_frames.py.

Each module holds a few PrimFuncs of the shapes that stress a stack frame: buffers around
TVM's 1024-byte rule (just under, exactly at and just over it), many small ones, buffers
declared in loop bodies and branches (nested scopes), buffers of a dynamic extent, and
several functions per module. Every buffer is written, then read backwards at the end, so
all of a function's buffers are live together and no pass can drop one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

HEADER = "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n" \
         "@I.ir_module\nclass Module:\n"
N = 64  # elements of each function's input and output


@dataclass(frozen=True)
class Buf:
    name: str
    dtype: str  # "float32" or "int8"
    elements: int
    scope: str = "body"  # "body", "loop" (declared in a loop body) or "branch" (in an if)

    @property
    def bytes(self) -> int:
        return self.elements * (4 if self.dtype == "float32" else 1)


@dataclass(frozen=True)
class Func:
    name: str
    buffers: tuple[Buf, ...]
    dynamic: bool = False  # also a buffer of the runtime extent `n`


@dataclass(frozen=True)
class CorpusModule:
    name: str
    funcs: tuple[Func, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        return HEADER + "\n".join(_func_text(f) for f in self.funcs)


def _func_text(f: Func) -> str:
    out = ["    @T.prim_func"]
    if f.dynamic:
        out += [f"    def {f.name}(a: T.handle, b: T.handle):",
                '        T.func_attr({"tir.noalias": True})',
                "        n = T.int32()",
                "        A = T.match_buffer(a, (n,))",
                "        B = T.match_buffer(b, (n,))",
                "        d = T.alloc_buffer((n,))",
                "        for i in range(n):",
                "            d[i] = A[i] * T.float32(3.0)"]
        extent = "n"
    else:
        out += [f'    def {f.name}(A: T.Buffer(({N},), "float32"), '
                f'B: T.Buffer(({N},), "float32")):',
                '        T.func_attr({"tir.noalias": True})']
        extent = str(N)
    out += [f"        for i in range({extent}):",
            # d[i], not d[n - 1 - i]: with the reversed index TVM 0.27's C code generator
            # prints a Let inside d's workspace size as a statement, C no compiler takes.
            "            B[i] = A[i]" + (" + d[i]" if f.dynamic else "")]
    body = [b for b in f.buffers if b.scope == "body"]
    for b in body:
        out.append(f'        {b.name} = T.alloc_buffer(({b.elements},), "{b.dtype}")')
    for b in body:
        out += _fill(b, "        ", extent)
    for b in body:
        out += _read(b, "        ", extent)
    for b in f.buffers:
        if b.scope == "loop":
            out += ["        for j in range(2):",
                    f'            {b.name} = T.alloc_buffer(({b.elements},), "{b.dtype}")']
            out += _fill(b, "            ", extent, "T.Cast(\"float32\", j)")
            out += _read(b, "            ", extent)
        elif b.scope == "branch":
            out += ["        if A[0] > T.float32(0.0):",
                    f'            {b.name} = T.alloc_buffer(({b.elements},), "{b.dtype}")']
            out += _fill(b, "            ", extent)
            out += _read(b, "            ", extent)
    return "\n".join(out) + "\n"


def _fill(b: Buf, indent: str, extent: str, extra: str = "T.float32(1.0)") -> list[str]:
    value = f"A[i % {extent}] * T.float32(2.0) + {extra}"
    if b.dtype != "float32":
        value = f'T.Cast("{b.dtype}", {value})'
    return [f"{indent}for i in range({b.elements}):", f"{indent}    {b.name}[i] = {value}"]


def _read(b: Buf, indent: str, extent: str) -> list[str]:
    last = b.elements - 1
    value = f"{b.name}[{last} - i % {b.elements}]"
    if b.dtype != "float32":
        value = f'T.Cast("float32", {value})'
    return [f"{indent}for i in range({extent}):", f"{indent}    B[i] = B[i] + {value}"]


# Sizes in bytes around TVM 0.27's kMaxStackAlloca (1024): under, at and over it.
AROUND_1024 = (1016, 1020, 1023, 1024, 1025, 1028, 1032)


def _buf(name: str, nbytes: int, scope: str = "body") -> Buf:
    if nbytes % 4 == 0:
        return Buf(name, "float32", nbytes // 4, scope)
    return Buf(name, "int8", nbytes, scope)


def corpus(seed: int = 0, modules: int = 6) -> list[CorpusModule]:
    """`modules` modules of one to four functions each, the same for the same seed; the
    first five cover one shape each (around 1024, many small, nested, dynamic, several)."""
    rng = random.Random(seed)
    kinds = ["around_1024", "many_small", "nested", "dynamic", "several"]
    out = []
    for m in range(modules):
        kind = kinds[m] if m < len(kinds) else rng.choice(kinds)
        count = rng.randint(2, 4) if kind == "several" else 1
        funcs = tuple(_function(rng, f"{kind}_{m}_{k}", kind if kind != "several"
                                else rng.choice(kinds[:4]))
                      for k in range(count))
        out.append(CorpusModule(f"{kind}_{m}", funcs))
    return out


def corpus_module(seed: int) -> CorpusModule:
    """One module with a function of each shape (around 1024, many small, nested, dynamic):
    several functions per module, one build per round."""
    rng = random.Random(seed)
    return CorpusModule(f"corpus_{seed}", tuple(
        _function(rng, f"{kind}_{seed}", kind)
        for kind in ("around_1024", "many_small", "nested", "dynamic")))


def _function(rng: random.Random, name: str, kind: str) -> Func:
    if kind == "around_1024":
        sizes = [rng.choice(AROUND_1024) for _ in range(rng.randint(2, 3))]
        return Func(name, tuple(_buf(f"x{i}", s) for i, s in enumerate(sizes)))
    if kind == "many_small":
        sizes = [rng.randrange(4, 200, 4) for _ in range(rng.randint(6, 16))]
        return Func(name, tuple(_buf(f"s{i}", s) for i, s in enumerate(sizes)))
    if kind == "nested":
        bufs = [_buf("x0", rng.choice(AROUND_1024)),
                _buf("w0", rng.randrange(200, 1100, 4), "loop"),
                _buf("v0", rng.randrange(100, 1000, 4), "branch")]
        return Func(name, tuple(bufs))
    sizes = [rng.randrange(64, 1100, 4) for _ in range(rng.randint(1, 3))]
    return Func(name, tuple(_buf(f"x{i}", s) for i, s in enumerate(sizes)), dynamic=True)
