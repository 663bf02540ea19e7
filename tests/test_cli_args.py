"""`--assume` spellings: the one that needs no shell quoting and the old one mean the same."""

import pytest

from memplan.cli.args import parse_assumption
from memplan.errors import InputError


@pytest.mark.parametrize(("new", "old"), [
    ("n=..1024", "n<=1024"),
    ("n=8..", "n>=8"),
    ("%n=16", "n==16"),
    ("@f:0=..64", "@f:0<=64"),
])
def test_the_unquoted_spelling_means_what_the_old_one_does(new, old):
    assert parse_assumption(new) == parse_assumption(old)


def test_a_range_bounds_both_sides():
    a = parse_assumption("@step:n=1..4096")
    assert (a.function, a.arg, a.lo, a.hi) == ("step", "n", 1, 4096)
    assert str(a) == "@step:n>=1 and @step:n<=4096"


@pytest.mark.parametrize("text", ["n=..", "n=1..2..3", "n<", "=..4", "n=..99999999999999999999999"])
def test_what_is_not_an_assumption_is_refused_in_one_line(text):
    with pytest.raises(InputError) as err:
        parse_assumption(text)
    assert str(err.value).startswith("--assume: cannot read") and "\n" not in str(err.value)
