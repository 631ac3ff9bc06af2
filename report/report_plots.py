"""The figures of overlap-report: r_overhead heatmaps, concurrency-ratio heatmaps and the
MPI-impact histogram (nbc-overlap-methodology, section 5.2).

Layout is done in pixels at a fixed 100 dpi, never with bbox_inches="tight", so the size
of every image follows from the number of panels alone (see *_size below and
docs/report.md); tests and web pages can rely on it.
"""
import matplotlib

matplotlib.use("Agg")  # files only; never touch a display

import numpy as np  # noqa: E402
from matplotlib.cm import ScalarMappable  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

from report_inputs import (grid_key, impact_invalid, is_invalid, op_grid,  # noqa: E402
                           union_times)
from report_units import DASH, fmt_time  # noqa: E402

DPI = 100
PANEL_W, PANEL_H, CBAR_W = 450, 420, 100  # pixels; the size rule of docs/report.md
IMPACT_MIN_W, IMPACT_BASE_W, IMPACT_BAR_W = 600, 150, 60

# Margins of a heatmap inside its panel slot: room for the figure title, the panel
# title, tick labels and axis labels.
TOP, BOTTOM, LEFT, RIGHT = 58, 62, 82, 16

# ColorBrewer's RdYlBu anchors, which readers with any common colour-vision deficiency
# tell apart (they differ in lightness and along the blue-yellow axis): blue is good,
# pale yellow the middle, red bad. Between blue and red, light blue / pale yellow / orange
# keep the middle readable (a straight blue-to-red blend turns grey exactly where 1 should
# stand out).
BLUE, LIGHT_BLUE, PALE, ORANGE, RED = "#2c7bb6", "#abd9e9", "#ffffbf", "#fdae61", "#d7191c"
YELLOW, ORANGE_RED, DARK_RED = "#fdd049", "#e8552f", "#8b0f0f"
NOISE_GREY = "#9e9e9e"
INVALID_FACE, INVALID_EDGE, MISSING_EDGE = "#cdcdcd", "#7a7a7a", "#d0d0d0"

matplotlib.rcParams["svg.hashsalt"] = "overlap-report"  # stable ids: diffable SVGs
matplotlib.rcParams["hatch.linewidth"] = 0.8


def anchored_cmap(name, vmin, vmax, anchors):
    """A colour map pinned to values, e.g. green exactly at r_overhead = 0 whatever the
    range: each (value, colour) anchor is placed at its position inside [vmin, vmax]."""
    stops = [((v - vmin) / (vmax - vmin), c) for v, c in anchors]
    return LinearSegmentedColormap.from_list(name, stops), Normalize(vmin, vmax, clip=True)


# The paper's scale (sec. 5.2) and meaning, in colours readers with a colour-vision
# deficiency tell apart: 0 perfect overlap (blue), 1 serialized (yellow), above 1
# slower than serialized (orange to dark red). Below 0 is measurement noise, not better
# than perfect: it fades to grey instead of a deeper "good" colour. (The paper's green at
# 0 against red above 1 is the pair deuteranopes confuse most.)
OVERHEAD = anchored_cmap("r_overhead", -0.5, 2.0,
                         [(-0.5, NOISE_GREY), (0.0, BLUE), (0.5, LIGHT_BLUE), (1.0, YELLOW),
                          (1.5, ORANGE_RED), (2.0, DARK_RED)])
# Blue is the best case, red the worst; 1 (communication as long as alone) sits mid.
RCOMM = anchored_cmap("r_comm", 0.0, 2.0, [(0.0, BLUE), (0.5, LIGHT_BLUE), (1.0, PALE),
                                            (1.5, ORANGE), (2.0, RED)])
# Computation cannot get faster than alone in a meaningful way: <= 1 is all blue.
RCOMP = anchored_cmap("r_comp_slowdown", 1.0, 2.0, [(1.0, BLUE), (1.25, LIGHT_BLUE),
                                                     (1.5, PALE), (1.75, ORANGE), (2.0, RED)])


