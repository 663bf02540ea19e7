"""CSV in and out, and every way a CSV can be bad."""

from pathlib import Path

import pytest

from memplan.errors import InputError
from memplan.pack import Buffer, Problem, Solution, format_solution, parse_problem, read_problem
from memplan.pack.csvio import capacity_from_name


def write(tmp_path: Path, text: str, name: str = "p.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_reads_minimal_columns_and_capacity_from_name(tmp_path):
    path = write(tmp_path, "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", "ex.12.csv")
    problem = read_problem(path)
    assert problem.capacity == 12
    assert problem.buffers == (Buffer("b1", 0, 3, 4), Buffer("b2", 3, 9, 4))


def test_capacity_option_overrides_name(tmp_path):
    path = write(tmp_path, "id,lower,upper,size\nb1,0,3,4\n", "ex.12.csv")
    assert read_problem(path, capacity=99).capacity == 99


@pytest.mark.parametrize(("name", "capacity"), [
    ("A.1048576.csv", 1048576), ("example.12.csv", 12), ("plain.csv", None),
    ("x.1.2.csv", 2), ("17.csv", None),
])
def test_capacity_from_name(name, capacity):
    assert capacity_from_name(name) == capacity


def test_optional_columns_in_any_order():
    problem = parse_problem("offset,size,id,upper,lower,alignment\n64,8,a,5,0,32\n,8,b,5,0,\n")
    assert problem.buffers[0] == Buffer("a", 0, 5, 8, alignment=32, offset=64)
    assert problem.buffers[1] == Buffer("b", 0, 5, 8)


def test_round_trip_keeps_everything(tmp_path):
    problem = Problem((Buffer("x", 0, 4, 10, 2), Buffer("y", 2, 6, 6, 2)), capacity=16)
    solution = Solution((0, 10))
    text = format_solution(problem, solution)
    assert text.splitlines()[0] == "id,lower,upper,size,alignment,offset"
    again = parse_problem(text)
    assert [b.id for b in again.buffers] == ["x", "y"]
    assert [(b.start, b.end, b.size, b.alignment) for b in again.buffers] == [
        (0, 4, 10, 2), (2, 6, 6, 2)]
    assert [b.offset for b in again.buffers] == [0, 10]


def test_written_plan_without_alignment_has_minimalloc_columns():
    problem = Problem((Buffer("x", 0, 4, 10),))
    assert format_solution(problem, Solution((0,))) == "id,lower,upper,size,offset\nx,0,4,10,0\n"


def test_shared_instances_parse(minimalloc_dir):
    for path in sorted(minimalloc_dir.glob("*.csv")):
        problem = read_problem(path)
        assert len(problem) > 0
        assert problem.capacity == capacity_from_name(path)


BAD_INPUTS = [
    ("", "empty file", None),
    ("\n\n", "empty file", None),
    ("id,lower,upper\nb,0,1\n", "missing column 'size'", 1),
    ("id,lower,upper,size\n", "no buffers", 1),
    ("id,lower,upper,size,colour\nb,0,1,1,red\n", "unknown column 'colour'", 1),
    ("id,lower,upper,size\nb,0,x,4\n", "upper 'x' is not an integer", 2),
    ("id,lower,upper,size\nb,0,1.5,4\n", "upper '1.5' is not an integer", 2),
    ("id,lower,upper,size\nb,0,1\n", "expected 4 fields, found 3", 2),
    ("id,lower,upper,size\nb,3,3,4\n", "lower 3 must be below upper 3", 2),
    ("id,lower,upper,size\nb,5,3,4\n", "lower 5 must be below upper 3", 2),
    ("id,lower,upper,size\nb,0,3,0\n", "size 0 must be positive", 2),
    ("id,lower,upper,size\nb,0,3,-8\n", "size -8 must be positive", 2),
    ("id,lower,upper,size,alignment\nb,0,3,8,0\n", "alignment 0 must be positive", 2),
    ("id,lower,upper,size,alignment\nb,0,3,8,-4\n", "alignment -4 must be positive", 2),
    ("id,lower,upper,size,alignment\nb,0,3,8,two\n", "alignment 'two' is not an integer", 2),
    ("id,lower,upper,size\na,0,3,8\nb,0,3,8\na,4,5,1\n", "duplicate id 'a' (first on line 2)", 4),
    ("id,lower,upper,size,alignment,offset\na,0,3,8,16,8\n", "not a multiple of its alignment", 2),
    ("id,lower,upper,size,offset\na,0,3,8,-8\n", "offset -8 is negative", 2),
    ("id,lower,upper,size,offset\na,0,3,8,0\nb,2,5,8,4\n",
     "fixed buffer 'b' overlaps fixed buffer 'a'", 3),
]


@pytest.mark.parametrize(("text", "reason", "line"), BAD_INPUTS)
def test_bad_input_names_file_line_and_reason(tmp_path, text, reason, line):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_problem(path)
    message = str(caught.value)
    assert "\n" not in message
    assert reason in message
    expected_prefix = f"{path}:{line}: " if line else f"{path}: "
    assert message.startswith(expected_prefix)


def test_fixed_buffers_apart_in_time_may_share_addresses():
    problem = parse_problem("id,lower,upper,size,offset\na,0,3,8,0\nb,3,5,8,0\n")
    assert [b.offset for b in problem.buffers] == [0, 0]


def test_unreadable_path(tmp_path):
    with pytest.raises(InputError, match="cannot read file"):
        read_problem(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="cannot read file"):
        read_problem(tmp_path)


def test_too_many_buffers_are_refused_at_the_row_that_crosses_the_limit(monkeypatch):
    from memplan.errors import InputError
    from memplan.pack import csvio

    monkeypatch.setattr(csvio, "MAX_BUFFERS", 3)
    text = "id,lower,upper,size\n" + "".join(f"b{i},0,1,4\n" for i in range(4))
    with pytest.raises(InputError, match="more than 3 buffers") as caught:
        parse_problem(text)
    assert caught.value.place == 5
    assert len(parse_problem("id,lower,upper,size\nb0,0,1,4\nb1,0,1,4\nb2,0,1,4\n")) == 3


def test_a_file_with_too_many_rows_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    from memplan.errors import InputError
    from memplan.pack import csvio

    monkeypatch.setattr(csvio, "MAX_BUFFERS", 3)
    parsed = []
    monkeypatch.setattr(csvio, "read_problem_from", lambda *a: parsed.append(a))
    many = tmp_path / "many.csv"
    many.write_text("id,lower,upper,size\n" + "".join(f"b{i},0,1,4\n" for i in range(4)))
    with pytest.raises(InputError, match="more than 3 rows after the header") as caught:
        read_problem(many)
    assert caught.value.place is None and not parsed
    # Blank lines of every kind the parser skips (\r\n endings, tabs, a no-break space)
    # are not rows: three buffers among them are read.
    blank = " \t\r\n\u00a0\u3000\n\x1c\n" * 50
    three = tmp_path / "three.csv"
    three.write_bytes(("id,lower,upper,size\r\n" + blank + "b0,0,1,4\r\nb1,0,1,4\n"
                       + blank + "b2,0,1,4\r" + blank).encode())
    read_problem(three)
    assert len(parsed) == 1


@pytest.mark.parametrize("text", [
    "id,lower,upper,size\r\n \u00a0\n\nb0,0,1,4\r\rb1,0,1,4\n\t\n",
    "a\rb\r\r\nc\n\u2028\n\u0085x\n\u3000\u200b\n",  # U+200B is not whitespace
    "\x1c\x1d\x1e\x1f\x0b\x0c\n\"q,\"\n,\n",
])
def test_rows_are_counted_as_the_parser_counts_them(text):
    import io

    from memplan.pack import csvio

    stream = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
    records = list(csvio._records(csvio._blocks(stream), "x"))
    assert csvio._non_blank_lines(text.encode()) == len(records)


def test_the_written_out_blanks_are_every_non_ascii_blank_str_isspace_takes():
    import sys

    from memplan.pack import csvio

    every = {chr(c).encode() for c in range(128, sys.maxunicode + 1) if chr(c).isspace()}
    assert set(csvio._OTHER_BLANKS) == every
