"""Figures of the benchmarks measured over message sizes (latency, coll, progress) and of
the clock sync: one panel per collective, a line per run and implementation, sizes on a
log2 axis, the p25-p75 spread as error bars.

Colours are the Okabe-Ito palette (told apart by readers with any common colour-vision
deficiency), one per run; implementations differ by line style (MPI solid, liboverlap
dashed) and marker, so no information is carried by hue alone. Sizes follow from the panel
counts (docs/report.md), as for the heatmaps.
"""
import matplotlib

matplotlib.use("Agg")

import matplotlib.ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from report_plots import _axes_px, _figure, _save, fit_title  # noqa: E402
from report_units import fmt_bytes, fmt_time  # noqa: E402

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000",
             "#F0E442")
STYLE = {"mpi": ("-", "o"), "overlap": ("--", "s"), "blocking": ("-", "o"),
         "nonblocking": (":", "D"), "overlap-run": ("--", "s"),
         "nonblocking-liboverlap": ("-.", "v")}
IMPL_NAME = {"mpi": "MPI", "overlap": "liboverlap"}
CURVE_W, CURVE_H, LEGEND_H, MIN_W = 450, 380, 70, 900
LEFT, RIGHT, TOP, BOTTOM = 76, 18, 52, 56


def panel_width(n_panels):
    """450 px per panel, wider when there are few: the title and legend need 900."""
    return max(CURVE_W, MIN_W // max(1, n_panels))


def curves_size(n_panels, rows):
    return panel_width(n_panels) * max(1, n_panels), CURVE_H * rows + LEGEND_H


def _suptitle(fig, text, width_px):
    size = 12
    while size > 8 and len(text) * size * 0.6 > width_px - 20:
        size -= 1
    fig.suptitle(text, fontsize=size, y=1 - 8 / (fig.get_size_inches()[1] * 100), va="top")


def _ops(runs):
    return list(dict.fromkeys(p["op"] for r in runs for p in r.points))


def _series(run, op, impl, key):
    """(sizes, values, p25s, p75s) of one run's valid points, sizes ascending."""
    pts = sorted((p for p in run.points if p["op"] == op and p.get("impl", "mpi") == impl
                  and p.get("valid") and p.get(key) is not None),
                 key=lambda p: p["msg_bytes"])
    base, unit = (key[:-2], "_s") if key.endswith("_s") else (key, "")
    low = [p.get(f"{base}_p25{unit}") for p in pts]
    high = [p.get(f"{base}_p75{unit}") for p in pts]
    return ([max(p["msg_bytes"], 1) for p in pts], [p[key] for p in pts], low, high, pts)


def _impls(run):
    return list(dict.fromkeys(p.get("impl", "mpi") for p in run.points))


def _size_axis(ax, ylabel, log_y=True):
    ax.set_xscale("log", base=2)
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel("message size per rank", fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", color="#dddddd", lw=0.6)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: fmt_bytes(v)))


def _time_formatter(ax):
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: fmt_time(v)))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _plot(ax, run_index, impl, xs, ys, lo=None, hi=None, dotted=False):
    style, marker = STYLE.get(impl, ("-.", "^"))
    colour = OKABE_ITO[run_index % len(OKABE_ITO)]
    if dotted:
        ax.plot(xs, ys, ":", color=colour, marker=marker, mfc="none", ms=4, lw=1.2)
        return
    err = None
    if lo and hi and all(v is not None for v in lo + hi):
        err = [[y - v for y, v in zip(ys, lo)], [v - y for y, v in zip(ys, hi)]]
    ax.errorbar(xs, ys, yerr=err, fmt=style, marker=marker, color=colour, ms=4, lw=1.4,
                capsize=2, elinewidth=0.8)