def heatmap_size(n_panels):
    return PANEL_W * n_panels + CBAR_W, PANEL_H


def concurrency_size(n_runs):
    return 2 * (PANEL_W + CBAR_W), PANEL_H * n_runs


def impact_size(n_groups, n_runs):
    return max(IMPACT_MIN_W, IMPACT_BASE_W + n_groups * IMPACT_BAR_W * (n_runs + 1)), PANEL_H


def _figure(width_px, height_px):
    # Agg truncates width*dpi to an int: nudge the inches so the truncation lands on the
    # intended pixel count rather than one below it (29/100*100 == 28.999...).
    def inches(px):
        return px / DPI if int(px / DPI * DPI) == px else (px + 1e-6) / DPI
    return Figure(figsize=(inches(width_px), inches(height_px)), dpi=DPI)


def _axes_px(fig, x, y, w, h):
    """Axes at pixel position (x, y from the top-left corner), so layout is exact."""
    fw, fh = fig.get_size_inches() * DPI
    return fig.add_axes([x / fw, 1 - (y + h) / fh, w / fw, h / fh])


def _text_colour(cmap, norm, value):
    r, g, b, _ = cmap(norm(value))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _own_norm(norm):
    """A Normalize of the same range for one mappable. Mappables sharing one Normalize
    share its callback registry, and matplotlib 3.6 then raises KeyError: 'changed' in
    weakref callbacks ("Exception ignored in ...") as the figures are freed."""
    return Normalize(norm.vmin, norm.vmax, clip=norm.clip)


def _draw_cells(ax, points, comm, comp, metric, scale):
    """One cell per grid coordinate: colour + value, hatched grey for invalid, white with
    a dash for not measured. The grid is categorical because the sweep is in log2 steps;
    equal cells are equal ratios of time."""
    cmap, norm = scale
    nx, ny = len(comm), len(comp)
    values = np.full((ny, nx), np.nan)
    cell_w = (PANEL_W - LEFT - RIGHT) / max(nx, 1)
    size = max(5.0, min(9.0, cell_w / 6))
    for j, tc in enumerate(comp):
        for i, tm in enumerate(comm):
            p = points.get((grid_key(tm), grid_key(tc)))
            if p is None:
                ax.add_patch(Rectangle((i - .5, j - .5), 1, 1, fill=False, ec=MISSING_EDGE, lw=.8))
                ax.text(i, j, DASH, ha="center", va="center", fontsize=size + 4, color="#909090")
            elif is_invalid(p) or p.get(metric) is None:
                _draw_invalid(ax, i, j, size)
            else:
                values[j, i] = p[metric]
                ax.text(i, j, f"{p[metric]:.2f}", ha="center", va="center", fontsize=size,
                        color=_text_colour(cmap, norm, p[metric]))
    ax.pcolormesh(np.arange(nx + 1) - .5, np.arange(ny + 1) - .5, np.ma.masked_invalid(values),
                  cmap=cmap, norm=_own_norm(norm), edgecolors="white", linewidth=1.0, zorder=0)


def _draw_invalid(ax, i, j, size):
    ax.add_patch(Rectangle((i - .5, j - .5), 1, 1, fc=INVALID_FACE, ec=INVALID_EDGE,
                           hatch="///", lw=.8, zorder=1))
    box = dict(boxstyle="round,pad=0.15", fc=INVALID_FACE, ec="none")
    ax.text(i, j + .1, "×", ha="center", va="center", fontsize=size + 3, color="#333333",
            zorder=2, bbox=box)
    ax.text(i, j - .25, "invalid", ha="center", va="center", fontsize=max(5.0, size - 2),
            color="#333333", zorder=2, bbox=box)


