#!/usr/bin/python3
"""overlap-report: figures and a summary from any `overlap-bench` result files and
overlap-run reports.

    overlap-report FILE.json [MORE.json ...] [-o DIR]

Writes into DIR: r_overhead_<op>.png/.svg and concurrency_<op>.png/.svg (nbc), with
decomposition_<op> and engine_share_<op> where points carry a decomposition,
decomposition_progress, decomposition_impact and decomposition_p2p likewise, impact.png/.svg, latency.png/.svg, coll.png/.svg, progress.png/.svg, sync.png/.svg (each
only with files of that kind), summary.md, summary.html and manifest.json. Every input is
checked before anything is written: a bad file costs one line on stderr and exit code 2.
See docs/report.md.
"""
import argparse
import atexit
import json
import os
import re
import shutil
import struct
import sys
import tempfile
from pathlib import Path

from report_inputs import InputError, all_ops, assign_titles, load_run, split_by_impl

PROG = "overlap-report"
DEFAULT_OUTPUT = "overlap-report-out"


def version():
    """The project's VERSION file: the top of the source tree, or beside the installed
    modules."""
    here = Path(__file__).resolve().parent
    for place in (here.parent / "VERSION", here / "VERSION"):
        if place.is_file():
            return place.read_text().strip()
    return "unknown"


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog=PROG, description="Heatmaps, curves and a per-point diagnosis from overlap-bench "
        "result files of any kind (any mix; one run per file).")
    ap.add_argument("files", nargs="+", metavar="FILE.json", help="result files")
    ap.add_argument("-o", "--output-dir", default=DEFAULT_OUTPUT, metavar="DIR",
                    help=f"directory for images and summaries (default: {DEFAULT_OUTPUT})")
    ap.add_argument("--version", action="version", version=f"{PROG} {version()}")
    return ap.parse_args(argv)


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)


def load_all(files):
    """All runs, or None after printing one line per bad file: a user fixing inputs
    wants to see every broken file at once, not one per attempt."""
    runs, bad = [], 0
    for name in files:
        try:
            runs.extend(split_by_impl(load_run(name)))
        except InputError as e:
            fail(f"{name}: {e}")
            bad += 1
    return None if bad else assign_titles(runs)


def warn_partial(runs):
    """Partial runs are accepted (the file is rewritten after every point, so a killed
    job still has a story to tell) but the reader must know."""
    for run in runs:
        if run.benchmark == "nbc":
            have = sum(len(run.point_map(op)) for op in run.ops())
            total = have + sum(len(run.missing(op)) for op in run.ops())
            if not run.complete:
                fail(f"warning: {run.path}: incomplete sweep ({have} of {total} points); "
                     "reporting what is there")
            if run.duplicates:
                fail(f"warning: {run.path}: {run.duplicates} point(s) measured twice; "
                     "using the last of each")
        elif not run.complete:
            fail(f"warning: {run.path}: incomplete {run.benchmark} run ({len(run.points)} "
                 "points); reporting what is there")


