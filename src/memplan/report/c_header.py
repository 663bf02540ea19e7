"""A C header for firmware: the arena sizes to declare, the aligned arenas, the offsets.

What a plan says, in the form a firmware build consumes: `#define`s for every
size and offset (macros cost nothing in a translation unit that does not use
them, so `-Wall -Werror` stays quiet), an initializer list of the offsets in
the plan's order, and each arena as an aligned `uint8_t` array, defined in the
one translation unit that defines `<PREFIX>_DEFINE_ARENAS` and declared
`extern` everywhere else. C99, plus `__attribute__((aligned))` (GCC, Clang,
armclang), which a build for another compiler replaces by defining
`MEMPLAN_ALIGNED(n)` first. With a section (`--c-section .sram1`), each arena's
definition also carries `__attribute__((section(".sram1")))` (`MEMPLAN_SECTION(s)`,
replaceable the same way), for a linker script that puts that section in the memory
the arena belongs in.

Per-buffer offsets are macros only where something reads them: `memplan pack`'s
plan has no other home, but a runtime's model carries its own plan (TFLM's
`OfflineMemoryAllocation`, ExecuTorch's .pte, IREE's .vmfb), so `memplan plan` leaves
them out unless asked (`without_offsets`).

The names come from the header's file name: `--c-header kws_plan.h` gives
`KWS_PLAN_ARENA_SIZE` and `kws_plan_arena`. `pack_header` and
`plan_header` arrange the numbers a command already has (a runtime whose firmware
takes another form builds its own `CHeader` beside its front end); `format_c_header`
only formats.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..pack import PackResult
    from ..plan.contract import RunCheck
    from ..plan.driver import ArenaPlan, ModelPlan

# Longest identifier stem we make from a buffer's or tensor's name (C99 guarantees 31
# significant characters for external names, 63 for macros).
_MAX_STEM = 40


@dataclass(frozen=True)
class Offset:
    """One buffer inside an arena: `<PREFIX>_OFFSET_<name>`."""

    name: str  # buffer id or tensor name; made an identifier here
    offset: int
    size: int
    comment: str = ""


@dataclass(frozen=True)
class Arena:
    """One memory to declare: `<PREFIX>_<NAME>_SIZE` bytes, aligned, with its offsets."""

    name: str  # "arena", "pool_1": the array is `<prefix>_<name>`
    size: int
    alignment: int
    comment: str
    offsets: tuple[Offset, ...] = ()


@dataclass(frozen=True)
class Define:
    name: str  # after the prefix
    value: int
    comment: str


@dataclass(frozen=True)
class CHeader:
    prefix: str  # upper-case identifier stem for every name in the header
    source: str  # what the plan was made from, for the opening comment
    summary: tuple[str, ...]  # the opening comment's lines after the source
    arenas: tuple[Arena, ...]
    defines: tuple[Define, ...] = field(default_factory=tuple)
    section: str | None = None  # a linker section for every arena's definition


# A linker section name as GNU ld and LLVM lld take one in a script and as the C string of
# `section(...)` holds it without escaping: `.sram1`, `.bss.arena`, `ram2`; at most 64
# characters (ELF allows longer; firmware scripts do not use them).
SECTION_NAME = re.compile(r"\.?[A-Za-z_][A-Za-z0-9_.$]{0,63}")


def section_problem(name: str) -> str | None:
    """Why `name` cannot be an arena's section, or None when it can."""
    if SECTION_NAME.fullmatch(name) is None:
        return (f"'{name[:80]}' is not a linker section name (a letter or _ after an "
                "optional dot, then letters, digits, _, . or $; at most 65 characters)")
    return None


def without_offsets(header: CHeader) -> CHeader:
    """The header with each arena's size and alignment but no per-buffer macros."""
    return replace(header, arenas=tuple(replace(a, offsets=()) for a in header.arenas))


