"""Where the overhead goes (points with a `decomposition`, docs/cpu-accounting.md): stacked
bars of the computation's slowdown per point (engine, transport, other threads, remainder;
the measured loss as a marker) for nbc (per op), progress, impact and p2p, and for nbc a
heatmap of the engine's own share."""
import report_plots as plots
from matplotlib.patches import Patch
from report_inputs import DECOMPOSED_KINDS, is_invalid, op_grid
from report_units import fmt_time

# Shares in the order they stack, with colours readers with a colour-vision deficiency
# tell apart (ColorBrewer's Dark2 subset) and a hatch for the unexplained part.
SHARES = (("engine", "progress thread", "#1b9e77", None),
          ("transport", "kernel on rank's CPUs", "#d95f02", None),
          ("other", "other threads", "#7570b3", None),
          ("remainder", "unexplained", "#bdbdbd", "..."))
# 0 (the engine costs nothing) blue, 2 % (the goal) pale, 10 % and more red.
ENGINE = plots.anchored_cmap("engine_share", 0.0, 0.10,
                             [(0.0, plots.BLUE), (0.02, plots.PALE), (0.05, plots.ORANGE),
                              (0.10, plots.RED)])
BAR_W, BAR_BASE_W, BAR_H = 46, 220, 420


def has_decomposition(runs, op):
    return any(p.get("decomposition") for r in runs for p in r.points if p.get("op") == op)


def has_decompositions(runs):
    """Any point of these runs (any kind) carries a decomposition."""
    return any(p.get("decomposition") for r in runs for p in r.points)


def _bars(runs, op):
    """(label, point or None) per bar: points of each run in (comp, comm) order."""
    out = []
    for run in runs:
        pts = sorted(run.point_map(op).values(),
                     key=lambda p: (p["target_comp_s"], p["target_comm_s"]))
        for p in pts:
            label = f"{fmt_time(p['target_comm_s'])}×{fmt_time(p['target_comp_s'])}"
            out.append((_label(run, runs, label),
                        None if is_invalid(p) else p.get("decomposition")))
    return out


def decomposition_size(n_bars):
    return max(600, BAR_BASE_W + BAR_W * n_bars), BAR_H


def decomposition_figure(runs, op, outdir):
    """nbc: one stacked bar per point of `op`, every run's."""
    return _stacked(_bars(runs, op), f"where the computation's slowdown goes — {op}",
                    f"decomposition_{op}", outdir)


def _label(run, runs, text):
    return f"{run.title}\n{text}" if len(runs) > 1 else text


# Per kind with a decomposition but no op grid: the figure's title and file stem.
KIND_FIGURES = {
    "progress": ("where the work-based run's slowdown goes — progress",
                 "decomposition_progress"),
    "impact": ("where an idle MPI's cost to the computation goes — impact",
               "decomposition_impact"),
    "p2p": ("where the computation's slowdown in the ping-pong goes — p2p",
            "decomposition_p2p"),
}


def kind_bars(runs, kind):
    """(label, decomposition or None) per point of every run of `kind`, in its order
    (report_inputs.DECOMPOSED_KINDS): progress's work-based run against the work alone,
    impact's computation with MPI idle against before MPI_Init, p2p's round trips with
    computation against the computation alone."""
    order, name, unusable = DECOMPOSED_KINDS[kind]
    return [(_label(run, runs, name(p)), None if unusable(p) else p.get("decomposition"))
            for run in runs for p in sorted(run.points, key=order)]


def kind_decomposition_figure(runs, kind, outdir):
    title, stem = KIND_FIGURES[kind]
    return _stacked(kind_bars(runs, kind), title, stem, outdir)


def _stacked(bars, title, stem, outdir):
    """One stacked bar per (label, decomposition): positive shares upwards, a negative
    remainder (the counters explain more than was lost) downwards; a black tick marks the
    measured loss. Bars without a decomposition are marked 'n/a'."""
    width, height = decomposition_size(len(bars))
    fig = plots._figure(width, height)
    fig.suptitle(title, fontsize=12, y=1 - 8 / height, va="top")
    ax = plots._axes_px(fig, 70, 40, width - 70 - 170, height - 40 - 140)
    for x, (_, d) in enumerate(bars):
        if d is None:
            ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=8, color="#555555")
            continue
        up, down = 0.0, 0.0
        for key, _, colour, hatch in SHARES:
            v = d.get(key)
            if v is None:
                continue
            v *= 100
            base = up if v >= 0 else down
            ax.bar(x, v, bottom=base, width=0.7, color=colour, hatch=hatch, edgecolor="white",
                   linewidth=0.5)
            if v >= 0:
                up += v
            else:
                down += v
        ax.plot([x - 0.4, x + 0.4], [100 * d["lost"]] * 2, color="black", lw=2)
    ax.axhline(0, color="#555555", lw=0.8)
    ax.margins(y=0.08)
    ax.set_xlim(-0.6, len(bars) - 0.4)
    ax.set_xticks(range(len(bars)), [b[0] for b in bars], rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("% of t_comp_ref", fontsize=9)
    handles = [Patch(fc=c, hatch=h, ec="white", label=n) for _, n, c, h in SHARES]
    handles.append(plots.matplotlib.lines.Line2D([], [], color="black", lw=2,
                                                  label="measured loss"))
    fig.legend(handles=handles, loc="center right", fontsize=8, frameon=False)
    return plots._save(fig, outdir, stem), (width, height)


def engine_share_figure(runs, op, outdir):
    """The progress thread's share of t_comp_ref per grid point, a panel per run."""
    comm, comp = op_grid(runs, op)
    width, height = plots.heatmap_size(len(runs))
    fig = plots._figure(width, height)
    fig.suptitle(f"progress thread's share of the computation — {op}", fontsize=12,
                 y=1 - 8 / height, va="top")
    ax_w = plots.PANEL_W - plots.LEFT - plots.RIGHT
    ax_h = plots.PANEL_H - plots.TOP - plots.BOTTOM
    for k, run in enumerate(runs):
        points = {}
        for key, p in run.point_map(op).items():
            d = p.get("decomposition")
            points[key] = dict(p, engine_share=d.get("engine") if d else None)
        ax = plots._axes_px(fig, k * plots.PANEL_W + plots.LEFT, plots.TOP, ax_w, ax_h)
        plots._draw_cells(ax, points, comm, comp, "engine_share", ENGINE)
        plots._time_axes(ax, comm, comp, run.title)
    plots._colourbar(fig, len(runs) * plots.PANEL_W, plots.TOP, ax_h, ENGINE,
                     "engine share of t_comp_ref (goal ≤ 0.02)", "max")
    return plots._save(fig, outdir, f"engine_share_{op}"), (width, height)
