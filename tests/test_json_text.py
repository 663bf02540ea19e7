"""`dumps_indented` writes what `json.dumps(data, indent=2)` writes, byte for byte."""

from __future__ import annotations

import enum
import json
import math
import random

import pytest

from memplan.report.json_text import dumps_indented


class Stage(enum.StrEnum):
    BEFORE = "before"


class Level(enum.IntEnum):
    TWO = 2


EDGES = [
    {}, [], (), {"a": []}, {"a": {}}, [[[]]], "plain", 5, None, True, 1.0,
    [1, 2.5, None, True, False, "é\n\"x\t\\"], {"\u2028": "\ud7ff", "ü": "日本"},
    {7: 2, 2.5: 3, True: 1, False: 0, None: 2, "k": [{"x": [[]]}]},
    [math.nan, math.inf, -math.inf, -0.0, 1e300, 1 / 3, 2**70, -(2**70)],
    Stage.BEFORE, Level.TWO, {"s": Stage.BEFORE, "i": Level.TWO, Stage.BEFORE: 1, Level.TWO: 2},
    (1, (2,)), [True, False, {"b": True, "f": 1.5, "n": None, "l": (), "t": (1,)}],
]


@pytest.mark.parametrize("data", EDGES, ids=range(len(EDGES)))
def test_edges_as_json_dumps(data: object) -> None:
    assert dumps_indented(data) == json.dumps(data, indent=2)


def test_random_trees_as_json_dumps() -> None:
    rng = random.Random(10)
    leaves = [None, True, False, 0, -7, 2**70, 0.1, math.nan, "s", "ü\t\"", Stage.BEFORE,
              Level.TWO]
    keys = ["a", "b", 1, 2.0, None, True, Stage.BEFORE]

    def tree(depth: int) -> object:
        pick = rng.random()
        if depth > 4 or pick < 0.4:
            return rng.choice(leaves)
        if pick < 0.55:
            return tuple(tree(depth + 1) for _ in range(rng.randint(0, 3)))
        if pick < 0.75:
            return [tree(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(keys): tree(depth + 1) for _ in range(rng.randint(0, 4))}

    for _ in range(2000):
        data = tree(0)
        assert dumps_indented(data) == json.dumps(data, indent=2)


@pytest.mark.parametrize("data", [[object()], {"a": {1, 2}}, {(1,): 2}, {1j: 1}])
def test_refuses_what_json_dumps_refuses(data: object) -> None:
    with pytest.raises(TypeError) as ours:
        dumps_indented(data)
    with pytest.raises(TypeError) as theirs:
        json.dumps(data, indent=2)
    assert str(ours.value) == str(theirs.value)
