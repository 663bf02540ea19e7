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


# Random modules: the shapes a held-out kernel may have, drawn from a seed. Beyond the
# corpus above: sizes around 1024 and 2048 in four dtypes, buffers in blocks (s_tir),
# declared with T.decl_buffer, in loops inside branches; fill loops serial, unrolled,
# vectorized or parallel; dynamic extents; a private helper a kernel calls (LLVM inlines
# it into its caller, whose frame then holds the helper's buffers too).
DTYPE_BYTES = {"int8": 1, "float16": 2, "float32": 4, "int64": 8}
AROUND_2048 = (2040, 2044, 2047, 2048, 2049, 2052, 2056)
AROUND_1024_WIDE = tuple(range(1020, 1031))
SCOPES = ("body", "body", "loop", "branch", "decl", "nested", "block")
LOOPS = ("serial", "unroll", "vectorized", "parallel")


@dataclass(frozen=True)
class RandBuf:
    name: str
    dtype: str
    elements: int | None  # None: the runtime extent `n`
    scope: str  # one of SCOPES
    loop: str  # the fill loop's kind, one of LOOPS

    @property
    def extent(self) -> str:
        return "n" if self.elements is None else str(self.elements)


@dataclass(frozen=True)
class RandFunc:
    name: str
    buffers: tuple[RandBuf, ...]
    dynamic: bool  # inputs of the runtime extent `n`
    helper: str | None = None  # the private helper this kernel calls
    private: bool = False  # a helper: handle parameters, called by a kernel


@dataclass(frozen=True)
class RandModule:
    name: str
    funcs: tuple[RandFunc, ...]

    @property
    def text(self) -> str:
        return HEADER + "\n".join(_rand_func_text(f) for f in self.funcs)

    @property
    def s_tir(self) -> bool:
        """A function with blocks (parsed as s_tir)."""
        return any(b.scope == "block" for f in self.funcs for b in f.buffers)

    @property
    def calls(self) -> bool:
        return any(f.helper for f in self.funcs)


