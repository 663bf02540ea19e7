"""`memplan pack FILE.csv`: buffers with lifetimes packed at static offsets."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..files import Outputs
from .args import (
    InputKind,
    add_c_header_arguments,
    non_negative_int,
    non_negative_seconds,
    refuse_other_kind,
)

EXIT_1 = "the plan exceeds the capacity"
STDIN = "-"


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("pack", help="pack buffers with lifetimes at static offsets",
                            description="Pack the buffers of a minimalloc-style CSV "
                            "(id,lower,upper,size[,alignment][,offset]) into one memory.")
    p.add_argument("file", help="CSV file, or - for standard input; a name like A.1048576.csv "
                   "gives the capacity")
    p.add_argument("--capacity", type=non_negative_int, help="bytes available (overrides the "
                   "file name)")
    p.add_argument("-o", "--output", help="write the plan as CSV with an offset column")
    p.add_argument("--plot", help="draw the layout (.svg, .png or .pdf)")
    add_c_header_arguments(p, "write the plan for firmware: the arena size, an aligned "
                           "uint8_t arena and each buffer's offset")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--summary", action="store_true", help="omit the per-buffer table")
    p.add_argument("--exact", action="store_true", help="search until the buffers fit the "
                   "capacity, or prove they cannot")
    p.add_argument("--minimize", action="store_true", help="find the lowest peak and prove "
                   "it optimal (implies --exact)")
    p.add_argument("--time-limit", type=non_negative_seconds, metavar="S",
                   help="end the whole run within S seconds with the best plan so far (the "
                   "greedy plan always completes first: a limit never gives a worse plan "
                   "than no limit); without --exact, spend them lowering the greedy plan's "
                   "peak")
    p.add_argument("--node-limit", type=non_negative_int, metavar="N",
                   help="end the search once it has spent N search nodes, with the best "
                   "plan so far: a budget in work, so the same input gives the same plan "
                   "at any load (a time limit, when also given, still ends the run); "
                   "without --exact, spend them lowering the greedy plan's peak")
    p.add_argument("--no-window-bound", dest="window_bound", action="store_false",
                   help="while minimising, prove bounds on the whole schedule only, not on "
                   "time windows of it")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import io
    import sys

    from ..pack.clock import command_started

    started = command_started()  # a time limit counts Python's start-up too

    # Only the reader before the file is read: a missing or bad file is said without
    # loading numpy and the kernels.
    from ..pack.csvio import format_solution, read_problem, read_problem_from

    if args.file != STDIN:
        refuse_other_kind(args.file, InputKind.CSV)
    outputs = Outputs([] if args.file == STDIN else [args.file])
    outputs.claim(args.output, "plan")
    outputs.claim(args.plot, "layout plot", flag="--plot")
    outputs.claim(args.c_header, "C header", flag="--c-header")
    if args.c_section and not args.c_header:
        raise InputError("--c-section", "places the arena of a C header: add --c-header FILE.h")
    if args.plot:
        from ..report.layout_plot import check_plot_path

        plot_format = check_plot_path(args.plot)
    if args.file == STDIN:
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8")  # whatever the locale
        problem = read_problem_from(stdin, "<stdin>", args.capacity)
    else:
        problem = read_problem(args.file, args.capacity)
    from ..pack import PackOptions, pack
    from ..report.pack_progress import PackProgress, wanted
    from ..report.pack_report import format_pack_text, pack_json

    with PackProgress(wanted(args.json)) as progress:
        result = pack(problem, PackOptions(
            exact=args.exact,  # a limit alone: lower the greedy plan's peak
            minimize=args.minimize or (not args.exact and (
                args.time_limit is not None or args.node_limit is not None)),
            time_limit=args.time_limit, node_limit=args.node_limit,
            started=started, window_bound=args.window_bound, on_progress=progress.update))
    if args.json:
        import json

        print(json.dumps(pack_json(result), indent=2))
    else:
        print(format_pack_text(result, show_buffers=not args.summary), end="")
    if result.fits is False:
        reason = EXIT_1
        if problem.capacity is not None and problem.capacity < result.lower_bound:
            reason = (f"no plan can fit capacity {problem.capacity:,}: the lower bound is "
                      f"{result.lower_bound:,} bytes")
        elif problem.capacity is not None and not args.exact:
            # The heuristics missed a capacity the bound leaves room for: the search may not.
            reason = (f"the greedy plan peaks at {result.peak:,} bytes, over capacity "
                      f"{problem.capacity:,}, but the lower bound {result.lower_bound:,} "
                      "fits: add --exact to search for a plan that fits or prove none does")
        if reason != EXIT_1 and not (args.output or args.plot or args.c_header):
            print(f"memplan: {reason}", file=sys.stderr)  # else abandon's line says it
        outputs.abandon(reason)
        return 1
    if args.plot:
        from ..report.layout_plot import write_layout_plot

        outputs.provide(args.plot, lambda f: write_layout_plot(result, f, plot_format,
                                                               title=args.file))
    if args.output:
        outputs.provide_text(args.output, format_solution(problem, result.solution))
    if args.c_header:
        from dataclasses import replace

        from ..report.c_header import format_c_header, pack_header

        header = replace(pack_header(result, args.file, args.c_header), section=args.c_section)
        outputs.provide_text(args.c_header, format_c_header(header))
    outputs.commit()
    return 0
