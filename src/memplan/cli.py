"""The `memplan` command: thin wiring from arguments to layers and back.

Every failure a user can cause ends here as one line on stderr and an exit
code (2 bad input, 1 violated budget); tracebacks are for memplan's own bugs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from . import __version__
from .errors import MemplanError
from .files import refuse_overwriting_input, write_text


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return value


# --- memplan pack -----------------------------------------------------------

def add_pack_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("pack", help="pack buffers with lifetimes at static offsets",
                            description="Pack the buffers of a minimalloc-style CSV "
                            "(id,lower,upper,size[,alignment][,offset]) into one memory.")
    p.add_argument("file", help="CSV file; a name like A.1048576.csv gives the capacity")
    p.add_argument("--capacity", type=non_negative_int, help="bytes available (overrides the "
                   "file name)")
    p.add_argument("-o", "--output", help="write the plan as CSV with an offset column")
    p.add_argument("--plot", help="draw the layout (.svg, .png or .pdf)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--summary", action="store_true", help="omit the per-buffer table")
    p.set_defaults(run=run_pack)


def run_pack(args: argparse.Namespace) -> int:
    from .pack import format_solution, plan, read_problem
    from .report.pack_report import format_pack_text, pack_json

    for output in (args.output, args.plot):
        if output:
            refuse_overwriting_input(output, [args.file])
    problem = read_problem(args.file, args.capacity)
    result = plan(problem)
    if args.plot:
        from .report.layout_plot import save_layout_plot

        save_layout_plot(result, args.plot, title=args.file)
    if args.output:
        write_text(args.output, format_solution(problem, result.solution))
    if args.json:
        print(json.dumps(pack_json(result), indent=2))
    else:
        print(format_pack_text(result, show_buffers=not args.summary), end="")
    return 1 if result.fits is False else 0


# --- wiring -------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memplan", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"memplan {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_pack_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except MemplanError as err:
        print(f"memplan: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("memplan: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