def _legend(fig, runs, extra=()):
    """A legend row under the panels: one entry per (run, implementation)."""
    handles = []
    for k, run in enumerate(runs):
        for impl in _impls(run):
            style, marker = STYLE.get(impl, ("-.", "^"))
            handles.append(Line2D([], [], ls=style, marker=marker, ms=4,
                                  color=OKABE_ITO[k % len(OKABE_ITO)],
                                  label=f"{run.title} · {IMPL_NAME.get(impl, impl)}"))
    handles += list(extra)
    columns = max(1, min(3, len(handles), int(fig.get_size_inches()[0] * 100 // 300)))
    fig.legend(handles=handles, loc="lower center", ncol=columns, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.0))


def _panel(fig, col, row, title, n_panels):
    w = panel_width(n_panels)
    ax = _axes_px(fig, col * w + LEFT, row * CURVE_H + TOP, w - LEFT - RIGHT,
                  CURVE_H - TOP - BOTTOM)
    fit_title(ax, title, w - LEFT - RIGHT)
    return ax


def latency_figure(runs, outdir):
    """Icoll + Wait from the sync barrier, per size: MPI's and liboverlap's."""
    ops = _ops(runs)
    width, height = curves_size(len(ops), 1)
    fig = _figure(width, height)
    _suptitle(fig, "latency of a collective waited for at once (median, p25-p75)", width)
    for col, op in enumerate(ops):
        ax = _panel(fig, col, 0, op, len(ops))
        for k, run in enumerate(runs):
            for impl in _impls(run):
                xs, ys, lo, hi, _ = _series(run, op, impl, "latency_s")
                _plot(ax, k, impl, xs, ys, lo, hi)
        _size_axis(ax, "latency")
        _time_formatter(ax)
    _legend(fig, runs)
    return _save(fig, outdir, "latency"), (width, height)


def coll_figure(runs, outdir):
    """Window-based latency per size (top), with the naive MPI_Barrier loop dotted and the
    discarded windows counted beside each point; the naive loop's ratio to it (bottom)."""
    ops = _ops(runs)
    width, height = curves_size(len(ops), 2)
    fig = _figure(width, height)
    _suptitle(fig, "blocking collectives: window-based latency (median, p25-p75), naive loop "
                 "dotted", width)
    for col, op in enumerate(ops):
        top = _panel(fig, col, 0, op, len(ops))
        low = _panel(fig, col, 1, f"{op}: naive loop / window", len(ops))
        for k, run in enumerate(runs):
            for impl in _impls(run):
                xs, ys, lo, hi, pts = _series(run, op, impl, "latency_s")
                _plot(top, k, impl, xs, ys, lo, hi)
                for x, y, p in zip(xs, ys, pts):
                    lost = (p["late_windows"] + p["overrun_windows"]
                            + (p.get("restarted_windows") or 0))
                    if lost:
                        top.annotate(f"−{lost}", (x, y), xytext=(3, -9), fontsize=6,
                                     textcoords="offset points",
                                     color=OKABE_ITO[k % len(OKABE_ITO)])
                nx, ny, _, _, _ = _series(run, op, impl, "naive_mean_s")
                _plot(top, k, impl, nx, ny, dotted=True)
                rx, ry, _, _, _ = _series(run, op, impl, "naive_to_window")
                _plot(low, k, impl, rx, ry)
        _size_axis(top, "latency")
        _time_formatter(top)
        _size_axis(low, "naive / window", log_y=False)
        low.axhline(1.0, color="#555555", lw=0.8)
    extra = [Line2D([], [], ls=":", color="#555555", label="naive MPI_Barrier loop (OSU's)"),
             Line2D([], [], ls="none", label="−n: windows discarded (late or overrun)")]
    _legend(fig, runs, extra)
    return _save(fig, outdir, "coll"), (width, height)


def progress_figure(runs, outdir):
    """Top: CPU overhead per size, work-based (solid markers) beside time-based (hollow);
    bottom: what MPI_Wait still had to do after N test calls, per size."""
    ops = _ops(runs)
    width, height = curves_size(len(ops), 2)
    fig = _figure(width, height)
    _suptitle(fig, "NBC overhead: work-based vs time-based; progression with MPI_Test calls", width)
    for col, op in enumerate(ops):
        top = _panel(fig, col, 0, f"{op}: overhead", len(ops))
        low = _panel(fig, col, 1, f"{op}: t_wait / t_b after N tests", len(ops))
        for k, run in enumerate(runs):
            colour = OKABE_ITO[k % len(OKABE_ITO)]
            for impl in _impls(run):
                style, marker = STYLE.get(impl, ("-.", "^"))
                xs, ys, lo, hi, pts = _series(run, op, impl, "overhead_work_s")
                _plot(top, k, impl, xs, ys, lo, hi)
                tx, ty, _, _, _ = _series(run, op, impl, "overhead_time_s")
                top.plot(tx, ty, ls=style, marker=marker, mfc="none", color=colour, lw=0.9,
                         alpha=0.8)
                for p in pts:
                    calls = [t["test_calls"] for t in p["tests"] if t["wait_fraction"] is not None]
                    fracs = [t["wait_fraction"] for t in p["tests"] if t["wait_fraction"] is not None]
                    if calls:
                        low.plot(calls, fracs, ls=style, marker=marker, color=colour, lw=1,
                                 ms=3, alpha=0.9)
                        low.annotate(fmt_bytes(p["msg_bytes"]), (calls[-1], fracs[-1]),
                                     xytext=(3, 0), textcoords="offset points", fontsize=6,
                                     color=colour)
        _size_axis(top, "overhead")
        top.set_yscale("symlog", linthresh=1e-5)
        _time_formatter(top)
        low.set_xscale("log", base=2)
        low.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        low.set_xlabel("MPI_Test calls during the computation", fontsize=9)
        low.set_ylabel("t_wait / t_b (0: progressed)", fontsize=9)
        low.tick_params(labelsize=8)
        low.grid(True, color="#dddddd", lw=0.6)
    extra = [Line2D([], [], ls="-", marker="o", color="#555555", label="work-based"),
             Line2D([], [], ls="-", marker="o", mfc="none", color="#555555",
                    label="time-based (hides stolen cycles)")]
    _legend(fig, runs, extra)
    return _save(fig, outdir, "progress"), (width, height)


def sync_figure(runs, outdir):
    """Per rank, the error of the clock models at verification: offset only (hollow) and
    with drift (solid), absolute, log scale; one panel per run."""
    width, height = curves_size(len(runs), 1)
    fig = _figure(width, height)
    _suptitle(fig, "clock sync: residual error per rank at verification", width)
    for col, run in enumerate(runs):
        ax = _panel(fig, col, 0, run.title, len(runs))
        record = run.points[0] if run.points else {"ranks": []}
        ranks = [r for r in record["ranks"] if r["rank"] != 0]
        xs = [r["rank"] for r in ranks]
        values = []
        for key, face, label in (("residual_offset_only_s", "none", "offset only"),
                                 ("residual_drift_s", OKABE_ITO[0], "offset and drift")):
            ys = [max(abs(r[key]), 1e-9) for r in ranks]
            values += ys
            ax.plot(xs, ys, "o", mfc=face, color=OKABE_ITO[0], ms=5, label=label)
        # A log axis only where the errors span more than a decade: inside one decade it
        # would have no labelled tick at all.
        if values and max(values) > 10 * min(values):
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, 1.2 * max(values or [1e-6]))
        ax.set_xticks(xs or [1])
        ax.set_xlabel("rank", fontsize=9)
        ax.set_ylabel("|model - measured| at verification", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, color="#dddddd", lw=0.6)
        _time_formatter(ax)
        ax.text(0.02, 0.02, f"barrier skew {fmt_time(record.get('barrier_skew_s'))}, "
                f"MPI_Barrier {fmt_time(record.get('mpi_barrier_skew_s'))}",
                transform=ax.transAxes, fontsize=7)
    handles = [Line2D([], [], ls="none", marker="o", mfc="none", color=OKABE_ITO[0],
                      label="offset-only model"),
               Line2D([], [], ls="none", marker="o", color=OKABE_ITO[0],
                      label="drift model")]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8, frameon=False)
    return _save(fig, outdir, "sync"), (width, height)


