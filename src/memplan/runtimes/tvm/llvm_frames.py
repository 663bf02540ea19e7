"""Each function's frame as LLVM itself counts it: the second source for LLVM targets.

`asm_frame` reads a frame from the prologue TVM's LLVM printed, a parser of memplan's own.
This module asks LLVM: the module's IR (`inspect_source("ll")`) gets the function attribute
`"warn-stack-size"="0"` and is compiled again by TVM's own LLVM (`tvm.runtime.load_module`
of the `.ll`: same LLVM, same target, read from the IR's `tvm_target` flag). LLVM's
prologue/epilogue inserter then reports every function with a frame: "stack frame size
(N) exceeds limit (0) in function 'F'", N being the frame it laid out (pushed registers,
spills, locals). TVM 0.27 cannot ask for `.stack_sizes` (`-stack-size-section` is an
option of LLVM's tools, not of its libraries: TVM's `cl-opt` ignores it), so the warning
is the figure's carrier. TVM prints a private helper as `define private dllexport`,
which LLVM's parser refuses (a local symbol cannot be exported); the storage class means
nothing on ELF, so it is dropped. The assembly of the second compile must be the
assembly TVM built, character for character, or the figures are not given: they would
be of other code.

What LLVM counts is the frame before any dynamic realignment: a prologue that rounds the
stack pointer down (`bfc`, `andq`) may add up to the alignment less the ABI's guarantee,
which `asm_frame` adds as a worst case and LLVM does not. The two agree when the
assembly's frame less that realignment is LLVM's figure. A function with a dynamic alloca
has no constant frame in the assembly; LLVM still reports its static part.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCE = "LLVM's own frame size (warn-stack-size)"
_ATTRIBUTE_GROUP = re.compile(r"^(attributes #\d+ = \{)", re.MULTILINE)
_DEFINE = re.compile(r'^define [^@]*@"?([^"(]+)"?\(.*\)([^{]*)\{', re.MULTILINE)
_LOCAL_EXPORT = re.compile(r"^define (private|internal) dllexport ", re.MULTILINE)
_WARNING = re.compile(r"stack frame size \((\d+)\) exceeds limit \(0\) in function '([^']+)'")


@dataclass(frozen=True)
class LlvmFrames:
    frames: dict[str, int]  # symbol -> bytes, for every function defined with the attribute
    unread: str | None = None  # why there is no figure, when there is none


def with_stack_warnings(ll: str) -> tuple[str, frozenset[str]]:
    """`ll` with every attribute group asking for LLVM's frame-size warning, and the
    functions it then covers: those whose definition names an attribute group (a
    function without one gets no warning, so no figure)."""
    covered = frozenset(m.group(1) for m in _DEFINE.finditer(ll) if "#" in m.group(2))
    ll = _LOCAL_EXPORT.sub(r"define \1 ", ll)
    return _ATTRIBUTE_GROUP.sub(r'\1 "warn-stack-size"="0"', ll), covered


def parse_warnings(stderr: str, covered: frozenset[str]) -> dict[str, int]:
    """LLVM's figure per covered function: a covered function it did not warn about has an
    empty frame (the warning is for a frame over 0 bytes)."""
    frames = dict.fromkeys(covered, 0)
    for m in _WARNING.finditer(stderr):
        frames[m.group(2)] = int(m.group(1))
    return frames


@contextmanager
def _native_stderr(path: Path) -> Iterator[None]:
    """File descriptor 2 into `path`: LLVM writes its warnings to it from C++, where
    Python's `sys.stderr` does not reach."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with path.open("wb") as sink:
            os.dup2(sink.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def llvm_frames(lib: Any) -> LlvmFrames:
    """LLVM's frame of each function of `lib`, a runtime module TVM's LLVM built."""
    import tvm

    ll, covered = with_stack_warnings(lib.inspect_source("ll"))
    with tempfile.TemporaryDirectory(prefix="memplan-ll-") as tmp:
        source, captured = Path(tmp) / "module.ll", Path(tmp) / "stderr"
        source.write_text(ll, encoding="utf-8")
        try:
            with _native_stderr(captured):
                # Code generation is lazy: asking for the assembly runs LLVM's back end.
                again = tvm.runtime.load_module(str(source)).inspect_source("asm")
        except Exception as err:  # noqa: BLE001 - TVM raises many kinds; one line for any
            text = captured.read_text(encoding="utf-8", errors="replace") \
                if captured.exists() else ""
            why = next((line.strip() for line in f"{text}\n{err}".splitlines()
                        if "error" in line), type(err).__name__)
            return LlvmFrames({}, f"TVM's LLVM did not compile its own IR again: {why[:200]}")
        text = captured.read_text(encoding="utf-8", errors="replace")
    if again != lib.inspect_source("asm"):
        return LlvmFrames({}, "TVM's LLVM compiled its own IR again into other code")
    # Whatever else LLVM or TVM said is theirs to say: pass it on.
    rest = "".join(line for line in text.splitlines(keepends=True)
                   if not _WARNING.search(line))
    if rest.strip():
        sys.stderr.write(rest)
    return LlvmFrames(parse_warnings(text, covered))
