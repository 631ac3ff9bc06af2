#!/usr/bin/python3
"""The nbc diagonal (target communication time = target computation time) of each run,
r_overhead beside OSU's and IMB's overlap %, one panel per (run, collective): where the
computation was slowed, OSU and IMB report overlap while r_overhead is at or above 1
(nbc-overlap paper, sec. 6.3).

    plot_diagonal.py nbc-*.json -o diagonal.png
"""
import argparse
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

BLUE, ORANGE, GREEN = "#0072B2", "#E69F00", "#009E73"  # Okabe-Ito


def diagonal(doc, op):
    pts = [p for p in doc["points"] if p["op"] == op and p.get("impl", "mpi") == "mpi"
           and abs(p["target_comm_s"] - p["target_comp_s"]) <= 1e-9 * p["target_comm_s"]]
    return sorted(pts, key=lambda p: p["target_comm_s"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    docs = [json.loads(Path(f).read_text()) for f in args.files]
    ops = list(dict.fromkeys(p["op"] for d in docs for p in d["points"]))
    fig, axes = plt.subplots(len(docs), len(ops), figsize=(4.2 * len(ops), 3.2 * len(docs)),
                             squeeze=False, dpi=100)
    for row, doc in enumerate(docs):
        label = doc["metadata"].get("label") or doc["metadata"]["mpi_flavor"]
        for col, op in enumerate(ops):
            ax = axes[row][col]
            pts = diagonal(doc, op)
            xs = [p["target_comm_s"] * 1e3 for p in pts]
            valid = [(x, p) for x, p in zip(xs, pts) if p["valid"]]
            ax.plot([x for x, _ in valid], [p["r_overhead"] for _, p in valid], "o-",
                    color=BLUE, label="r_overhead (left)")
            ax.axhline(1.0, color=BLUE, lw=0.6, ls=":")
            ax.set_ylim(min([-0.2] + [p["r_overhead"] for _, p in valid]),
                        max([2.0] + [p["r_overhead"] * 1.1 for _, p in valid]))
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.set_xlabel("comm = comp target (ms)", fontsize=8)
            ax.set_ylabel("r_overhead", fontsize=8, color=BLUE)
            ax.set_title(f"{label}: {op}", fontsize=9)
            right = ax.twinx()
            for key, colour, name in (("osu_overlap_pct", ORANGE, "OSU %"),
                                      ("imb_overlap_pct", GREEN, "IMB %")):
                right.plot([x for x, p in valid if p[key] is not None],
                           [p[key] for _, p in valid if p[key] is not None], "s--",
                           color=colour, ms=4, label=f"{name} (right)")
            right.set_ylim(0, 105)
            right.set_ylabel("overlap % (OSU, IMB)", fontsize=8)
            for x, p in zip(xs, pts):
                if not p["valid"]:
                    ax.annotate("invalid", (x, 0), fontsize=7, color="grey")
            if row == 0 and col == 0:
                h1, l1 = ax.get_legend_handles_labels()
                h2, l2 = right.get_legend_handles_labels()
                ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
