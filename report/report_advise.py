"""The figure of `overlap-bench advise`: per run and cell of its grid (a message with a
computation), one bar per set-up measured (and, for a grid, a line with the one set-up for
every cell), its time per
iteration (median, p25-p75 whiskers), the advice outlined and labelled, today's time (MPI's
own as launched) as a vertical line; set-ups not measured are named under the panel with
their status. The numbers on the bars are the times and, for set-ups that leave a core
free, what that core costs the computation alone (comp_cost)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.ticker  # noqa: E402

from report_plots import _axes_px, _figure, _save, fit_title  # noqa: E402
from report_units import fmt_bytes, fmt_time  # noqa: E402

PANEL_W, ROW_H, TOP, BOTTOM, LEFT, RIGHT = 900, 34, 40, 80, 130, 40
BAR, ADVICE = "#56B4E9", "#0072B2"


def _cell_key(p):
    return (p.get("cell_bytes"), p.get("cell_comm_s"), p.get("cell_comp_s"))


def _cells(run):
    """The run's cells (schema 2: every message with every computation), in order, each as
    (message text, computation in seconds, its points); a schema 1 file is one cell
    described by its config."""
    cells = {}
    for p in run.points:
        if p["setup"] != "overall":
            cells.setdefault(_cell_key(p), []).append(p)
    out = []
    cfg = run.config
    for (size, comm, comp), points in cells.items():
        if comp is None:  # schema 1: the config says
            size, comm, comp = cfg.get("msg_bytes"), cfg.get("target_comm_s"), cfg["target_comp_s"]
        if size:
            message = fmt_bytes(size)
        elif comm:
            message = f"where MPI's own takes {fmt_time(comm)}"
        else:
            message = "none"
        out.append((message, comp, points))
    return out


def panel_height(points):
    measured = [p for p in points if p["setup"] != "advice" and p["status"] == "measured"]
    return TOP + ROW_H * max(1, len(measured)) + BOTTOM


OVERALL_H = 28


def _overall(run):
    return next((p for p in run.points if p["setup"] == "overall"), None)


def advise_figure(runs, outdir):
    """One panel per run and cell, stacked; under a grid's cells, a line with the one
    set-up for all of them (its overall point)."""
    rows = []
    for run in runs:
        rows += [("cell", run, cell, panel_height(cell[2])) for cell in _cells(run)]
        if _overall(run):
            rows.append(("overall", run, _overall(run), OVERALL_H))
    width, height = PANEL_W, sum(r[3] for r in rows)
    fig = _figure(width, height)
    y0 = 0
    for kind, run, what, h in rows:
        if kind == "cell":
            _panel(fig, run, what, y0, h)
        else:
            text = (f"{run.title}, for every cell: {what['recommended']} — {what['reason']}"
                    if what["status"] == "measured" else
                    f"{run.title}: no one set-up for every cell ({what['reason']})")
            fig.text(LEFT / PANEL_W, 1 - (y0 + h / 2) / height, text, fontsize=9,
                     va="center", fontweight="bold")
        y0 += h
    return _save(fig, outdir, "advise"), (width, height)


def _panel(fig, run, cell, y0, h):
    message, comp, points = cell
    setups = [p for p in points if p["setup"] != "advice"]
    measured = [p for p in setups if p["status"] == "measured"]
    others = [p for p in setups if p["status"] != "measured"]
    advice = next((p for p in points if p["setup"] == "advice"), None)
    ax = _axes_px(fig, LEFT, y0 + TOP, PANEL_W - LEFT - RIGHT, h - TOP - BOTTOM)
    fit_title(ax, f"{run.title}: {run.config['op']}, message {message}, computation "
                  f"{fmt_time(comp)}", PANEL_W - LEFT - RIGHT)
    ax.set_xlabel("time per iteration: start, compute, wait (median, p25-p75)", fontsize=9)
    chosen = advice.get("recommended") if advice else None
    ys = list(range(len(measured)))
    for y, p in zip(ys, measured):
        best = p["setup"] == chosen
        lo, hi = p["t_iter_p25_s"], p["t_iter_p75_s"]
        ax.barh(y, p["t_iter_s"], color=ADVICE if best else BAR, edgecolor="black",
                lw=1.6 if best else 0.4, height=0.7,
                xerr=[[p["t_iter_s"] - lo], [hi - p["t_iter_s"]]], capsize=3)
        note = fmt_time(p["t_iter_s"])
        if p.get("free_cores"):
            note += f", computation alone x{p['comp_cost']:.2f} on one core fewer"
        if best:
            note += "  ← advice"
        ax.text(hi, y, "  " + note, va="center", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([p["setup"] for p in measured], fontsize=9)
    ax.invert_yaxis()
    if advice and advice.get("baseline_s"):
        ax.axvline(advice["baseline_s"], color="#D55E00", ls="--", lw=1.2)
        ax.text(advice["baseline_s"], len(measured) - 0.55, f" today ({advice['baseline']})",
                color="#D55E00", fontsize=8, va="bottom")
    top = max([p["t_iter_p75_s"] for p in measured] or [1e-3])
    ax.set_xlim(0, top * 1.45)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: fmt_time(v)))
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(True, axis="x", color="#dddddd", lw=0.6)
    if others:
        text = "not measured: " + "; ".join(f"{p['setup']} ({p['status']})" for p in others)
        ax.annotate(text, (0, 0), xycoords="axes fraction", xytext=(0, -44),
                    textcoords="offset points", fontsize=8, va="top")