def prefix_for(header_path: str | Path) -> str:
    """`plans/kws_plan.h` -> `KWS_PLAN`."""
    stem = _identifier(Path(header_path).name.split(".")[0]) or "MEMPLAN"
    return f"MEMPLAN_{stem}" if stem[0].isdigit() else stem


def pack_header(result: PackResult, source: str, header_path: str | Path) -> CHeader:
    """`memplan pack --c-header`: one arena of the plan's peak, an offset per buffer."""
    problem = result.problem
    offsets = tuple(Offset(b.id, off, b.size, f"size {b.size}, live [{b.start}, {b.end})")
                    for b, off in zip(problem.buffers, result.solution.offsets, strict=True))
    alignment = max((b.alignment for b in problem.buffers), default=1)
    defines = [Define("LOWER_BOUND", result.lower_bound,
                      "most bytes live at once: no plan peaks below it")]
    if problem.capacity is not None:
        defines.append(Define("CAPACITY", problem.capacity, "bytes the plan was given"))
    return CHeader(prefix_for(header_path), source,
                   (f"{len(problem)} buffers packed at static offsets; peak {result.peak} B",),
                   (Arena("arena", result.peak, alignment, "the plan's peak", offsets),),
                   tuple(defines))


def plan_header(plan: ModelPlan, header_path: str | Path, check: RunCheck | None = None,
                alignment: int = 1) -> CHeader:
    """`memplan plan MODEL --c-header`: one array per arena the plan sizes (an ExecuTorch
    memory id or pool, an IREE pack, a Relax arena) with memplan's offsets; a runtime whose
    firmware takes another form builds its own (`FrontEnd.c_header`). Each array is aligned
    as its offsets assume and at least `alignment` (what the runtime requires)."""
    names = [n.lower() for n in _unique_names([a.name for a in plan.arenas])]
    arenas = tuple(Arena(name, a.size, arena_alignment(a, alignment),
                         f"{a.name}: lower bound {a.lower_bound} B, {a.proof.value}",
                         arena_offsets(a)) for name, a in zip(names, plan.arenas, strict=True))
    return CHeader(prefix_for(header_path), plan.view.path,
                   (f"{plan.runtime}: {len(arenas)} arena(s), {plan.total} B in all",),
                   arenas, (Define("ARENAS", len(arenas), "arenas planned"),))


def arena_alignment(arena: ArenaPlan, floor: int = 1) -> int:
    """The alignment an arena's base needs: every offset was packed assuming it (the
    packing's alignment), every buffer's own, and the runtime's `floor`."""
    return max(floor, *(b.alignment for b in arena.packing.problem.buffers),
               *(b.alignment for b in arena.buffers))


def arena_offsets(arena: ArenaPlan) -> tuple[Offset, ...]:
    """An arena's buffers at their offsets, lowest first."""
    by_key = {b.key: b for b in arena.buffers}
    return tuple(Offset(by_key[k].name, off, by_key[k].size or 0, str(k))
                 for k, off in sorted(arena.offsets.items(), key=lambda kv: kv[1])
                 if k in by_key)


# --- formatting -------------------------------------------------------------------------