def fit_title(ax, text, width_px, size=10):
    """A panel title that fits its panel: smaller type first, then two lines at the
    label's natural break (" · ", ": "), then an ellipsis. Judged by character count
    (DejaVu Sans averages about 0.6 em), which is what keeps sizes fixed and labels in."""
    def fits(t, s):
        return max(len(line) for line in t.split("\n")) * s * 0.6 <= width_px
    for s in (size, 9, 8):
        if fits(text, s):
            return ax.set_title(text, fontsize=s)
    for sep in (" · ", ": ", " "):
        at = text.rfind(sep, 0, len(text) // 2 + len(sep) + 8)
        if at > 0:
            two = text[:at] + sep.rstrip() + "\n" + text[at + len(sep):]
            if fits(two, 8):
                return ax.set_title(two, fontsize=8)
    keep = int(width_px / (8 * 0.6)) - 1
    return ax.set_title(text[:keep] + "…", fontsize=8)


def _time_axes(ax, comm, comp, title):
    ax.set_xlim(-.5, len(comm) - .5)
    ax.set_ylim(-.5, len(comp) - .5)
    rotate = 45 if len(comm) > 6 else 0
    ax.set_xticks(range(len(comm)), [fmt_time(t) for t in comm], rotation=rotate, fontsize=8)
    ax.set_yticks(range(len(comp)), [fmt_time(t) for t in comp], fontsize=8)
    ax.set_xlabel("communication time (target, log scale)", fontsize=9)
    ax.set_ylabel("computation time (target, log scale)", fontsize=9)
    fit_title(ax, title, PANEL_W - LEFT - RIGHT)
    ax.tick_params(length=2)


def _colourbar(fig, x, y, h, scale, label, extend):
    cax = _axes_px(fig, x + 14, y, 16, h)
    cbar = fig.colorbar(ScalarMappable(norm=_own_norm(scale[1]), cmap=scale[0]), cax=cax,
                        extend=extend)
    cbar.set_label(label, fontsize=9)
    cbar.ax.tick_params(labelsize=8)


def _save(fig, outdir, stem):
    """Write PNG and SVG; metadata without dates so reruns give identical files."""
    names = []
    for fmt, meta in (("png", {"Software": None}), ("svg", {"Date": None})):
        path = outdir / f"{stem}.{fmt}"
        fig.savefig(path, format=fmt, dpi=DPI, metadata=meta)
        names.append(path.name)
    return names


def overhead_figure(runs, op, outdir):
    """r_overhead of one op: a panel per run, side by side, one shared colour scale."""
    comm, comp = op_grid(runs, op)
    width, height = heatmap_size(len(runs))
    fig = _figure(width, height)
    fig.suptitle(f"overhead ratio r_overhead — {op}", fontsize=12, y=1 - 8 / height, va="top")
    ax_w, ax_h = PANEL_W - LEFT - RIGHT, PANEL_H - TOP - BOTTOM
    for k, run in enumerate(runs):
        ax = _axes_px(fig, k * PANEL_W + LEFT, TOP, ax_w, ax_h)
        _draw_cells(ax, run.point_map(op), comm, comp, "r_overhead", OVERHEAD)
        _time_axes(ax, comm, comp, run.title)
    _colourbar(fig, len(runs) * PANEL_W, TOP, ax_h, OVERHEAD,
               "r_overhead (0 overlap, 1 serialized)", "both")
    return _save(fig, outdir, f"r_overhead_{op}"), (width, height)


def concurrency_figure(runs, op, outdir):
    """r_comm (left) and r_comp_slowdown (right) of one op: a row per run, each metric
    with one colour bar spanning all rows so rows compare directly."""
    comm, comp = op_grid(runs, op)
    width, height = concurrency_size(len(runs))
    fig = _figure(width, height)
    fig.suptitle(f"concurrency ratios — {op}", fontsize=12, y=1 - 8 / height, va="top")
    ax_w, ax_h = PANEL_W - LEFT - RIGHT, PANEL_H - TOP - BOTTOM
    metrics = (("r_comm", RCOMM, "r_comm = (t_call + t_wait) / t_comm_ref", "max"),
               ("r_comp_slowdown", RCOMP, "r_comp_slowdown = t_comp / t_comp_ref", "both"))
    for row, run in enumerate(runs):
        for col, (metric, scale, _, _) in enumerate(metrics):
            ax = _axes_px(fig, col * (PANEL_W + CBAR_W) + LEFT, row * PANEL_H + TOP, ax_w, ax_h)
            _draw_cells(ax, run.point_map(op), comm, comp, metric, scale)
            _time_axes(ax, comm, comp, f"{run.title}: {metric}")
    span = (len(runs) - 1) * PANEL_H + ax_h
    for col, (_, scale, label, extend) in enumerate(metrics):
        _colourbar(fig, col * (PANEL_W + CBAR_W) + PANEL_W, TOP, span, scale, label, extend)
    return _save(fig, outdir, f"concurrency_{op}"), (width, height)


def impact_figure(runs, outdir):
    """r_MPI_impact per computation time: grouped bars (one per run) at the worst rank,
    every rank as a dot, and the red line at 1 = no impact (paper, figure 9)."""
    comps = union_times([], (p["target_comp_s"] for r in runs for p in r.points))
    width, height = impact_size(len(comps), len(runs))
    fig = _figure(width, height)
    fig.suptitle("impact of an idle MPI runtime on computation", fontsize=12,
                 y=1 - 8 / height, va="top")
    ax = _axes_px(fig, 72, TOP, width - 72 - 24, height - TOP - BOTTOM)
    bar = 0.8 / len(runs)
    top, handles = 1.0, []
    for j, run in enumerate(runs):
        colour = f"C{j % 10}"
        by_comp = {grid_key(p["target_comp_s"]): p for p in run.points}
        for g, tc in enumerate(comps):
            p = by_comp.get(grid_key(tc))
            x = g - 0.4 + bar * (j + 0.5)
            if p is not None:
                top = max(top, _impact_bar(ax, p, x, bar, colour))
        handles.append(Patch(fc=colour, alpha=.85, label=run.title))
    handles.append(ax.axhline(1.0, color="red", lw=1.5, label="1 = no impact", zorder=3))
    handles.append(ax.scatter([], [], s=10, color="black", label="ranks"))
    if any(impact_invalid(p) for r in runs for p in r.points):
        handles.append(Patch(fc=INVALID_FACE, ec=INVALID_EDGE, hatch="///", label="invalid"))
    _impact_axes(ax, comps, top)
    ax.legend(handles=handles, loc="upper left", fontsize=8, ncol=2, framealpha=.9)
    return _save(fig, outdir, "impact"), (width, height)


def _impact_bar(ax, p, x, bar, colour):
    """Draw one point; returns the highest value drawn, to size the y axis."""
    if impact_invalid(p):
        ax.bar(x, 1.0, bar * .9, color=INVALID_FACE, ec=INVALID_EDGE, hatch="///", zorder=2)
        ax.text(x, 0.55, "×\ninvalid", ha="center", va="center", fontsize=7, zorder=4)
        return 1.0
    worst = p["r_mpi_impact_max"]
    ax.bar(x, worst, bar * .9, color=colour, alpha=.85, zorder=2)
    ranks = [r["r_mpi_impact"] for r in p["ranks"] if r.get("r_mpi_impact") is not None]
    if ranks:
        # Ranks spread evenly across the bar, in rank order: deterministic, no jitter.
        xs = x + (np.arange(len(ranks)) + .5) / len(ranks) * bar * .7 - bar * .35
        ax.scatter(xs, ranks, s=10, color="black", zorder=4, linewidths=0)
    high = max([worst] + ranks)
    # Above the bar and the dots, so neither hides the number.
    ax.annotate(f"{worst:.2f}", (x, high), xytext=(0, 4), textcoords="offset points",
                ha="center", va="bottom", fontsize=7)
    return high


def _impact_axes(ax, comps, top):
    ax.set_xticks(range(len(comps)), [fmt_time(t) for t in comps], fontsize=8)
    ax.set_xlim(-.6, len(comps) - .4)
    ax.set_ylim(0, top * 1.4)
    ax.set_xlabel("computation time (target)", fontsize=9)
    ax.set_ylabel("r_MPI_impact = t_comp_passive_mpi / t_comp_ref", fontsize=9)
    ax.tick_params(labelsize=8)
