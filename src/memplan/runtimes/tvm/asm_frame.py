"""A function's stack frame read from the assembly TVM built (`inspect_source("asm")`).

The frame is what the prologue reserves: the registers it pushes, the constants it
subtracts from the stack pointer (an immediate, or a register the prologue loaded with
one), and the most a realignment of the stack pointer can add, up to the first
instruction that is none of these. On x86-64 the return address the call pushed is not
counted; on Arm the link register the prologue pushes is. A realignment to A bytes adds
up to A less the alignment the ABI guarantees at that point (AAPCS: 8 at a call, x86-64
SysV: 16 before the call): the frame counts that worst case. A prologue that moves the
stack pointer by an amount it did not load as a constant (a dynamic alloca) has no
constant frame: `None`.
"""

from __future__ import annotations

import re

_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")
_DIRECTIVE = re.compile(r"^\s*\.")
# Arm (Thumb-2): push {r4, r5, r7, lr}; vpush {d8-d15}; sub sp, #24; sub.w / subw sp, sp, #N
_ARM_PUSH = re.compile(r"^\s*(v?push)(?:\.w)?\s*\{([^}]*)\}")
_ARM_SUB = re.compile(r"^\s*sub(?:\.w|w|s)?\s+sp,\s*(?:sp,\s*)?#(\d+)")
_ARM_SUB_REG = re.compile(r"^\s*sub(?:\.w|s)?\s+sp,\s*(?:sp,\s*)?(r\d+)")
_ARM_STR_PRE = re.compile(r"^\s*str(?:\.w)?\s+\w+,\s*\[sp,\s*#-(\d+)\]!")
_ARM_MOVW = re.compile(r"^\s*mov(?:w|\.w|s)?\s+(r\d+),\s*#(\d+)")
_ARM_MOVT = re.compile(r"^\s*movt\s+(r\d+),\s*#(\d+)")
_ARM_REALIGN = re.compile(r"^\s*bfc\s+r\d+,\s*#0,\s*#(\d+)")
_ARM_KEEP = re.compile(r"^\s*(add\s+r7,\s*sp|mov\s+r7,\s*sp|mov\s+r\d+,\s*sp|mov\s+sp,\s*r\d+)")
# x86-64 (AT&T): pushq %rbx; subq $N, %rsp; movq %rsp, %rbp; andq $-64, %rsp
_X86_PUSH = re.compile(r"^\s*pushq\s+%\w+")
_X86_SUB = re.compile(r"^\s*subq\s+\$(\d+),\s*%rsp")
_X86_REALIGN = re.compile(r"^\s*andq\s+\$-(\d+),\s*%rsp")
_X86_KEEP = re.compile(r"^\s*(movq\s+%rsp,\s*%rbp|endbr64)")
ARM_CALL_ALIGNMENT = 8  # AAPCS: sp is 8-aligned at a public interface
X86_CALL_ALIGNMENT = 16  # SysV x86-64: rsp + 8 is 16-aligned at entry


def realignment_padding(alignment: int, guaranteed: int, below: int) -> int:
    """The most bytes rounding the stack pointer down to `alignment` can add, when it is
    `below` bytes under an address known to be `guaranteed`-aligned."""
    if alignment <= guaranteed:
        return 0
    return alignment - guaranteed + (-below) % guaranteed


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
    """Bytes the prologue reserves, or None when it moves the stack by an unknown amount."""
    parts = prologue_parts(body)
    return None if parts is None else parts[0] + parts[1]


def prologue_parts(body: list[str]) -> tuple[int, int] | None:
    """What the prologue reserves apart from realignment, and the most realignment adds
    (LLVM's own frame size counts the first only: `llvm_frames`); None as `prologue_frame`."""
    frame = realigned = 0
    constants: dict[str, int] = {}  # registers the prologue loaded with a constant
    for line in body:
        # Comments: `@` on Arm; `#` on x86-64 only (an Arm immediate is `#N`).
        text = line.split("@")[0]
        if "%" in text:
            text = text.split("#", 1)[0]
        if not text.strip() or _DIRECTIVE.match(text) or _LABEL.match(text):
            continue
        if m := _ARM_PUSH.match(text):
            word = 8 if m.group(1) == "vpush" and "d" in m.group(2) else 4
            frame += word * _register_count(m.group(2))
        elif m := _ARM_SUB.match(text):
            frame += int(m.group(1))
        elif m := _ARM_SUB_REG.match(text):
            if m.group(1) not in constants:
                return None
            frame += constants[m.group(1)]
        elif m := _ARM_STR_PRE.match(text):
            frame += int(m.group(1))
        elif m := _ARM_MOVT.match(text):
            constants[m.group(1)] = constants.get(m.group(1), 0) & 0xFFFF | int(m.group(2)) << 16
        elif m := _ARM_MOVW.match(text):
            constants[m.group(1)] = int(m.group(2))
        elif m := _ARM_REALIGN.match(text):
            realigned += realignment_padding(1 << int(m.group(1)), ARM_CALL_ALIGNMENT, frame)
        elif _X86_PUSH.match(text):
            frame += 8
        elif m := _X86_SUB.match(text):
            frame += int(m.group(1))
        elif m := _X86_REALIGN.match(text):
            # `below` counts the return address: rsp + 8 is the aligned address.
            realigned += realignment_padding(int(m.group(1)), X86_CALL_ALIGNMENT, frame + 8)
        elif _ARM_KEEP.match(text) or _X86_KEEP.match(text):
            continue
        else:
            break
    return frame, realigned


def has_symbol(asm: str, function: str) -> bool:
    """Whether PrimFunc `function` has code of its own in the assembly (a private function
    LLVM inlined into all its callers has none)."""
    return any(function_lines(asm, s) is not None for s in (f"__tvm_ffi_{function}", function))


def symbol_of(asm: str, function: str) -> str | None:
    """The symbol PrimFunc `function`'s code has: its packed-API one, else its own."""
    return next((s for s in (f"__tvm_ffi_{function}", function)
                 if function_lines(asm, s) is not None), None)


def parts_of(asm: str, function: str) -> tuple[int, int] | None:
    """`prologue_parts` of PrimFunc `function`'s code (None where `frame_of` is None)."""
    symbol = symbol_of(asm, function)
    return None if symbol is None else prologue_parts(function_lines(asm, symbol) or [])


def frame_of(asm: str, function: str) -> int | None:
    """The frame of PrimFunc `function`: its packed-API symbol (`__tvm_ffi_<name>`), else
    the plain symbol. None when neither is in the assembly or the frame is not constant."""
    for symbol in (f"__tvm_ffi_{function}", function):
        body = function_lines(asm, symbol)
        if body is not None:
            return prologue_frame(body)
    return None