def _not_deferred(p):
    """An overlap-run point at which it deferred none of the calls (below its --min-size,
    say): the plain blocking code ran, so it is not drawn as overlap-run's. Files before
    p2p schema 2 do not say (deferred_calls absent): drawn as before."""
    return p["impl"] == "overlap-run" and p.get("deferred_calls") == 0


def _p2p_series(run, comp, impl, key):
    pts = sorted((p for p in run.points if p["target_comp_s"] == comp and p["impl"] == impl
                  and p.get("valid") and p.get(key) is not None and not _not_deferred(p)),
                 key=lambda p: p["msg_bytes"])
    return [p["msg_bytes"] for p in pts], pts


def _setup(run):
    """What must match for two runs' round trips to be divided by each other: the MPI
    library, the number of processes and the hosts."""
    md = run.metadata
    return (md.get("mpi_library"), md.get("processes"), tuple(md.get("hosts") or ()))


def _blocking_times(runs):
    """(setup, size, computation) -> t_iter of the plain blocking code, from the first run
    of that setup that measured it (overlap-run's file has none: the figure script runs the
    bench both ways). Never across MPI libraries or machines."""
    times = {}
    for run in runs:
        for p in run.points:
            if p["impl"] == "blocking" and p.get("valid") and p.get("t_iter_s"):
                times.setdefault((_setup(run), p["msg_bytes"], p["target_comp_s"]),
                                 p["t_iter_s"])
    return times


