"""The C header for firmware compiles as firmware builds it and carries the plan's numbers.

Each header is compiled with `gcc -Wall -Werror -std=c99` into two translation
units (one defines the arenas, one only declares them), linked, and run: the
program prints every size and offset the header gives, which must be the
plan's. Skipped where no gcc is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import REPO

from memplan.cli import main
from memplan.report.c_header import Offset, format_c_header, prefix_for

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="no gcc on this machine")
EXAMPLES = REPO / "examples"
FLAGS = ["-Wall", "-Wextra", "-Werror", "-std=c99", "-pedantic"]


def compile_and_print(header, tmp_path, lines: list[str]) -> list[str]:
    """Compile a program that includes `header` twice over (a defining and a declaring
    translation unit) and prints `lines` (printf arguments, one per line)."""
    name = header.name
    prefix = prefix_for(name)
    body = "\n".join(f'    printf("%llu\\n", (unsigned long long)({expr}));' for expr in lines)
    (tmp_path / "arenas.c").write_text(f'#define {prefix}_DEFINE_ARENAS\n#include "{name}"\n')
    (tmp_path / "main.c").write_text(
        f'#include <stdio.h>\n#include "{name}"\n\nint main(void)\n{{\n{body}\n'
        "    return 0;\n}\n")
    exe = tmp_path / "prog"
    subprocess.run([GCC, *FLAGS, "-I", str(header.parent), str(tmp_path / "main.c"),
                    str(tmp_path / "arenas.c"), "-o", str(exe)], check=True,
                   capture_output=True, text=True, timeout=60)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                          timeout=30).stdout.split()


def syntax_check(header) -> None:
    """`gcc -fsyntax-only` on the header alone, as the defining and as a declaring unit."""
    prefix = prefix_for(header.name)
    for define in ([f"-D{prefix}_DEFINE_ARENAS"], []):
        subprocess.run([GCC, "-fsyntax-only", *FLAGS, *define, "-x", "c", str(header)],
                       check=True, capture_output=True, text=True, timeout=60)


@needs_gcc
def test_pack_header_compiles_and_carries_the_plan(tmp_path, capsys):
    header = tmp_path / "mobilenet_plan.h"
    csv = EXAMPLES / "mobilenet_blocks.294912.csv"
    assert main(["pack", str(csv), "--json", "--c-header", str(header)]) == 0
    plan = json.loads(capsys.readouterr().out)
    offsets = [b["offset"] for b in plan["buffers"]]
    p = "MOBILENET_PLAN"
    out = compile_and_print(header, tmp_path, [
        f"{p}_ARENA_SIZE", "sizeof mobilenet_plan_arena", f"{p}_LOWER_BOUND",
        f"{p}_CAPACITY", f"(uintptr_t)mobilenet_plan_arena % {p}_ARENA_ALIGN",
        f"{p}_ARENA_COUNT", f"{p}_ARENA_OFFSET_B0_EXPAND", f"{p}_ARENA_OFFSET_LOGITS"])
    by_id = {b["id"]: b["offset"] for b in plan["buffers"]}
    assert [int(v) for v in out] == [plan["peak"], plan["peak"], plan["lower_bound"], 294912,
                                      0, len(offsets), by_id["b0_expand"], by_id["logits"]]
    # the initializer list holds every offset, in the CSV's order
    text = header.read_text()
    listed = text.split(f"#define {p}_ARENA_OFFSETS {{ ")[1].split(" }")[0].split(", ")
    defined = {line.split()[1]: int(line.split()[2].rstrip("u"))
               for line in text.splitlines() if line.startswith(f"#define {p}_ARENA_OFFSET_")}
    assert [defined[name] for name in listed] == offsets


@needs_gcc
def test_tflm_header_of_a_real_model_declares_the_arena_it_runs_in(tmp_path):
    """`plan MODEL.tflite -o --check-run --c-header`: the arena to declare is the one the
    planned model was measured to run in, the offsets are memplan's."""
    pytest.importorskip("tflite_micro")
    from memplan.cli import main
    from memplan.plan.contract import ReadOptions
    from memplan.plan.driver import check_run, plan_model

    model = str(EXAMPLES / "attention_block.tflite")
    header = tmp_path / "attention_arena.h"
    assert main(["plan", model, "-o", str(tmp_path / "planned.tflite"), "--summary",
                 "--c-header", str(header), "--c-offsets"]) == 0
    # The command's own time limit: a shorter one can stop the search short of the command's
    # plan on a loaded machine.
    fe, plan = plan_model(model, options=ReadOptions(write=True))
    check = check_run(fe, plan)
    arena = plan.arenas[0]
    p = "ATTENTION_ARENA"
    text = header.read_text()
    offsets = [int(line.split()[2].rstrip("u")) for line in text.splitlines()
               if line.startswith(f"#define {p}_ARENA_OFFSET_")]
    out = compile_and_print(header, tmp_path, [
        f"{p}_ARENA_SIZE", "sizeof attention_arena_arena", f"{p}_PLANNED_HEAD_SIZE",
        "(uintptr_t)attention_arena_arena % 16", f"{p}_ARENA_COUNT"])
    assert [int(v) for v in out] == [check.planned.arena, check.planned.arena, arena.size, 0,
                                      len(arena.offsets)]
    assert sorted(offsets) == sorted(arena.offsets.values())
    assert check.identical and check.planned.arena >= arena.size


