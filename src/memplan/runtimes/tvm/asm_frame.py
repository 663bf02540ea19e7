"""A function's stack frame read from the assembly TVM built (`inspect_source("asm")`).

The frame is what the prologue reserves: the registers it pushes and the constant
it subtracts from the stack pointer, up to the first instruction that is neither.
On x86-64 the return address the call pushed is not counted; on Arm the link
register the prologue pushes is. A prologue that moves the stack pointer by a
register (a dynamic alloca) has no constant frame: `None`.
"""

from __future__ import annotations

import re

_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")
_DIRECTIVE = re.compile(r"^\s*\.")
# Arm (Thumb-2): push {r4, r5, r7, lr}; vpush {d8-d15}; sub sp, #24; sub.w / subw sp, sp, #N
_ARM_PUSH = re.compile(r"^\s*(v?push)(?:\.w)?\s*\{([^}]*)\}")
_ARM_SUB = re.compile(r"^\s*sub(?:\.w|w|s)?\s+sp,\s*(?:sp,\s*)?#(\d+)")
_ARM_SUB_REG = re.compile(r"^\s*sub(?:\.w|w|s)?\s+sp,\s*(?:sp,\s*)?r\d+")
_ARM_KEEP = re.compile(r"^\s*(add\s+r7,\s*sp|mov\s+r7,\s*sp|str\s.*\[sp, #-)")
# x86-64 (AT&T): pushq %rbx; subq $N, %rsp; movq %rsp, %rbp
_X86_PUSH = re.compile(r"^\s*pushq\s+%\w+")
_X86_SUB = re.compile(r"^\s*subq\s+\$(\d+),\s*%rsp")
_X86_KEEP = re.compile(r"^\s*(movq\s+%rsp,\s*%rbp|endbr64)")


def function_lines(asm: str, symbol: str) -> list[str] | None:
    """The instructions of `symbol`, from its label to the next function label."""
    lines = asm.splitlines()
    for i, line in enumerate(lines):
        m = _LABEL.match(line)
        if m and m.group(1) == symbol:
            body = []
            for nxt in lines[i + 1:]:
                label = _LABEL.match(nxt)
                if label and not label.group(1).startswith(".L"):
                    break
                if nxt.strip().startswith(".Lfunc_end") or nxt.strip().startswith(".size"):
                    break
                body.append(nxt)
            return body
    return None


def _register_count(regs: str) -> int:
    count = 0
    for part in regs.split(","):
        part = part.strip()
        m = re.match(r"^([a-z]+)(\d+)\s*-\s*[a-z]+(\d+)$", part)
        count += int(m.group(3)) - int(m.group(2)) + 1 if m else (1 if part else 0)
    return count


def prologue_frame(body: list[str]) -> int | None:
    """Bytes the prologue reserves, or None when it moves the stack by a register."""
    frame = 0
    for line in body:
        text = line.split("@")[0]  # an Arm comment; the patterns ignore what trails
        if not text.strip() or _DIRECTIVE.match(text) or _LABEL.match(text):
            continue
        if m := _ARM_PUSH.match(text):
            word = 8 if m.group(1) == "vpush" and "d" in m.group(2) else 4
            frame += word * _register_count(m.group(2))
        elif m := _ARM_SUB.match(text):
            frame += int(m.group(1))
        elif _ARM_SUB_REG.match(text):
            return None
        elif _X86_PUSH.match(text):
            frame += 8
        elif m := _X86_SUB.match(text):
            frame += int(m.group(1))
        elif _ARM_KEEP.match(text) or _X86_KEEP.match(text):
            continue
        else:
            break
    return frame


def frame_of(asm: str, function: str) -> int | None:
    """The frame of PrimFunc `function`: its packed-API symbol (`__tvm_ffi_<name>`), else
    the plain symbol. None when neither is in the assembly or the frame is not constant."""
    for symbol in (f"__tvm_ffi_{function}", function):
        body = function_lines(asm, symbol)
        if body is not None:
            return prologue_frame(body)
    return None
