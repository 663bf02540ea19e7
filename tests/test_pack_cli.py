"""`memplan pack` end to end: outputs, exit codes, and nothing written on failure."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memplan.cli import main

EXAMPLE = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"


@pytest.fixture
def example(tmp_path) -> Path:
    path = tmp_path / "example.12.csv"
    path.write_text(EXAMPLE)
    return path


def test_text_output_and_exit_zero_when_it_fits(example, capsys):
    assert main(["pack", str(example)]) == 0
    out = capsys.readouterr().out
    for expected in ("lower bound         12", "peak                12", "fits capacity       yes",
                     "strategy", "solve time", "b5"):
        assert expected in out


def test_exit_one_when_capacity_is_exceeded(example, capsys):
    assert main(["pack", str(example), "--capacity", "8", "--summary"]) == 1
    out = capsys.readouterr().out
    assert "fits capacity       no" in out
    assert "b5" not in out  # --summary leaves the per-buffer table out


def test_json_output(example, capsys):
    assert main(["pack", str(example), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["peak"] == data["lower_bound"] == 12
    assert data["fits"] is True
    assert {b["id"] for b in data["buffers"]} == {"b1", "b2", "b3", "b4", "b5"}


def test_writes_csv_and_plots(example, tmp_path):
    out_csv, out_svg, out_png = tmp_path / "plan.csv", tmp_path / "plan.svg", tmp_path / "p.png"
    assert main(["pack", str(example), "-o", str(out_csv), "--plot", str(out_svg)]) == 0
    assert main(["pack", str(example), "--plot", str(out_png), "--summary"]) == 0
    assert out_csv.read_text().splitlines()[0] == "id,lower,upper,size,offset"
    assert len(out_csv.read_text().splitlines()) == 6
    assert out_svg.read_text().lstrip().startswith(("<?xml", "<svg"))
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_input_is_one_line_exit_two_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,lower,upper,size\nb,0,1,-1\n")
    out = tmp_path / "out.csv"
    assert main(["pack", str(bad), "-o", str(out), "--plot", str(tmp_path / "p.svg")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"memplan: {bad}:2: buffer 'b': size -1 must be positive"
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [bad]


def test_bad_plot_format_is_refused_before_anything_is_written(example, tmp_path, capsys):
    out = tmp_path / "plan.csv"
    assert main(["pack", str(example), "--plot", str(tmp_path / "x.bmp"), "-o", str(out)]) == 2
    assert "plot format must be one of" in capsys.readouterr().err
    assert not out.exists()


def test_unwritable_output(example, tmp_path, capsys):
    assert main(["pack", str(example), "-o", str(tmp_path / "no" / "such" / "dir.csv")]) == 2
    assert "cannot write output" in capsys.readouterr().err


def test_input_file_is_not_modified(example):
    before = example.read_bytes()
    main(["pack", str(example), "-o", str(example.with_name("out.csv"))])
    assert example.read_bytes() == before


def test_console_script_runs_without_traceback(tmp_path):
    missing = tmp_path / "missing.csv"
    proc = subprocess.run([sys.executable, "-m", "memplan", "pack", str(missing)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(f"memplan: {missing}: cannot read file")
    assert "Traceback" not in proc.stderr


def test_output_may_not_overwrite_input(example, capsys):
    before = example.read_bytes()
    assert main(["pack", str(example), "-o", str(example)]) == 2
    assert "refusing to overwrite the input file" in capsys.readouterr().err
    assert example.read_bytes() == before


def test_dash_reads_the_problem_from_stdin(example):
    done = subprocess.run([sys.executable, "-m", "memplan", "pack", "-", "--summary",
                           "--capacity", "12"], input=EXAMPLE, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "peak                12" in done.stdout
    assert "capacity            12" in done.stdout


def test_bad_stdin_is_one_line_naming_stdin():
    done = subprocess.run([sys.executable, "-m", "memplan", "pack", "-"], input="id,lower\n",
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "memplan: <stdin>:1: missing column 'upper' in header"]


def test_capacity_below_the_lower_bound_says_no_plan_can_fit(example, capsys):
    assert main(["pack", str(example), "--capacity", "11", "--exact", "--summary"]) == 1
    err = capsys.readouterr().err
    assert err == "memplan: no plan can fit capacity 11: the lower bound is 12 bytes\n"
    # At the bound a plan may fit: nothing is said.
    assert main(["pack", str(example), "--capacity", "12", "--summary"]) == 0
    assert "no plan can fit" not in capsys.readouterr().err


def test_greedy_over_a_capacity_the_bound_fits_suggests_exact(capsys):
    example = Path(__file__).parents[1] / "examples" / "mobilenet_blocks.294912.csv"
    # The greedy plan peaks at 273,920; the lower bound, 261,376, is where --exact packs it.
    assert main(["pack", str(example), "--capacity", "261376", "--summary"]) == 1
    err = capsys.readouterr().err
    assert err == ("memplan: the greedy plan peaks at 273,920 bytes, over capacity 261,376, "
                   "but the lower bound 261,376 fits: add --exact to search for a plan that "
                   "fits or prove none does\n")
    assert main(["pack", str(example), "--capacity", "261376", "--summary", "--exact"]) == 0
