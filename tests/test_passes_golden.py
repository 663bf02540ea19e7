"""Golden tests per pass, the way MLIR tests its passes (lit + FileCheck), run in-process.

Every registered pass has one file, tests/passes/<pass>.mlir: inputs split by
`// -----`, each one the pass rewrites or refuses, with its expectations beside
it. The file's RUN lines say how to run it:

    // RUN: [not] memplan opt %s --target T -p PASS [ARGS...] [| filecheck PREFIXES]

`%s` is the file itself; `not` means the run must fail with exit 1 (the pass
refused something with an error), otherwise it must exit 0. The printed IR
(stdout) is matched against the CHECK lines and the diagnostics (stderr)
against the DIAG lines, by the `filecheck` package: LLVM FileCheck's syntax
(CHECK-LABEL, -NEXT, -SAME, -NOT, -DAG, {{regex}}, [[VAR:regex]] and [[VAR]],
[[# @LINE + N]] for "the line N below this one"). A RUN line ending in
`| filecheck --check-prefix=P --diag-prefix=Q` uses P and Q instead, so one
file can run its pass on several targets or with several options.
"""

from __future__ import annotations

import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from filecheck.finput import FInput
from filecheck.matcher import Matcher
from filecheck.options import Options
from filecheck.parser import Parser

from memplan.cli import main
from memplan.transforms.passes import PASSES

ROOT = Path(__file__).resolve().parents[1]
PASS_TESTS = ROOT / "tests" / "passes"


@dataclass(frozen=True)
class Run:
    """One RUN line: the `memplan opt` arguments and what to check their output with."""

    args: tuple[str, ...]
    fails: bool
    check_prefix: str = "CHECK"
    diag_prefix: str = "DIAG"


def parse_run_lines(path: Path) -> list[Run]:
    runs = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.startswith("// RUN:"):
            continue
        command, _, checker = line.removeprefix("// RUN:").partition("|")
        words = shlex.split(command)
        fails = words[:1] == ["not"]
        words = words[1:] if fails else words
        where = f"{path.name}:{number}"
        assert words[:3] == ["memplan", "opt", "%s"], f"{where}: RUN must be `memplan opt %s ...`"
        assert words[words.index("-p") + 1] == path.stem, f"{where}: RUN must run -p {path.stem}"
        prefixes = {}
        if checker:
            head, *options = shlex.split(checker)
            assert head == "filecheck", f"{where}: only `| filecheck` may follow the command"
            for option in options:
                key, _, value = option.partition("=")
                assert key in ("--check-prefix", "--diag-prefix") and value, \
                    f"{where}: unknown filecheck option {option!r}"
                prefixes[key.removeprefix("--").replace("-", "_")] = value
        runs.append(Run(tuple(w if w != "%s" else str(path) for w in words[2:]), fails,
                        **prefixes))
    assert runs, f"{path.name}: no RUN line"
    return runs


def filecheck(check_file: Path, prefix: str, text: str, what: str) -> tuple[int, str]:
    """Match `text` against the `prefix` lines of `check_file`: (exit code, FileCheck's message).
    No line with the prefix is a failure too (exit 2), as with FileCheck."""
    options = Options(match_filename=str(check_file), check_prefixes=[prefix])
    matcher = Matcher(options, FInput(what, text), Parser.from_opts(options))
    matcher.stderr = io.StringIO()
    code = matcher.run()
    return code, matcher.stderr.getvalue()


def opt(run: Run, capsys) -> tuple[int, str, str]:
    code = main(["opt", *run.args])
    out, err = capsys.readouterr()
    return code, out, err


CASES = [pytest.param(path, run, id=f"{path.stem}-{i}")
         for path in sorted(PASS_TESTS.glob("*.mlir"))
         for i, run in enumerate(parse_run_lines(path))]


@pytest.mark.parametrize("path, run", CASES)
def test_pass_output_matches_its_checks(path, run, capsys):
    code, out, err = opt(run, capsys)
    assert code == (1 if run.fails else 0), f"exit {code}; stderr:\n{err}"
    for prefix, text, what in ((run.check_prefix, out, "<stdout>"),
                               (run.diag_prefix, err, "<stderr>")):
        status, message = filecheck(path, prefix, text, what)
        assert status == 0, f"{prefix} lines do not match {what}:\n{message}\n{what}:\n{text}"


def test_every_pass_has_a_golden_file():
    assert {p.stem for p in PASS_TESTS.glob("*.mlir")} == set(PASSES)


@pytest.mark.parametrize("path", sorted(PASS_TESTS.glob("*.mlir")), ids=lambda p: p.stem)
def test_every_split_checks_its_output(path):
    prefix = parse_run_lines(path)[0].check_prefix
    check = re.compile(rf"// {prefix}(-[A-Z]+)?:")
    for number, split in enumerate(path.read_text().split("\n// -----\n"), 1):
        assert check.search(split), f"{path.name}: split {number} has no {prefix} line"


# A check that cannot fail checks nothing: each of these edits must make its file fail.
BROKEN = [
    ("hoist-and-bound",  # the wrong bound
     "// CHECK-NEXT:    %[[BOUND:.*]] = memref.alloca() : memref<8x32xi32>",
     "// CHECK-NEXT:    %[[BOUND:.*]] = memref.alloca() : memref<8x33xi32>"),
    ("hoist-and-bound",  # the remark on another line
     "// DIAG:      mlir:[[# @LINE + 2]]:12: remark:",
     "// DIAG:      mlir:[[# @LINE + 3]]:12: remark:"),
    ("constant-destinations",  # something that is there said to be gone
     "// CHECK-NOT:     linalg.matmul", "// CHECK-NOT:     tensor.empty"),
    ("state-in-place",  # a rewrite said to be a refusal
     "// DIAG-NEXT: mlir:[[# @LINE + 1]]:10: remark: append to @cache along dim 1",
     "// DIAG-NEXT: mlir:[[# @LINE + 1]]:10: note: append to @cache along dim 1"),
    ("place",  # the wrong offset, checked only on cortex-m55
     'M55:           %[[MID:.*]] = memref.view %[[POOL]][%{{.*}}][] {memplan.offset = 0 : i64',
     'M55:           %[[MID:.*]] = memref.view %[[POOL]][%{{.*}}][] {memplan.offset = 64 : i64'),
]


@pytest.mark.parametrize("name, good, bad", [pytest.param(*b, id=f"{b[0]}-{i}")
                                             for i, b in enumerate(BROKEN)])
def test_a_wrong_check_fails(name, good, bad, tmp_path, capsys):
    source = PASS_TESTS / f"{name}.mlir"
    text = source.read_text()
    assert good in text, f"{good!r} is not in {source.name}"
    broken = tmp_path / source.name
    broken.write_text(text.replace(good, bad, 1))
    failures = 0
    for run in parse_run_lines(broken):
        _, out, err = opt(run, capsys)
        failures += filecheck(broken, run.check_prefix, out, "<stdout>")[0] != 0
        failures += filecheck(broken, run.diag_prefix, err, "<stderr>")[0] != 0
    assert failures == 1