def _rand_size(rng: random.Random, dtype: str) -> int:
    elem = DTYPE_BYTES[dtype]
    pick = rng.random()
    if pick < 0.35:
        nbytes = rng.choice(AROUND_1024_WIDE)
    elif pick < 0.55:
        nbytes = rng.choice(AROUND_2048)
    elif pick < 0.9:
        nbytes = rng.randrange(1, 256)
    else:
        nbytes = rng.randrange(256, 3000)
    return max(1, -(-nbytes // elem))


def _rand_buffers(rng: random.Random, count: int, dynamic: bool,
                  allow_block: bool) -> tuple[RandBuf, ...]:
    out = []
    for i in range(count):
        dtype = rng.choice(list(DTYPE_BYTES))
        scope = rng.choice(SCOPES if allow_block else SCOPES[:-1])
        elements = None if dynamic and rng.random() < 0.2 else _rand_size(rng, dtype)
        loop = rng.choice(LOOPS)
        if elements is None or elements % 4:
            loop = rng.choice(("serial", "parallel"))
        out.append(RandBuf(f"b{i}", dtype, elements, scope, loop))
    if allow_block and any(b.scope == "block" for b in out):
        # An s_tir function keeps every buffer in its blocks.
        out = [RandBuf(b.name, b.dtype, b.elements, "block", b.loop) for b in out]
    return tuple(out)


def random_module(seed: int) -> RandModule:
    """One to four kernels (and perhaps a private helper one of them calls), the same for
    the same seed."""
    rng = random.Random(seed)
    funcs: list[RandFunc] = []
    helper = None
    if rng.random() < 0.25:
        # TVM 0.27 builds a private function only when it needs no workspace ("Unknown
        # device id"): buffers under 1024 bytes, no parallel loop.
        bufs = tuple(RandBuf(f"h{i}", "float32", rng.choice((250, 255, rng.randrange(1, 64))),
                             rng.choice(("body", "loop", "branch")), "serial")
                     for i in range(rng.randint(1, 2)))
        helper = RandFunc(f"helper_{seed}", bufs, False, private=True)
        funcs.append(helper)
    for k in range(rng.randint(1, 4)):
        dynamic = rng.random() < 0.25
        small = rng.random() < 0.2
        count = rng.randint(6, 14) if small else rng.randint(1, 4)
        bufs = _rand_buffers(rng, count, dynamic, allow_block=not dynamic and k == 0)
        if small:
            bufs = tuple(RandBuf(b.name, b.dtype, rng.randrange(1, 64) if b.elements else None,
                                 b.scope, b.loop if b.elements is None else "serial")
                         for b in bufs)
        # Not from a block: a call passing `A.data` hides the access region blocks need.
        calls = helper.name if helper is not None and k == 0 and not dynamic \
            and all(b.scope != "block" for b in bufs) else None
        funcs.append(RandFunc(f"k{k}_{seed}", bufs, dynamic, calls))
    return RandModule(f"random_{seed}", tuple(funcs))


def _cast(dtype: str, value: str) -> str:
    return value if dtype == "float32" else f'T.Cast("{dtype}", {value})'


def _rand_fill(b: RandBuf, indent: str, src: str, src_extent: str, salt: int) -> list[str]:
    value = _cast(b.dtype, f"{src}[i % {src_extent}] * T.float32({salt + 2}.0) "
                           f"+ T.float32(1.0)")
    ext = b.extent
    if b.loop in ("unroll", "vectorized"):
        kind = "T.unroll" if b.loop == "unroll" else "T.vectorized"
        value = value.replace("[i %", "[(o * 4 + u) %")
        return [f"{indent}for o in range({b.elements // 4}):",
                f"{indent}    for u in {kind}(4):",
                f"{indent}        {b.name}[o * 4 + u] = {value}"]
    loop = "T.parallel" if b.loop == "parallel" else "range"
    return [f"{indent}for i in {loop}({ext}):", f"{indent}    {b.name}[i] = {value}"]


def _rand_read(b: RandBuf, indent: str, out_extent: str) -> list[str]:
    ext = b.extent
    # Backwards: the last element first, so every byte stays live.
    index = f"{ext} - 1 - i % {ext}"
    value = f"{b.name}[{index}]"
    if b.dtype != "float32":
        value = f'T.Cast("float32", {value})'
    return [f"{indent}for i in range({out_extent}):", f"{indent}    B[i] = B[i] + {value}"]


def _rand_alloc(b: RandBuf) -> str:
    call = "T.decl_buffer" if b.scope == "decl" else \
        "T.sblock_alloc_buffer" if b.scope == "block" else "T.alloc_buffer"
    return f'{b.name} = {call}(({b.extent},), "{b.dtype}")'


def _rand_func_text(f: RandFunc) -> str:
    deco = "    @T.prim_func(private=True)" if f.private else \
        "    @T.prim_func(s_tir=True)" if any(b.scope == "block" for b in f.buffers) \
        else "    @T.prim_func"
    out = [deco]
    ext = "n" if f.dynamic else str(N)
    if f.private:
        out += [f'    def {f.name}(a: T.handle("float32"), b: T.handle("float32")):',
                f'        A = T.decl_buffer(({N},), "float32", data=a)',
                f'        B = T.decl_buffer(({N},), "float32", data=b)']
    elif f.dynamic:
        out += [f"    def {f.name}(a: T.handle, b: T.handle):",
                '        T.func_attr({"tir.noalias": True})',
                "        n = T.int32()",
                "        A = T.match_buffer(a, (n,))",
                "        B = T.match_buffer(b, (n,))"]
    else:
        out += [f'    def {f.name}(A: T.Buffer(({N},), "float32"), '
                f'B: T.Buffer(({N},), "float32")):',
                '        T.func_attr({"tir.noalias": True})']
    out += [f"        for i in range({ext}):", "            B[i] = A[i]"]
    ind = "        "
    if any(b.scope == "block" for b in f.buffers):
        out.append(f'{ind}with T.sblock("root"):')
        ind += "    "
        half = (len(f.buffers) + 1) // 2
        outer, inner = f.buffers[:half], f.buffers[half:]
        out += [ind + _rand_alloc(b) for b in outer]
        for k, b in enumerate(outer):
            out += _rand_fill(b, ind, "A", ext, k)
        if inner:
            out.append(f'{ind}with T.sblock("inner"):')
            ind2 = ind + "    "
            out += [ind2 + _rand_alloc(b) for b in inner]
            for k, b in enumerate(inner):
                out += _rand_fill(b, ind2, "A", ext, k)
            for b in inner:
                out += _rand_read(b, ind2, ext)
        for b in outer:
            out += _rand_read(b, ind, ext)
    else:
        body = [b for b in f.buffers if b.scope in ("body", "decl")]
        out += [ind + _rand_alloc(b) for b in body]
        for k, b in enumerate(body):
            out += _rand_fill(b, ind, "A", ext, k)
        for b in body:
            out += _rand_read(b, ind, ext)
        for k, b in enumerate(f.buffers):
            if b.scope == "loop":
                out += [f"{ind}for j in range(2):", f"{ind}    {_rand_alloc(b)}"]
                out += _rand_fill(b, ind + "    ", "A", ext, k)
                out += _rand_read(b, ind + "    ", ext)
            elif b.scope == "branch":
                out += [f"{ind}if A[0] > T.float32(0.0):", f"{ind}    {_rand_alloc(b)}"]
                out += _rand_fill(b, ind + "    ", "A", ext, k)
                out += _rand_read(b, ind + "    ", ext)
            elif b.scope == "nested":
                out += [f"{ind}for j in range(2):",
                        f"{ind}    if A[j] > T.float32(0.0):",
                        f"{ind}        {_rand_alloc(b)}"]
                out += _rand_fill(b, ind + "        ", "A", ext, k)
                out += _rand_read(b, ind + "        ", ext)
    if f.helper:
        out.append(f"{ind}Module.{f.helper}(A.data, B.data)")
    return "\n".join(out) + "\n"
