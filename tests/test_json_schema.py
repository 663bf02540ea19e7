"""Every `memplan pack --json` follows its published schema, version included."""

import json

import pytest
from conftest import REPO
from json_schema import load_schema, problems

from memplan.cli import main
from memplan.report.pack_report import PACK_SCHEMA, PACK_SCHEMA_VERSION

EXAMPLE = REPO / "examples" / "mobilenet_blocks.294912.csv"


@pytest.mark.parametrize("options", [[], ["--minimize"], ["--capacity", "0"]])
def test_pack_json_follows_its_schema(options, capsys):
    main(["pack", str(EXAMPLE), "--json", *options])
    data = json.loads(capsys.readouterr().out)
    schema = load_schema("pack")
    assert problems(data, schema) == []
    assert (data["schema"], data["schema_version"]) == (PACK_SCHEMA, PACK_SCHEMA_VERSION)
    # the schema names every field the output has: nothing undocumented
    assert set(data) == set(schema["properties"])
    assert set(data["buffers"][0]) == set(schema["properties"]["buffers"]["items"]["properties"])


def test_the_checker_catches_what_breaks_a_schema():
    schema = load_schema("pack")
    broken = {"schema": "memplan.pack", "schema_version": 3, "buffers": [{"id": 3}],
              "peak": -1, "fits": "yes"}
    found = "\n".join(problems(broken, schema))
    for text in ("schema_version: 3 is not 2", "'lower_bound' is missing",
                 "buffers[0].id: 3 is not of type", "buffers[0]: 'offset' is missing",
                 "peak: -1 is below 0", "fits: 'yes' is not of type"):
        assert text in found


@pytest.mark.parametrize(("example", "target"), [
    ("loop_alloca.mlir", "x86_64"),  # allocations, an unbounded one, diagnostics with notes
    ("workgroup_memory_budget.mlir", "rocm-gfx942"),  # kernels' workgroup budgets
    ("reduce_into_nonsplat_constant.mlir", "x86_64"),  # access modes, copies
])
def test_check_json_follows_its_schema(example, target, capsys):
    from memplan.report.census_report import CHECK_SCHEMA, CHECK_SCHEMA_VERSION

    main(["check", str(REPO / "examples" / example), "--target", target, "--json"])
    data = json.loads(capsys.readouterr().out)
    schema = load_schema("check")
    assert problems(data, schema) == []
    assert (data["schema"], data["schema_version"]) == (CHECK_SCHEMA, CHECK_SCHEMA_VERSION)
    assert data["allocations"] or data["access"]  # the schema was held to a real report


def test_the_checker_reads_refs_and_enums():
    schema = load_schema("check")
    broken = {"schema": "memplan.check", "schema_version": 1, "file": "f", "target": "t",
              "allocations": [], "stack_frames": [], "errors": 0, "workgroup": [],
              "access": [], "copies": [], "extra": 1,
              "diagnostics": [{"severity": "fatal", "code": "c", "message": "m", "notes": [],
                               "location": {"file": "f", "line": 0, "col": 1}}]}
    found = "\n".join(problems(broken, schema))
    for text in ("diagnostics[0].severity: 'fatal' is not one of",
                 "diagnostics[0].location.line: 0 is below 1", "'extra' is not in the schema"):
        assert text in found