def p2p_figure(runs, outdir):
    """Ping-pong with computation, one panel per computation time: the round trip per size
    for each implementation (top, the paper's optimum max(t_comp, t_comm) in grey) and the
    speedup over the plain blocking code (bottom), across the files given together.
    overlap-run's points where it deferred nothing are left out (_not_deferred)."""
    comps = sorted({p["target_comp_s"] for r in runs for p in r.points})
    width, height = curves_size(len(comps), 2)
    fig = _figure(width, height)
    _suptitle(fig, "p2p: round trip with computation (median, p25-p75), speedup over blocking",
              width)
    blocking = _blocking_times(runs)
    for col, comp in enumerate(comps):
        top = _panel(fig, col, 0, f"computation 2 x {fmt_time(comp)}", len(comps))
        bottom = _panel(fig, col, 1, f"speedup, computation 2 x {fmt_time(comp)}", len(comps))
        optimum = {}
        for k, run in enumerate(runs):
            for impl in _impls(run):
                xs, pts = _p2p_series(run, comp, impl, "t_iter_s")
                _plot(top, k, impl, xs, [p["t_iter_s"] for p in pts],
                      [p["t_iter_p25_s"] for p in pts], [p["t_iter_p75_s"] for p in pts])
                for p in pts:
                    if p.get("optimal_s"):
                        optimum.setdefault(p["msg_bytes"], p["optimal_s"])
                setup = _setup(run)
                sx = [x for x, p in zip(xs, pts) if (setup, x, comp) in blocking]
                sy = [blocking[(setup, x, comp)] / p["t_iter_s"] for x, p in zip(xs, pts)
                      if (setup, x, comp) in blocking]
                if sx:
                    _plot(bottom, k, impl, sx, sy)
        if optimum:
            xs = sorted(optimum)
            top.plot(xs, [optimum[x] for x in xs], "-", color="#999999", lw=3, alpha=0.5,
                     zorder=0)
        _size_axis(top, "round trip")
        _time_formatter(top)
        _size_axis(bottom, "speedup over blocking", log_y=False)
        bottom.axhline(1.0, color="#999999", lw=0.8)
    _legend(fig, runs, [Line2D([], [], ls="-", color="#999999", lw=3, alpha=0.5,
                               label="optimum max(t_comp, t_comm)")])
    return _save(fig, outdir, "p2p"), (width, height)