def format_c_header(header: CHeader) -> str:
    p = header.prefix
    lower = p.lower()
    lines = [f"/* {_comment(header.source)}: generated by memplan; do not edit.",
             *[f" * {_comment(s)}" for s in header.summary],
             f" * Define {p}_DEFINE_ARENAS in one .c file before including this header: it",
             " * defines the arrays there and declares them everywhere else. */",
             f"#ifndef {p}_H", f"#define {p}_H", "", "#include <stdint.h>", "",
             "#ifndef MEMPLAN_ALIGNED",
             "#if defined(__GNUC__) || defined(__clang__)",
             "#define MEMPLAN_ALIGNED(n) __attribute__((aligned(n)))",
             "#else",
             '#error "define MEMPLAN_ALIGNED(n) for this compiler before including this header"',
             "#endif", "#endif", ""]
    section = ""
    if header.section is not None:
        if section_problem(header.section):
            raise ValueError(section_problem(header.section))
        section = f" MEMPLAN_SECTION({p}_SECTION)"
        lines += ["#ifndef MEMPLAN_SECTION",
                  "#if defined(__GNUC__) || defined(__clang__)",
                  "#define MEMPLAN_SECTION(name) __attribute__((section(name)))",
                  "#else",
                  '#error "define MEMPLAN_SECTION(name) for this compiler before including '
                  'this header"',
                  "#endif", "#endif",
                  "/* the linker script places this section (NOLOAD: the arena needs no "
                  "initial bytes) */",
                  f'#define {p}_SECTION "{header.section}"', ""]
    for d in header.defines:
        lines.append(f"#define {p}_{d.name} {_literal(d.value)} /* {_comment(d.comment)} */")
    if header.defines:
        lines.append("")
    for arena in header.arenas:
        a = f"{p}_{arena.name.upper()}"
        lines += [f"/* {_comment(arena.comment)} */",
                  f"#define {a}_SIZE {_literal(arena.size)}",
                  f"#define {a}_ALIGN {arena.alignment}"]
        if arena.offsets:
            lines += _offset_lines(a, arena.offsets)
        lines.append("")
    lines.append(f"#ifdef {p}_DEFINE_ARENAS")
    for arena in header.arenas:
        a = f"{p}_{arena.name.upper()}"
        lines.append(f"uint8_t {lower}_{arena.name}[{_array_size(a)}] "
                     f"MEMPLAN_ALIGNED({a}_ALIGN){section};")
    lines.append("#else")
    for arena in header.arenas:
        a = f"{p}_{arena.name.upper()}"
        lines.append(f"extern uint8_t {lower}_{arena.name}[{_array_size(a)}];")
    lines += ["#endif", "", f"#endif /* {p}_H */"]
    return "\n".join(lines) + "\n"


def _offset_lines(arena: str, offsets: Sequence[Offset]) -> list[str]:
    names = _unique_names([o.name for o in offsets])
    lines = [f"#define {arena}_COUNT {len(offsets)}",
             f"/* offsets into the arena, in the plan's order: {arena}_OFFSETS initializes "
             "an array */"]
    for name, o in zip(names, offsets, strict=True):
        note = f"{o.name}: {o.comment}" if o.comment else o.name
        lines.append(f"#define {arena}_OFFSET_{name} {_literal(o.offset)} /* {_comment(note)} */")
    body = ", ".join(f"{arena}_OFFSET_{name}" for name in names)
    lines.append(f"#define {arena}_OFFSETS {{ {body} }}")
    return lines


def _array_size(arena: str) -> str:
    # A zero-length array is not C: an empty plan still declares one byte.
    return f"({arena}_SIZE > 0 ? {arena}_SIZE : 1)"


def _identifier(text: str) -> str:
    stem = re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").upper()
    return stem[:_MAX_STEM].rstrip("_")


def _unique_names(labels: Sequence[str]) -> list[str]:
    """Identifier suffixes for the labels: their own name where it is one and unique, else
    with its position appended."""
    stems = [_identifier(label) for label in labels]
    counts: dict[str, int] = {}
    for s in stems:
        counts[s] = counts.get(s, 0) + 1
    return [s if s and counts[s] == 1 else f"{s}_{i}" if s else f"B{i}"
            for i, s in enumerate(stems)]


def _literal(value: int) -> str:
    if value < 0:
        raise ValueError(f"a size or offset is negative: {value}")
    return f"{value}u" if value < 2**32 else f"{value}ull"


def _comment(text: str) -> str:
    """Text made safe inside a C comment (no comment end, no line break, ASCII)."""
    flat = " ".join(str(text).split()).replace("*/", "* /")
    return flat.encode("ascii", "replace").decode("ascii")