def ensure_mpl_config():
    """matplotlib wants writable config and cache dirs and complains on stderr without
    them (read-only homes on clusters); a private temp dir keeps stderr for our lines."""
    if "MPLCONFIGDIR" in os.environ:
        return
    home = Path.home()
    wanted = (Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib",
              Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib")
    if not all(_writable(d) for d in wanted):
        private = tempfile.mkdtemp(prefix="overlap-report-mpl-")
        atexit.register(shutil.rmtree, private, True)
        os.environ["MPLCONFIGDIR"] = private


def _writable(path):
    """Whether `path` exists writable or could be created: its first existing ancestor
    decides."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return os.access(path, os.W_OK)


def png_size(path):
    """(width, height) from the IHDR chunk: the truth for the manifest."""
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def safe_name(op):
    # Ops come from the input file; never let one pick a path outside DIR.
    return re.sub(r"[^A-Za-z0-9_.-]", "_", op)


def render(runs, outdir):
    """Draw everything; returns (manifest image entries, figure sections for the summary)."""
    import report_curves as curves  # late: matplotlib is slow to import and not needed on errors
    import report_cpu as cpu
    import report_plots as plots

    images, sections = [], []

    def record(kind, op, files, size, panels):
        for name in files:
            w, h = png_size(outdir / name) if name.endswith(".png") else size
            images.append({"file": name, "format": name.rsplit(".", 1)[1], "kind": kind,
                           "op": op, "panels": panels, "width": w, "height": h})

    nbc_runs = of_kind(runs, "nbc")
    for op in all_ops(nbc_runs):
        with_op = [r for r in nbc_runs if op in r.ops()]
        files, size = plots.overhead_figure(with_op, safe_name(op), outdir)
        record("r_overhead", op, files, size, len(with_op))
        more, size = plots.concurrency_figure(with_op, safe_name(op), outdir)
        record("concurrency", op, more, size, 2 * len(with_op))
        sections.append((f"{op}: r_overhead, then r_comm and r_comp_slowdown", files + more))
        if cpu.has_decomposition(with_op, op):
            files, size = cpu.decomposition_figure(with_op, safe_name(op), outdir)
            record("decomposition", op, files, size, 1)
            more, size = cpu.engine_share_figure(with_op, safe_name(op), outdir)
            record("engine_share", op, more, size, len(with_op))
            sections.append((f"{op}: where the slowdown goes, and the progress thread's share",
                             files + more))
    if of_kind(runs, "impact"):
        files, size = plots.impact_figure(of_kind(runs, "impact"), outdir)
        record("impact", None, files, size, 1)
        sections.append(("r_MPI_impact", files))
    for kind, title in DECOMPOSITION_TITLES.items():
        these = of_kind(runs, kind)
        if cpu.has_decompositions(these):
            files, size = cpu.kind_decomposition_figure(these, kind, outdir)
            record("decomposition", None, files, size, 1)
            sections.append((title, files))
    for kind, draw in curves.FIGURES.items():
        these = [r for r in of_kind(runs, kind) if r.points]
        if not these:
            continue
        files, size = draw(these, outdir)
        panels = curves.panels(kind, these)
        record(kind, None, files, size, panels * curves.ROWS[kind])
        sections.append((CURVE_TITLES[kind], files))
    p2p_runs = [r for r in of_kind(runs, "p2p")
                if any(p.get("valid") and curves.p2p_latency(p) for p in r.points)]
    if p2p_runs:
        files, size = curves.p2p_latency_figure(p2p_runs, outdir)
        record("p2p_latency", None, files, size, 3)
        sections.append(("p2p: latency and bandwidth with nothing to overlap, and the cost of "
                         "overlap-run (latency over plain blocking)", files))
    advise_runs = [r for r in of_kind(runs, "advise") if r.points]
    if advise_runs:
        from report_advise import advise_figure
        files, size = advise_figure(advise_runs, outdir)
        record("advise", None, files, size, len(advise_runs))
        sections.append(("advise: time per iteration of each set-up, and the advice", files))
    intercept_runs = of_kind(runs, "overlap-run")
    for i, run in enumerate(intercept_runs):
        from report_intercept import intercept_figure, unreached
        if unreached(run):
            continue  # nothing to draw: the summary says why
        stem = "overlap_run" if len(intercept_runs) == 1 else f"overlap_run_{i + 1}"
        files, size = intercept_figure(run, stem, outdir)
        record("overlap_run", None, files, size, 1)
        sections.append((f"overlap-run: {run.title}: overlap window and stall per call site",
                         files))
    return images, sections


DECOMPOSITION_TITLES = {
    "impact": "impact: where an idle MPI's cost to the computation goes",
    "progress": "progress: where the work-based run's slowdown goes",
    "p2p": "p2p: where the computation's slowdown in the ping-pong goes"}

CURVE_TITLES = {"latency": "latency: a collective waited for at once, per size",
                "coll": "coll: blocking collectives in windows, and the naive loop",
                "progress": "progress: overhead work- vs time-based, and test calls",
                "sync": "sync: clock models' residual error",
                "p2p": "p2p: ping-pong with computation, blocking, nonblocking (MPI's or "
                       "liboverlap's progress), overlap-run"}


def of_kind(runs, kind):
    return [r for r in runs if r.benchmark == kind]


def write_summaries(runs, sections, outdir):
    from report_document import to_html, to_markdown
    from report_intercept import intercept_blocks
    from report_summary import build_summary

    blocks = build_summary([r for r in runs if r.benchmark != "overlap-run"], sections)
    for run in of_kind(runs, "overlap-run"):
        blocks += intercept_blocks(run)
    (outdir / "summary.md").write_text(to_markdown(blocks), encoding="utf-8")
    (outdir / "summary.html").write_text(to_html(blocks, "Overlap report"), encoding="utf-8")
    return ["summary.md", "summary.html"]


def write_manifest(runs, images, summaries, outdir):
    from report_plots import DPI

    manifest = {
        "generator": PROG, "dpi": DPI,
        "inputs": [{"file": str(r.path), "benchmark": r.benchmark, "title": r.title,
                    "complete": r.complete} for r in runs],
        "images": images, "summaries": summaries,
    }
    (outdir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    runs = load_all(args.files)
    if runs is None:
        return 2
    warn_partial(runs)
    outdir = Path(args.output_dir)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        fail(f"{outdir}: cannot create the output directory: {e.strerror or e}")
        return 2
    ensure_mpl_config()
    try:
        images, sections = render(runs, outdir)
        summaries = write_summaries(runs, sections, outdir)
        write_manifest(runs, images, summaries, outdir)
    except OSError as e:
        fail(f"{e.filename or outdir}: cannot write: {e.strerror or e}")
        return 2
    print(f"{PROG}: wrote {len(images)} images, {', '.join(summaries)} and manifest.json "
          f"to {outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