def p2p_latency(p):
    """One-way latency of a p2p point without computation: latency_s (schema 3), else half
    of t_pingpong_s (files before it); None when neither is there."""
    if p.get("latency_s") is not None:
        return p["latency_s"]
    return p["t_pingpong_s"] / 2 if p.get("t_pingpong_s") else None


def _latency_series(run, impl):
    """(sizes, latencies) of one run's implementation: a size measured at several
    computation times has one ping-pong per time; the first computation time's is used.
    overlap-run's points where it deferred nothing are kept: the layer's cost there
    (below --min-size) is part of what this figure shows."""
    best = {}
    for p in sorted(run.points, key=lambda p: p["target_comp_s"]):
        if p["impl"] == impl and p.get("valid") and p2p_latency(p):
            best.setdefault(p["msg_bytes"], p2p_latency(p))
    xs = sorted(best)
    return xs, [best[x] for x in xs]


def _blocking_latency(runs):
    """(setup, size) -> latency of the plain blocking code, as _blocking_times."""
    plain = {}
    for run in runs:
        xs, ys = _latency_series(run, "blocking")
        for x, y in zip(xs, ys):
            plain.setdefault((_setup(run), x), y)
    return plain


def latency_ratios(runs, run, impl):
    """(sizes, latency / plain blocking latency) of one run's implementation, against the
    plain blocking code of the same setup among `runs` (none: empty)."""
    plain = _blocking_latency(runs)
    xs, ys = _latency_series(run, impl)
    pairs = [(x, y / plain[(_setup(run), x)]) for x, y in zip(xs, ys)
             if (_setup(run), x) in plain]
    return [x for x, _ in pairs], [r for _, r in pairs]


def p2p_latency_figure(runs, outdir):
    """The ping-pong without computation, per size: one-way latency (half the round trip),
    bandwidth (bytes / latency), and each implementation's latency over the plain blocking
    code's of the same setup (overlap-run over plain: the layer's cost with nothing to
    overlap), across the files given together."""
    width, height = curves_size(3, 1)
    fig = _figure(width, height)
    _suptitle(fig, "p2p without computation: latency, bandwidth, and latency over plain "
              "blocking (median)", width)
    lat = _panel(fig, 0, 0, "one-way latency (half round trip)", 3)
    bw = _panel(fig, 1, 0, "bandwidth (bytes / latency)", 3)
    ratio = _panel(fig, 2, 0, "latency / plain blocking's", 3)
    for k, run in enumerate(runs):
        for impl in _impls(run):
            xs, ys = _latency_series(run, impl)
            if not xs:
                continue
            _plot(lat, k, impl, xs, ys)
            if any(x > 0 for x in xs):
                _plot(bw, k, impl, [x for x in xs if x > 0],
                      [x / y for x, y in zip(xs, ys) if x > 0])
            rx, ry = latency_ratios(runs, run, impl) if impl != "blocking" else ([], [])
            if rx:
                _plot(ratio, k, impl, rx, ry)
    _size_axis(lat, "latency")
    _time_formatter(lat)
    _size_axis(bw, "bytes per second")
    bw.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{fmt_bytes(v)}/s"))
    bw.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    _size_axis(ratio, "ratio", log_y=False)
    ratio.axhline(1.0, color="#999999", lw=0.8)
    _legend(fig, runs)
    return _save(fig, outdir, "p2p_latency"), (width, height)


def panels(kind, runs):
    """How many panels a kind's figure has (its size follows from it)."""
    if kind == "sync":
        return len(runs)
    if kind == "p2p":
        return len({p["target_comp_s"] for r in runs for p in r.points})
    return len({p["op"] for r in runs for p in r.points})


FIGURES = {"latency": latency_figure, "coll": coll_figure, "progress": progress_figure,
           "sync": sync_figure, "p2p": p2p_figure}
ROWS = {"latency": 1, "coll": 2, "progress": 2, "sync": 1, "p2p": 2}
