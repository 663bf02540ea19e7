"""Mutated CSV, MLIR and TOML fed to every command in one process (issue 16).

Whatever the bytes, a command ends with exit 0, 1 or 2 and no traceback,
leaves its inputs as they were, and writes nothing when it exits 2. The
examples are derandomised (the same every run, so CI is reproducible) and
few; MEMPLAN_FUZZ_EXAMPLES=N runs N random ones per format instead.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memplan.cli import main

REPO = Path(__file__).resolve().parents[1]
CSV_SEED = (REPO / "examples" / "mobilenet_blocks.294912.csv").read_text()
MLIR_SEEDS = [(REPO / "examples" / "loop_alloca.mlir").read_text(),
              (REPO / "tests" / "data" / "split_and_spaces.mlir").read_text(),
              (REPO / "examples" / "placement.mlir").read_text()]
TOML_SEED = (REPO / "examples" / "tiny_stack.toml").read_text() + (
    '\n[[pools]]\nname = "sram"\ncapacity = 4096\nreachable_by = ["cpu"]\n')

RANDOM = int(os.environ.get("MEMPLAN_FUZZ_EXAMPLES", "0"))
SETTINGS = settings(max_examples=RANDOM or 25, derandomize=not RANDOM, deadline=None,
                    suppress_health_check=list(HealthCheck), database=None)

PIECES = ["", "0", "-1", "1" * 25, str(2**63), "9" * 5000, '"', ",", "\n", "\r", "{", "}",
          "[", "]", "(", ")", "<", ">", "%", "@", "?", "=", "x", ":", "#", "//", "\x00", "é",
          "1e999", "// -----\n", "memref<", "index", "scf.for", "[[pools]]", "\n" * 50]


@st.composite
def mutated(draw: st.DrawFn, seed: str) -> str:
    text = seed
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 60)))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "number", "truncate"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(PIECES)) + text[i:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] * draw(st.integers(1, 8)) + text[j:]
        elif kind == "number":
            # Half the time a dimension of a shaped type, where sizes are computed.
            pattern = r"(?<=[<x])\d+(?=x)" if draw(st.booleans()) else r"\d+"
            numbers = list(re.finditer(pattern, text))
            if numbers:
                m = numbers[draw(st.integers(0, len(numbers) - 1))]
                big = draw(st.sampled_from(["0", "-7", str(2**40 + 1), str(2**62), str(2**63 - 1),
                                           str(2**64), "9" * 400]))
                text = text[:m.start()] + big + text[m.end():]
        else:
            text = text[:i]
    return text


def run(argv: list[str], folder: Path, inputs: list[Path]) -> None:
    """Run one command; check the exit code, the inputs and what was written."""
    before = {p: p.read_bytes() for p in inputs}
    listing = sorted(folder.iterdir())
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)  # an exception escaping here is the traceback a user would see
    assert code in (0, 1, 2), (argv, code, err.getvalue()[-500:])
    assert "Traceback" not in err.getvalue()
    for path, data in before.items():
        assert path.read_bytes() == data, f"{argv}: input {path.name} changed"
    if code == 2:
        assert sorted(folder.iterdir()) == listing, f"{argv}: wrote on exit 2"
        last = err.getvalue().strip().splitlines()[-1]
        # memplan's one line, or a parser's diagnostic as MLIR's tools print it.
        said = last.startswith("memplan: ") or re.match(r"\S.*:\d+:\d+: error: ", last)
        assert said and len(last) < 2000, (argv, last[:300])


@SETTINGS
@given(mutated(CSV_SEED), st.integers(0, 3))
def test_fuzz_csv(text: str, choice: int) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source = folder / "in.294912.csv"
        source.write_text(text, encoding="utf-8", errors="surrogatepass")
        # Drawing takes most of the time: one example in four plots.
        plot = ["--plot", str(folder / "plan.svg")] if choice == 0 else []
        run(["pack", str(source), "-o", str(folder / "plan.csv"), *plot, "--summary"],
            folder, [source])
        # The exact solver too, bounded (one example in two, alternately fit and minimise).
        exact = []
        if choice < 2:
            exact = [["--exact"], ["--minimize"]][choice] + ["--time-limit", "1"]
        run(["pack", str(source), "--json", *exact], folder, [source])


@SETTINGS
@given(st.sampled_from(MLIR_SEEDS).flatmap(mutated))
def test_fuzz_mlir(text: str) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source = folder / "in.mlir"
        source.write_text(text, encoding="utf-8", errors="surrogatepass")
        run(["check", str(source), "--target", "x86_64"], folder, [source])
        assume = ["--assume", "n<=64"] if "%n" in text else []
        run(["opt", str(source), "--target", "x86_64", *assume, "-o",
             str(folder / "out.mlir")], folder, [source])
        run(["place", str(source), "--target", "cortex-m55", "--apply", "-o",
             str(folder / "placed.mlir")], folder, [source])
        run(["copies", str(source), "--no-iree"], folder, [source])


@SETTINGS
@given(mutated(TOML_SEED))
def test_fuzz_toml(text: str) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        target = folder / "t.toml"
        target.write_text(text, encoding="utf-8", errors="surrogatepass")
        program = folder / "p.mlir"
        program.write_text(MLIR_SEEDS[0])
        run(["targets", str(target)], folder, [target, program])
        run(["check", str(program), "--target", str(target)], folder, [target, program])
        run(["opt", str(program), "--target", str(target), "--place", "-o",
             str(folder / "out.mlir")], folder, [target, program])
