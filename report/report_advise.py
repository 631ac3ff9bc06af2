"""The figure of `overlap-bench advise`: per run, one bar per set-up measured, its time per
iteration (median, p25-p75 whiskers), the advice outlined and labelled, today's time (MPI's
own as launched) as a vertical line; set-ups not measured are named under the panel with
their status. The numbers on the bars are the times and, for set-ups that leave a core
free, what that core costs the computation alone (comp_cost)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.ticker  # noqa: E402

from report_plots import _axes_px, _figure, _save, fit_title  # noqa: E402
from report_units import fmt_time  # noqa: E402

PANEL_W, ROW_H, TOP, BOTTOM, LEFT, RIGHT = 900, 34, 40, 80, 130, 40
BAR, ADVICE = "#56B4E9", "#0072B2"


def _setups(run):
    return [p for p in run.points if p["setup"] != "advice"]


def _advice(run):
    return next((p for p in run.points if p["setup"] == "advice"), None)


def panel_height(run):
    measured = [p for p in _setups(run) if p["status"] == "measured"]
    return TOP + ROW_H * max(1, len(measured)) + BOTTOM


def advise_figure(runs, outdir):
    """One panel per run, stacked."""
    heights = [panel_height(r) for r in runs]
    width, height = PANEL_W, sum(heights)
    fig = _figure(width, height)
    y0 = 0
    for run, h in zip(runs, heights):
        _panel(fig, run, y0, h)
        y0 += h
    return _save(fig, outdir, "advise"), (width, height)


def _panel(fig, run, y0, h):
    measured = [p for p in _setups(run) if p["status"] == "measured"]
    others = [p for p in _setups(run) if p["status"] != "measured"]
    advice = _advice(run)
    ax = _axes_px(fig, LEFT, y0 + TOP, PANEL_W - LEFT - RIGHT, h - TOP - BOTTOM)
    cfg = run.config
    size = (f"{cfg['msg_bytes']} B" if cfg.get("msg_bytes") else
            f"where MPI's own takes {fmt_time(cfg['target_comm_s'])}")
    fit_title(ax, f"{run.title}: {cfg['op']}, message {size}, computation "
                  f"{fmt_time(cfg['target_comp_s'])}", PANEL_W - LEFT - RIGHT)
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