def test_tflm_header_without_o_is_measured_on_a_copy(tmp_path, capsys):
    """The arena a TFLM header declares is measured by running the planned model: without
    -o the model is planned and run in memory, and only the header is written."""
    pytest.importorskip("tflite_micro")
    from memplan.cli import main

    header = tmp_path / "h.h"
    assert main(["plan", str(EXAMPLES / "attention_block.tflite"), "--c-header",
                 str(header), "--json", "--c-section", ".sram1"]) == 0
    document = json.loads(capsys.readouterr().out)
    measured = document["check"]["arenas"]["memplan"]
    text = header.read_text()
    assert f"#define H_ARENA_SIZE {measured}u" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.h"]
    # TFLM reads its offsets from the model: the header declares the arena and says where
    # it was measured, and nothing per tensor.
    assert "_OFFSET" not in text and "on a 64-bit host" in text and "32-bit MCU" in text
    assert '#define H_SECTION ".sram1"' in text
    if GCC is not None:
        syntax_check(header)


def test_tflm_header_for_kernels_that_do_not_run_here_is_refused(tmp_path, capsys):
    """The arena comes from a run: with CMSIS-NN kernels (not in TFLM's interpreter here)
    there is none, so the header is refused in one line, before any work."""
    pytest.importorskip("tflite_micro")
    model, header = EXAMPLES / "attention_block.tflite", tmp_path / "h.h"
    assert main(["plan", str(model), "--c-header", str(header), "--kernels", "cmsis-nn",
                 "--core", "cortex-m55"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"memplan: {model}: --c-header: the arena a header declares is measured by running "
        "the planned model on TFLM's interpreter, and TFLM's interpreter here runs the "
        "reference kernels only"]
    assert not header.exists()


@needs_gcc
def test_executorch_header_declares_each_planned_pool_aligned(tmp_path, capsys):
    """`plan MODEL.pt2 --c-header`: an array per planned memory id, each aligned at least
    as ExecuTorch aligns its planned buffers (16) and as memplan's offsets assume."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("executorch")

    class Small(torch.nn.Module):
        def forward(self, x):
            return (x @ x.T).relu() + x.sum()

    model = tmp_path / "small.pt2"
    torch.export.save(torch.export.export(Small(), (torch.randn(8, 8),)), str(model))
    header = tmp_path / "small_pools.h"
    assert main(["plan", str(model), "--c-header", str(header), "--time-limit", "2",
                 "--json", "--c-offsets"]) == 0
    arenas = len(json.loads(capsys.readouterr().out)["arenas"])
    p = "SMALL_POOLS"
    text = header.read_text()
    aligns = [int(line.split()[2]) for line in text.splitlines()
              if line.startswith(f"#define {p}_") and line.split()[1].endswith("_ALIGN")]
    assert aligns and all(a >= 16 and a & (a - 1) == 0 for a in aligns)
    offsets = [int(line.split()[2].rstrip("ul")) for line in text.splitlines()
               if line.startswith("#define") and "_OFFSET_" in line.split()[1]]
    assert offsets and all(o % min(aligns) == 0 for o in offsets)
    names = [line.split()[1] for line in text.splitlines()
             if line.startswith(f"#define {p}_") and line.split()[1].endswith("_SIZE")]
    arrays = [n.removeprefix(p + "_").removesuffix("_SIZE").lower() for n in names]
    out = compile_and_print(header, tmp_path, [
        f"{p}_ARENAS", *names, *[f"(uintptr_t)small_pools_{a} % 16" for a in arrays]])
    assert int(out[0]) == len(names) == arenas
    assert all(v == "0" for v in out[1 + len(names):])


def test_names_become_identifiers_and_stay_unique():
    from memplan.report.c_header import Arena, CHeader

    header = CHeader("X", "a */ b", ("line\nbreak",), (Arena("arena", 0, 8, "empty", (
        Offset("a-b", 0, 1), Offset("a b", 8, 1), Offset("", 16, 1), Offset("9x", 2**33, 1))),))
    text = format_c_header(header)
    for name in ("X_ARENA_OFFSET_A_B_0 0u", "X_ARENA_OFFSET_A_B_1 8u", "X_ARENA_OFFSET_B2 16u",
                 "X_ARENA_OFFSET_9X 8589934592ull"):
        assert f"#define {name}" in text
    assert "a * / b" in text and "line break" in text
    assert prefix_for("out/3d-plan.h") == "MEMPLAN_3D_PLAN"
    assert prefix_for("kws.plan.h") == "KWS"


@needs_gcc
def test_an_empty_plan_still_compiles(tmp_path):
    from memplan.report.c_header import Arena, CHeader

    header = tmp_path / "empty.h"
    header.write_text(format_c_header(CHeader("EMPTY", "none", (), (Arena("arena", 0, 8, ""),))))
    assert compile_and_print(header, tmp_path, ["EMPTY_ARENA_SIZE"]) == ["0"]


@needs_gcc
def test_an_arena_in_a_linker_section(tmp_path, capsys):
    """`--c-section .sram1`: the arena's definition lands in that section of the object."""
    header = tmp_path / "sram_plan.h"
    csv = EXAMPLES / "mobilenet_blocks.294912.csv"
    assert main(["pack", str(csv), "--summary", "--c-header", str(header),
                 "--c-section", ".sram1"]) == 0
    capsys.readouterr()
    syntax_check(header)
    unit = tmp_path / "arenas.c"
    unit.write_text('#define SRAM_PLAN_DEFINE_ARENAS\n#include "sram_plan.h"\n')
    subprocess.run([GCC, *FLAGS, "-c", str(unit), "-o", str(tmp_path / "arenas.o")],
                   check=True, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    objdump = shutil.which("objdump")
    if objdump is not None:
        sections = subprocess.run([objdump, "-h", str(tmp_path / "arenas.o")], check=True,
                                  capture_output=True, text=True, timeout=60).stdout
        assert " .sram1 " in sections


@pytest.mark.parametrize(("argv", "said"), [
    (["--c-header", "h.h", "--c-section", "sram 1"], "is not a linker section name"),
    (["--c-header", "h.h", "--c-section", '.a"b'], "is not a linker section name"),
    (["--c-section", ".sram1"], "add --c-header FILE.h"),
])
def test_a_bad_section_is_one_line_and_writes_nothing(tmp_path, capsys, argv, said):
    csv = EXAMPLES / "mobilenet_blocks.294912.csv"
    argv = [str(tmp_path / a) if a == "h.h" else a for a in argv]
    try:
        code = main(["pack", str(csv), "--summary", *argv])
    except SystemExit as stop:  # argparse refuses a bad value before the command runs
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and said in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []
