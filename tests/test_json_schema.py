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
