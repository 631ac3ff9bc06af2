#!/usr/bin/python3
"""overlap-report end to end: renders the small result files kept beside this script and
checks what a user would look at, then the error paths.

Images: every expected PNG and SVG exists; PNGs are real PNGs whose pixel size equals the
documented rule (docs/report.md, recomputed here independently) and manifest.json; their
pixels are decoded (stdlib zlib, no PIL) to check they are not blank. Summary: every
diagnosis and invalid reason of the inputs appears. Errors: bad input -> exit code 2 and
one stderr line naming the file, before anything is written.

    check_report.py --report report/overlap-report
    check_report.py --report ... --install-from BUILD_DIR [--install-only]
                    # also (or only) test `cmake --install --component report`
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
OVERLAP_RUN = HERE / "overlap_run_small.json"
# Schema 1 files (overlap-bench 0.1), read through the legacy checks.
NBC_A, NBC_B, IMPACT = (HERE / n for n in ("nbc_small_a.json", "nbc_small_b.json",
                                           "impact_small.json"))
OPS = ("ibcast", "iallreduce")
# Files that embed their schema, one of each kind, as overlap-bench writes them.
V2 = {k: HERE / f"{k}_v2.json" for k in ("nbc", "impact", "latency", "coll", "progress", "sync")}
# nbc with CPU accounting and the slowdown's decomposition (issue 13): real 2-rank runs of
# MPI's and liboverlap's ibcast, trimmed to two points per implementation. Schema 3 named
# the kernel share "kernel network processing" and compared amounts; schema 4 compares
# rates over the kept iterations and records each rank's mask.
NBC_CPU = HERE / "nbc_cpu_v3.json"
NBC_CPU4 = HERE / "nbc_cpu_v4.json"
# nbc schema 6 (issue 24): a real 2-node emulated-cluster run (Open MPI, ibcast, MPI's and
# liboverlap's shared progress) trimmed to the 8 ms column: the OSU and IMB columns measured
# with the peers' own protocols, their formulas on nbc's times beside them, a point flagged
# imprecise_reference with its numbers.
NBC_PEERS6 = HERE / "nbc_peers_v6.json"
# nbc schema 7: scripts/demo's own output on the 2-node cluster (MPI's and liboverlap's
# runs, ibcast and iallreduce, 2 to 8 ms), as a user gets it. With one Normalize shared by
# every heatmap, matplotlib 3.6 printed "Exception ignored in ... KeyError: 'changed'"
# four times while freeing this file's figures.
NBC_DEMO7 = HERE / "nbc_demo_v7.json"
SCHEMA3_KERNEL = "kernel network processing on this core"
# p2p schema 3 (issue 11 item 5): a real 2-rank plain run (blocking, nonblocking,
# nonblocking-liboverlap) and the blocking code under overlap-run (--min-size 4KiB, so
# 1 KiB is not deferred), and a schema 2 file (before latency_s, bandwidth_Bps and
# nonblocking-liboverlap: the plain run with those taken out) that must still render.
P2P_PLAIN, P2P_RUN, P2P_V2 = (HERE / n for n in ("p2p_v3.json", "p2p_run_v3.json",
                                                 "p2p_v2.json"))
# progress 2, impact 3 and p2p 3 carry the same accounting of their own computation phases
# (docs/cpu-accounting.md#per-benchmark): real 2-rank runs, a few points each.
KIND_CPU = {k: HERE / f"{k}_cpu_v{v}.json" for k, v in (("progress", 2), ("impact", 3),
                                                         ("p2p", 3))}

# The documented size rule at 100 dpi: a heatmap panel is 450 x 420 px plus 100 px for
# the colour bar; concurrency = one row of two (panel + bar) per run; impact = 150 px +
# 60 px per bar slot, a slot per run plus one gap per computation time, at least 600 px.
PANEL_W, PANEL_H, CBAR_W = 450, 420, 100
# The diagnoses the schema 1 fixtures cover (schema 1 had no communication_slowdown and
# no imprecise_reference).
ALL_DIAGNOSES = ("overlap", "partial_overlap", "no_progression", "computation_slowdown",
                 "contention_without_overlap", "invalid")
INVALID_GREY = (0xCD, 0xCD, 0xCD)  # face colour of invalid cells (report_plots.INVALID_FACE)


def overhead_px(panels):
    return PANEL_W * panels + CBAR_W, PANEL_H


def concurrency_px(runs):
    return 2 * (PANEL_W + CBAR_W), PANEL_H * runs


def impact_px(comp_times, runs):
    return max(600, 150 + comp_times * 60 * (runs + 1)), PANEL_H


def curves_px(panels, rows):
    """Curves: a panel per collective (per run for sync), 450 px wide each but 900 px in
    all at least, 380 px per row plus 70 px for the legend."""
    return max(450, 900 // panels) * panels, 380 * rows + 70


class Checker:
    """Counts failed checks; prints each line, or keeps them in `lines` when buffered."""

    def __init__(self, buffered=False):
        self.failures = 0
        self.lines = [] if buffered else None

    def check(self, ok, what):
        line = ("ok   " if ok else "FAIL ") + what
        if self.lines is None:
            print(line)
        else:
            self.lines.append(line)
        self.failures += not ok
        return ok


def run_report(report, args, env):
    cmd = [report] + [str(a) for a in args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)


def read_png(path):
    """(width, height, pixels as a list of RGB tuples) of an 8-bit RGB/RGBA PNG."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("no PNG signature")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour = ihdr[:4]
    if depth != 8 or colour not in (2, 6):
        raise ValueError(f"unexpected PNG format: depth {depth}, colour type {colour}")
    bpp = 4 if colour == 6 else 3
    raw = unfilter(zlib.decompress(b"".join(idat)), width, height, bpp)
    pixels = [tuple(raw[i:i + 3]) for i in range(0, len(raw), bpp)]
    return width, height, pixels


def unfilter(raw, width, height, bpp):
    """Undo PNG's per-row filters (RFC 2083, 6.6): pixels, not compressed noise, are what
    must differ from white."""
    stride, out, prev, pos = width * bpp, bytearray(), bytearray(width * bpp), 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif kind == 4:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return out


def check_png(ck, path, expected, manifest, must_have_grey=None, min_ink=0.1):
    name = path.name
    if not ck.check(path.is_file() and path.stat().st_size > 0, f"{name} exists, non-empty"):
        return
    try:
        width, height, pixels = read_png(path)
    except (ValueError, zlib.error, struct.error, TypeError) as e:
        ck.check(False, f"{name} is a readable PNG ({e})")
        return
    ck.check((width, height) == expected, f"{name} is {width}x{height}, rule says {expected}")
    entry = manifest.get(name) or {}
    listed = (entry.get("width"), entry.get("height"))
    ck.check(listed == (width, height), f"{name} size in manifest.json matches the file {listed}")
    inked = sum(1 for p in pixels if min(p) < 245) / len(pixels)
    colours = len(set(pixels))
    ck.check(inked > min_ink and colours > 50,
             f"{name} is not blank ({inked:.0%} non-white pixels, {colours} colours)")
    if must_have_grey is not None:
        grey = sum(1 for p in pixels if p == INVALID_GREY)
        ck.check((grey > 500) == must_have_grey,
                 f"{name} {'shows' if must_have_grey else 'has no'} invalid cell ({grey} grey px)")


def check_svg(ck, path, manifest):
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    ck.check("<svg" in text[:2000] and path.name in manifest,
             f"{path.name} exists, is SVG, is in manifest.json")


def load_manifest(ck, out):
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        ck.check(False, f"manifest.json readable ({e})")
        return {}, []
    ck.check(all((out / s).is_file() for s in manifest["summaries"]) and
             {"summary.md", "summary.html"} <= set(manifest["summaries"]),
             f"manifest.json lists the summaries {manifest['summaries']}")
    return {i["file"]: i for i in manifest["images"]}, manifest["summaries"]


def with_nan(path):
    """The file with one r_overhead written as NaN, which Python's json would accept."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["points"][0]["r_overhead"] = "@nan@"
    return json.dumps(data).replace('"@nan@"', "NaN")


def mixed_impls(path, impl="overlap"):
    """Run b as if measured with --impl mpi,overlap: every point twice, the copy as `impl`."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["config"].update(impls=["mpi", impl], progress="shared")
    doc["points"] = ([dict(p, impl="mpi") for p in doc["points"]]
                     + [dict(p, impl=impl) for p in doc["points"]])
    return json.dumps(doc)


def renamed_kind(path, name):
    """A kind this report has no figure for, embedding its schema: read and tabled."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["benchmark"] = name
    return json.dumps(doc)


def bad_field(path, key, value, remove=False):
    doc = json.loads(path.read_text(encoding="utf-8"))
    if remove:
        del doc["points"][0][key]
    else:
        doc["points"][0][key] = value
    return json.dumps(doc)


def make_variants(tmp):
    """Inputs derived from the kept fixtures: a second impact run with an invalid point
    (two bars per group, the invalid marker), a copy of run b under the same label
    (title disambiguation), and the broken files of the error cases."""
    impact = json.loads(IMPACT.read_text(encoding="utf-8"))
    impact["metadata"]["label"] = "openmpi"
    bad = impact["points"][1]
    bad.update(valid=False, invalid_reason="GEMM calibration did not converge on rank 1",
               r_mpi_impact_max=None, r_mpi_impact_median=None)
    for r in bad["ranks"]:
        r.update(t_comp_passive_mpi_s=None, r_mpi_impact=None)
    files = {"impact_openmpi.json": json.dumps(impact),
             "rerun.json": NBC_B.read_text(encoding="utf-8"),
             "schema99.json": json.dumps({**json.loads(NBC_B.read_text()), "schema_version": 99}),
             "sync.json": json.dumps({"schema_version": 1, "benchmark": "sync", "metadata": {}}),
             "mixed.json": mixed_impls(NBC_B),
             "badimpl.json": mixed_impls(NBC_B, impl="ompi"),
             "broken.json": '{"schema_version": 1, "benchmark": "nbc", "points": [',
             "nan.json": with_nan(NBC_B),
             "p2p_demo.json": renamed_kind(V2["latency"], "p2p_demo"),
             "badop.json": bad_field(V2["coll"], "op", "ibcast"),
             "nofield.json": bad_field(V2["progress"], "hidden_s", None, remove=True)}
    for name, text in files.items():
        (tmp / name).write_text(text, encoding="utf-8")
    return impact


def check_demo_output(ck, report, env, tmp):
    """The demo's results render without a Python traceback reaching stderr."""
    p = run_report(report, [NBC_DEMO7, "-o", tmp / "demo"], env)
    ck.check(p.returncode == 0, f"demo report exits 0 (rc={p.returncode}) {p.stderr.strip()}")
    ck.check("Traceback" not in p.stderr and "Exception ignored" not in p.stderr,
             f"demo report: no Python traceback on stderr: {p.stderr.strip()[-600:]}")


def check_full(ck, report, env, tmp):
    """Both nbc runs (one partial, with an invalid and a missing point) and two impact runs."""
    out = tmp / "full"
    p = run_report(report, [NBC_A, NBC_B, IMPACT, tmp / "impact_openmpi.json", "-o", out], env)
    ck.check(p.returncode == 0, f"full report exits 0 (rc={p.returncode}) {p.stderr.strip()}")
    warned = [l for l in p.stderr.splitlines() if "warning" in l and NBC_A.name in l]
    ck.check(len(warned) == 1 and "incomplete" in warned[0],
             f"partial sweep is accepted with one warning line: {warned}")
    manifest, _ = load_manifest(ck, out)
    for op in OPS:
        check_png(ck, out / f"r_overhead_{op}.png", overhead_px(2), manifest,
                  must_have_grey=(op == "ibcast"))
        check_png(ck, out / f"concurrency_{op}.png", concurrency_px(2), manifest)
        check_svg(ck, out / f"r_overhead_{op}.svg", manifest)
        check_svg(ck, out / f"concurrency_{op}.svg", manifest)
    comp_times = len(json.loads(IMPACT.read_text())["config"]["comp_times_s"])
    check_png(ck, out / "impact.png", impact_px(comp_times, 2), manifest, must_have_grey=True)
    check_svg(ck, out / "impact.svg", manifest)
    ck.check(len(manifest) == 10, f"manifest.json lists 10 images ({len(manifest)})")
    check_summary(ck, out)


def check_summary(ck, out):
    md = (out / "summary.md").read_text(encoding="utf-8")
    page = (out / "summary.html").read_text(encoding="utf-8")
    seen = set()
    for fixture in (NBC_A, NBC_B):
        data = json.loads(fixture.read_text(encoding="utf-8"))
        wanted = {p["diagnosis"] for p in data["points"] if p["valid"]}
        wanted |= {p["diagnosis_text"] for p in data["points"] if p["valid"]}
        wanted |= {f"invalid: {p['invalid_reason']}" for p in data["points"] if not p["valid"]}
        wanted.add(data["metadata"]["command_line"])
        absent = sorted(w for w in wanted if w not in md)
        ck.check(not absent, f"summary.md has every diagnosis, diagnosis text, invalid reason and "
                             f"the command line of {fixture.name} (absent: {absent})")
        # "overlap" is a substring of "partial_overlap": look for the bold cell itself.
        ck.check({p["diagnosis"] for p in data["points"]} <= set(md.split("**")) | {"invalid"},
                 f"{fixture.name}: each diagnosis appears as its own bold cell")
        seen |= {p["diagnosis"] for p in data["points"]}
    ck.check(seen == set(ALL_DIAGNOSES), f"the fixtures cover every diagnosis ({sorted(seen)})")
    ck.check("GEMM calibration did not converge on rank 1" in md,
             "summary.md has the impact invalid reason")
    # Schema 1 (and up to 5) OSU/IMB percentages are the formulas on nbc's own times: no
    # disagreement is claimed from them (issue 24: that showed an artifact as a finding).
    ck.check("where the three metrics disagree" in md and "OSU 99.2 %" not in md
             and "no OSU or IMB column measured with their own protocols" in md,
             "summary.md claims no disagreement from the formulas on nbc's own times")
    ck.check("not what OSU and IMB measure with their own protocols" in md,
             "summary.md says what the OSU/IMB numbers of schema 5 and before are")
    ck.check("Not measured yet" in md and "64 ms × 64 ms" in md,
             "summary.md lists the missing point")
    ck.check("not IMB-NBC's" in md, "summary.md says why schema 1 files show no IMB %")
    for name in ("r_overhead_ibcast.png", "concurrency_iallreduce.png", "impact.png"):
        ck.check(f"]({name})" in md and f'src="{name}"' in page,
                 f"summaries reference {name} by relative path")
    ck.check(page.startswith("<!DOCTYPE html>") and "<style>" in page and "http" not in page,
             "summary.html is self-contained")


def check_peers_v6(ck, report, env, tmp):
    """nbc schema 6: the disagreement list uses the peers' own protocols and leaves out
    imprecise_reference points; the table shows the formulas on our times beside them; the
    imprecise reasons appear with their numbers."""
    out = tmp / "peers6"
    p = run_report(report, [NBC_PEERS6, "-o", out], env)
    ck.check(p.returncode == 0, f"{NBC_PEERS6.name}: exit 0 (rc={p.returncode}) {p.stderr.strip()}")
    md = (out / "summary.md").read_text(encoding="utf-8")
    points = json.loads(NBC_PEERS6.read_text(encoding="utf-8"))["points"]
    for q in points:
        claim = f"OSU {q['osu_overlap_pct']:.1f} %"
        disagrees = (q["osu_overlap_pct"] >= 50) != (q["r_overhead"] < 0.5)
        listed = q["diagnosis"] != "imprecise_reference" and disagrees
        ck.check((claim + " overlap, but r_overhead" in md) == listed,
                 f"{q['impl']} {q['target_comp_s']}: '{claim}' listed as a disagreement: {listed}")
        ours = f"{q['osu_on_nbc_times_pct']:.1f} % / {q['imb_on_nbc_times_pct']:.1f} %"
        ck.check(ours in md, f"{q['impl']} {q['target_comp_s']}: the table shows '{ours}'")
        for line in q["imprecise"]:
            ck.check(line in md, f"summary.md has the imprecise reason '{line}'")
    ck.check(any(q["imprecise"] for q in points), "the fixture has a flagged point")
    ck.check("OSU / IMB on our times" in md, "the table heads the formulas on our times")


# advise (issue 26): a real run, one MPICH rank with 2 cores (every set-up but MPI's
# asynchronous progress measured), its nbc sections trimmed of samples and CPU accounting;
# placement.threads: its 2 computation threads and MPICH caller's rescue thread.
ADVISE = HERE / "advise_v1.json"
# A 2-cell grid (schema 2): 2 Open MPI ranks, iallreduce of 1 KiB and 256 KiB with 2 ms of
# computation, set-ups mpi, caller and shared, then the overall point; nbc sections trimmed
# as above.
ADVISE_GRID = HERE / "advise_grid_v2.json"


def check_advise(ck, report, env, tmp):
    """The advise figure: one panel per run, 40 + 34 px per measured set-up + 80 px, 900 px
    wide; the advice bar outlined in the advice colour; the summary tables every set-up."""
    out = tmp / "advise"
    p = run_report(report, [ADVISE, "-o", out], env)
    ck.check(p.returncode == 0, f"advise: exit 0 (rc={p.returncode}) {p.stderr.strip()}")
    manifest, _ = load_manifest(ck, out)
    doc = json.loads(ADVISE.read_text(encoding="utf-8"))
    measured = [q for q in doc["points"] if q["setup"] != "advice" and q["status"] == "measured"]
    check_png(ck, out / "advise.png", (900, 40 + 34 * len(measured) + 80), manifest,
              min_ink=0.03)
    check_svg(ck, out / "advise.svg", manifest)
    ck.check(manifest.get("advise.png", {}).get("kind") == "advise",
             "manifest.json lists advise.png as kind advise")
    md = (out / "summary.md").read_text(encoding="utf-8")
    ck.check("advise run:" in md, "summary.md has the advise run")
    ck.check("| threads run on | every rank: computation 0, 1 · progress 0-1 |" in md,
             "summary.md says where the threads ran, read back (placement.threads)")
    for q in doc["points"]:
        ck.check(f"| {q['setup']} | {q['status']} |" in md,
                 f"summary.md has the {q['setup']} row with its status")
    # A grid (schema 2): one panel per cell, each sized by its own measured set-ups.
    out = tmp / "advise-grid"
    p = run_report(report, [ADVISE_GRID, "-o", out], env)
    ck.check(p.returncode == 0, f"advise grid: exit 0 (rc={p.returncode}) {p.stderr.strip()}")
    manifest, _ = load_manifest(ck, out)
    doc = json.loads(ADVISE_GRID.read_text(encoding="utf-8"))
    cells = {}
    for q in doc["points"]:
        if q["setup"] == "overall":
            continue
        key = (q["cell_bytes"], q["cell_comm_s"], q["cell_comp_s"])
        cells[key] = cells.get(key, 0) + (q["setup"] != "advice" and q["status"] == "measured")
    ck.check(len(cells) == 2 and doc["points"][-1]["setup"] == "overall",
             f"the grid fixture has 2 cells ({len(cells)}) and the overall point last")
    # Each cell's panel, and a 28 px line for the one set-up for every cell.
    check_png(ck, out / "advise.png", (900, sum(40 + 34 * m + 80 for m in cells.values()) + 28),
              manifest, min_ink=0.03)
    md = (out / "summary.md").read_text(encoding="utf-8")
    for size in ("| 1 KiB | – | 2 ms | mpi |", "| 256 KiB | – | 2 ms | advice |",
                 "| – | – | – | overall | measured |"):
        ck.check(size in md, f"summary.md has the grid's row {size!r}")


def check_every_kind(ck, report, env, tmp):
    """One file of each kind that embeds its schema, and one of a kind the report has no
    figure for: all read through the one reader, every figure at its documented size."""
    out = tmp / "kinds"
    p = run_report(report, list(V2.values()) + [tmp / "p2p_demo.json", "-o", out], env)
    ck.check(p.returncode == 0, f"every kind: exit 0 (rc={p.returncode}) {p.stderr.strip()}")
    manifest, _ = load_manifest(ck, out)
    docs = {k: json.loads(v.read_text(encoding="utf-8")) for k, v in V2.items()}

    def ops(kind):
        return len({q["op"] for q in docs[kind]["points"]})

    for name, size in (("latency.png", curves_px(ops("latency"), 1)),
                       ("coll.png", curves_px(ops("coll"), 2)),
                       ("progress.png", curves_px(ops("progress"), 2)),
                       ("sync.png", curves_px(1, 1)),
                       ("r_overhead_ibcast.png", overhead_px(2)),
                       ("concurrency_ibcast.png", concurrency_px(2))):
        # Curves ink less of the canvas than heatmaps.
        check_png(ck, out / name, size, manifest, min_ink=0.1 if "_" in name else 0.03)
        check_svg(ck, out / name.replace(".png", ".svg"), manifest)
    md = (out / "summary.md").read_text(encoding="utf-8")
    for heading in ("latency run:", "coll run:", "progress run:", "sync run:", "p2p_demo run:",
                    "— tests", "— ranks", "latency_s (p25–p75)"):
        ck.check(heading in md, f"summary.md has '{heading}'")
    invalid = [q["invalid_reason"] for q in docs["nbc"]["points"] if not q["valid"]]
    ck.check(invalid and all(f"invalid: {r}" in md for r in invalid),
             "summary.md has the invalid reasons of the schema 2 nbc file")
    valid = {q["diagnosis"] for q in docs["nbc"]["points"] if q["valid"]}
    ck.check(valid and all(f"**{d}**" in md for d in valid),
             f"summary.md shows the schema 2 diagnoses {sorted(valid)}")


def decomposition_px(bars):
    """docs/report.md: 220 px + 46 px per bar (a bar per point of every run), at least 600
    wide; 420 high."""
    return max(600, 220 + 46 * bars), 420


def check_decomposition(ck, report, env, tmp):
    """Stacked bars and the engine-share heatmap from files whose points carry a
    decomposition; the summary quotes each point's decomposition sentence (a schema 3
    one reworded: its kernel share was never only network processing, and flagged as
    comparing amounts); a file without decompositions gets neither figure."""
    for fixture in (NBC_CPU, NBC_CPU4):
        out = tmp / f"cpu-{fixture.stem}"
        p = run_report(report, [fixture, "-o", out], env)
        ck.check(p.returncode == 0,
                 f"{fixture.name}: exit 0 (rc={p.returncode}) {p.stderr.strip()}")
        manifest, _ = load_manifest(ck, out)
        doc = json.loads(fixture.read_text(encoding="utf-8"))
        points = doc["points"]
        impls = sorted({q["impl"] for q in points})
        check_png(ck, out / "decomposition_ibcast.png", decomposition_px(len(points)),
                  manifest, min_ink=0.02)
        check_svg(ck, out / "decomposition_ibcast.svg", manifest)
        svg = (out / "decomposition_ibcast.svg").read_text(encoding="utf-8")
        ck.check("kernel on rank" in svg and "kernel (network)" not in svg,
                 f"{fixture.name}: the legend names the kernel share by the rank's CPUs")
        check_png(ck, out / "engine_share_ibcast.png", overhead_px(len(impls)), manifest)
        check_svg(ck, out / "engine_share_ibcast.svg", manifest)
        md = (out / "summary.md").read_text(encoding="utf-8")
        ds = [q["decomposition"] for q in points if q.get("decomposition")]
        ck.check(ds and all(d["text"].startswith("computation slowed ") for d in ds),
                 f"{fixture.name}: each decomposition sentence starts with the loss")
        ck.check(SCHEMA3_KERNEL not in md and "network processing" not in md,
                 f"{fixture.name}: the summary never calls the kernel share network processing")
        if doc["schema_version"] == 3:
            quoted = [d["text"].replace(SCHEMA3_KERNEL, "kernel time on this rank's CPUs")
                      for d in ds]
            ck.check(all(f"Where it goes: {t} (recorded before the phases' CPU was compared "
                         f"as rates" in md for t in quoted),
                     f"{fixture.name}: the {len(ds)} schema 3 sentence(s) reworded and flagged")
        else:
            ck.check(all(f"Where it goes: {d['text']}." in md for d in ds),
                     f"{fixture.name}: summary.md quotes the {len(ds)} sentence(s)")
            shared = [d for d in ds if d["kernel_cpus_shared"] and d["transport"] is not None]
            ck.check(all("(CPUs shared: includes other processes' kernel time)" in d["text"]
                         for d in shared),
                     f"{fixture.name}: shared CPUs are said to include others' kernel time")
            ck.check(all(r["cpus"] for q in points if q.get("cpu") for r in q["cpu"]["ranks"]),
                     f"{fixture.name}: every rank's mask is recorded")
    out2 = tmp / "nocpu"
    p = run_report(report, [V2["nbc"], "-o", out2], env)
    ck.check(p.returncode == 0 and not list(out2.glob("decomposition_*"))
             and not list(out2.glob("engine_share_*")),
             "a file without decompositions gets no decomposition figures")


def check_kind_decompositions(ck, report, env, tmp):
    """progress, impact and p2p files whose points carry a decomposition: one stacked-bar
    figure per kind, a bar per point of every file, at the decomposition rule's size, and
    a summary table quoting each point's sentence (or why it has none); the older files
    of those kinds (no decomposition) still render, without such a figure or table."""
    out = tmp / "kind-cpu"
    p = run_report(report, list(KIND_CPU.values()) + ["-o", out], env)
    ck.check(p.returncode == 0, f"kinds with cpu: exit 0 (rc={p.returncode}) {p.stderr.strip()}")
    manifest, _ = load_manifest(ck, out)
    md = (out / "summary.md").read_text(encoding="utf-8")
    for kind, fixture in KIND_CPU.items():
        points = json.loads(fixture.read_text(encoding="utf-8"))["points"]
        name = f"decomposition_{kind}.png"
        check_png(ck, out / name, decomposition_px(len(points)), manifest, min_ink=0.02)
        check_svg(ck, out / name.replace(".png", ".svg"), manifest)
        ds = [q["decomposition"] for q in points if q.get("decomposition")]
        ck.check(ds and all(f"| {d['text']} |" in md for d in ds),
                 f"{fixture.name}: the summary quotes the {len(ds)} decomposition sentence(s)")
        missing = [q for q in points if not q.get("decomposition")]
        ck.check(all(f"not measured: {(q.get('null_reasons') or {}).get('decomposition')}" in md
                     for q in missing),
                 f"{fixture.name}: the {len(missing)} point(s) without one say why")
    ck.check(md.count("where the slowdown goes (") == len(KIND_CPU),
             "summary.md has one decomposition table per file")
    images = {i["file"]: i for i in json.loads((out / "manifest.json").read_text())["images"]}
    ck.check(all(images.get(f"decomposition_{k}.png", {}).get("kind") == "decomposition"
                 for k in KIND_CPU), "manifest.json lists them as kind decomposition")
    old = tmp / "kind-nocpu"
    p = run_report(report, [V2["progress"], V2["impact"], "-o", old], env)
    text = (old / "summary.md").read_text(encoding="utf-8") if p.returncode == 0 else ""
    ck.check(p.returncode == 0 and not list(old.glob("decomposition_*"))
             and "where the slowdown goes" not in text,
             "progress 1 and impact 2 files still render, with no decomposition figure or table")


def check_single_and_titles(ck, report, env, tmp):
    """One nbc file: one panel, no impact figure. Then two runs with the same label."""
    out = tmp / "single"
    p = run_report(report, [NBC_B, "-o", out], env)
    ck.check(p.returncode == 0 and p.stderr == "",
             f"single complete run: exit 0, quiet ({p.stderr!r})")
    manifest, _ = load_manifest(ck, out)
    check_png(ck, out / "r_overhead_ibcast.png", overhead_px(1), manifest, must_have_grey=False)
    check_png(ck, out / "concurrency_ibcast.png", concurrency_px(1), manifest)
    ck.check(not (out / "impact.png").exists(), "no impact.png without impact files")
    out = tmp / "twins"
    p = run_report(report, [NBC_B, tmp / "rerun.json", "-o", out], env)
    titles = [i["title"] for i in json.loads((out / "manifest.json").read_text())["inputs"]]
    ck.check(p.returncode == 0 and titles == ["mpich async-progress (nbc_small_b)",
                                              "mpich async-progress (rerun)"],
             f"colliding labels get the file stem: {titles}")
    out = tmp / "mixed"
    p = run_report(report, [tmp / "mixed.json", "-o", out], env)
    titles = [i["title"] for i in json.loads((out / "manifest.json").read_text())["inputs"]]
    ck.check(p.returncode == 0 and titles == ["mpich async-progress · MPI",
                                              "mpich async-progress · liboverlap shared"],
             f"--impl mpi,overlap: one run per implementation: {titles}")
    manifest, _ = load_manifest(ck, out)
    check_png(ck, out / "r_overhead_ibcast.png", overhead_px(2), manifest, must_have_grey=False)
    check_placement(ck, report, env, tmp)


def check_placement(ck, report, env, tmp):
    """metadata.placement in the run's table: each rank's CPUs and the Slurm job; a file
    without it (written before) shows a dash."""
    doc = json.loads(NBC_B.read_text())
    doc["metadata"]["placement"] = {
        "cpus": ["0-1", "2-3"],
        "slurm": {"job_id": "4711", "step_id": "0", "node_list": "n[01-02]", "nodes": 2,
                  "tasks": 2, "tasks_per_node": "1", "cpus_per_task": 2,
                  "cpu_bind": "quiet,cores", "partition": "debug"}}
    (tmp / "placed.json").write_text(json.dumps(doc))
    out = tmp / "placed"
    p = run_report(report, [tmp / "placed.json", "-o", out], env)
    summary = (out / "summary.md").read_text(encoding="utf-8") if p.returncode == 0 else ""
    for words in ("rank 0: 0-1, rank 1: 2-3", "job 4711 (step 0) on n[01-02]",
                  "2 CPUs per task", "bind quiet,cores"):
        ck.check(words in summary, f"placement in the run's table: {words!r}")
    old = (tmp / "single" / "summary.md").read_text(encoding="utf-8")
    ck.check("| CPUs per rank | – |" in old,
             "a file without placement shows a dash")


def check_errors(ck, report, env, tmp):
    cases = [
        ([tmp / "does-not-exist.json"], "does-not-exist.json", "cannot read"),
        ([tmp / "schema99.json"], "schema99.json", "schema_version 99"),
        ([tmp / "broken.json"], "broken.json", "not valid JSON"),
        ([tmp / "nan.json"], "nan.json", "NaN"),
        ([tmp / "sync.json"], "sync.json", "unsupported schema_version 1 for sync"),
        ([tmp / "badop.json"], "badop.json", "'op' is \"ibcast\", allowed: bcast"),
        ([tmp / "nofield.json"], "nofield.json", "'hidden_s' is missing"),
        ([tmp / "badimpl.json"], "badimpl.json", "'impl' is \"ompi\""),
        ([NBC_A, tmp / "schema99.json"], "schema99.json", "schema_version"),
    ]
    for inputs, name, words in cases:
        out = tmp / f"err-{name}"
        p = run_report(report, inputs + ["-o", out], env)
        lines = p.stderr.strip().splitlines()
        ck.check(p.returncode == 2 and len(lines) == 1 and name in lines[0] and words in lines[0]
                 and not out.exists(),
                 f"{name}: exit 2, one line naming it, nothing written (rc={p.returncode} {lines})")
    p = run_report(report, [], env)
    ck.check(p.returncode == 2 and "usage" in p.stderr,
             f"no input: usage error, exit 2 (rc={p.returncode})")


def check_overlap_run(ck, report, env, tmp):
    """An overlap-run report: its figure in the manifest, the call sites and the first
    touch in the summary; a report without ranks is refused with one line."""
    out = tmp / "overlap-run"
    p = run_report(report, [OVERLAP_RUN, "-o", out], env)
    ck.check(p.returncode == 0 and p.stderr == "", f"overlap-run report: exit 0, quiet ({p.stderr!r})")
    manifest = json.loads((out / "manifest.json").read_text())
    kinds = [i["kind"] for i in manifest["images"]]
    ck.check(kinds == ["overlap_run", "overlap_run"] and (out / "overlap_run.png").is_file(),
             f"overlap_run.png/.svg in the manifest ({kinds})")
    summary = (out / "summary.md").read_text(encoding="utf-8")
    for words in ("MPI_Recv", "intercept_cases.c:418", "intercept_cases.c:419", "progress shared"):
        ck.check(words in summary, f"summary names {words}")
    # The program's nonblocking collectives: a table per call site, summed over ranks.
    routed = json.loads(OVERLAP_RUN.read_text())
    for r in routed["ranks"]:
        r["collective_sites"] = [
            {"call": "MPI_Iallreduce", "site": {"text": "pcg.c:85"}, "calls": 60, "routed": 60,
             "mpi_own": {}, "accepted": 60, "bytes": 60 * 8,
             "wait_window_s": {"completed": 60, "median": 0.0042 + 0.001 * r["rank"],
                               "mean": 0.0042, "min": 0.004, "max": 0.005}},
            {"call": "MPI_Iallreduce", "site": {"text": "pcg.c:90"}, "calls": 5, "routed": 0,
             "mpi_own": {"operation": 5}, "operation_note": "a user-defined operation"}]
    (tmp / "routed.json").write_text(json.dumps(routed))
    p = run_report(report, [tmp / "routed.json", "-o", tmp / "routed"], env)
    summary = (tmp / "routed" / "summary.md").read_text(encoding="utf-8")
    n = len(routed["ranks"])
    wait = "4.2 ms" if n == 1 else f"4.2 ms to {4.2 + n - 1:.1f} ms"
    for words in ("### Collectives", "pcg.c:85", f"| {60 * n} | {60 * n} |",
                  f"{5 * n}× operation", "a user-defined operation", wait, "call to wait"):
        ck.check(p.returncode == 0 and words in summary, f"collectives table names {words!r}")
    broken = json.loads(OVERLAP_RUN.read_text())
    broken["ranks"] = []
    (tmp / "noranks.json").write_text(json.dumps(broken))
    p = run_report(report, [tmp / "noranks.json", "-o", tmp / "err-noranks"], env)
    lines = p.stderr.strip().splitlines()
    ck.check(p.returncode == 2 and len(lines) == 1 and "'ranks'" in lines[0],
             f"overlap-run file without ranks: exit 2, one line ({lines})")


def check_p2p_series(ck, report):
    """p2p: overlap-run's points where it deferred nothing (below its --min-size) are not
    drawn as overlap-run's; a point of a file before p2p schema 2 (no deferred_calls) is."""
    sys.path.insert(0, str(Path(report).resolve().parent))
    import report_curves

    def point(size, **extra):
        return dict(impl="overlap-run", msg_bytes=size, target_comp_s=0.001, valid=True,
                    t_iter_s=1e-3, **extra)

    class P2pRun:
        points = [point(1024, deferred_calls=0, blocking_calls=24),
                  point(65536, deferred_calls=24, blocking_calls=24),
                  point(262144)]

    xs, _ = report_curves._p2p_series(P2pRun, 0.001, "overlap-run", "t_iter_s")
    ck.check(xs == [65536, 262144],
             f"p2p: overlap-run's curve leaves out the size it deferred nothing at ({xs})")


def check_p2p_latency(ck, report, env, tmp):
    """p2p.png and p2p_latency.png from a plain and an overlap-run file given together and
    from a schema 2 file alone, at their documented sizes; the latency figure's numbers:
    schema 3's latency_s, else t_pingpong_s / 2, and each implementation's latency over
    the plain blocking code's of the same setup (overlap-run's from the other file)."""
    sys.path.insert(0, str(Path(report).resolve().parent))
    import report_curves
    import report_inputs

    for name, files in (("p2p-together", [P2P_PLAIN, P2P_RUN]), ("p2p-v2", [P2P_V2])):
        out = tmp / name
        p = run_report(report, files + ["-o", out], env)
        ck.check(p.returncode == 0, f"{name}: exit 0 (rc={p.returncode}) {p.stderr.strip()}")
        manifest, _ = load_manifest(ck, out)
        comps = {q["target_comp_s"] for f in files
                 for q in json.loads(f.read_text(encoding="utf-8"))["points"]}
        check_png(ck, out / "p2p.png", curves_px(len(comps), 2), manifest, min_ink=0.03)
        check_png(ck, out / "p2p_latency.png", curves_px(3, 1), manifest, min_ink=0.03)
        check_svg(ck, out / "p2p_latency.svg", manifest)
    ck.check(report_curves.p2p_latency({"latency_s": 2e-6, "t_pingpong_s": 9.0}) == 2e-6
             and report_curves.p2p_latency({"t_pingpong_s": 4e-6}) == 2e-6
             and report_curves.p2p_latency({"t_pingpong_s": None}) is None,
             "p2p latency: schema 3's field, else half the older round trip")
    plain, under = (report_inputs.load_run(f) for f in (P2P_PLAIN, P2P_RUN))
    doc = json.loads(P2P_PLAIN.read_text(encoding="utf-8"))
    base = {q["msg_bytes"]: q["latency_s"] for q in doc["points"]
            if q["impl"] == "blocking" and q["valid"]}
    theirs = {q["msg_bytes"]: q["latency_s"]
              for q in json.loads(P2P_RUN.read_text(encoding="utf-8"))["points"]
              if q["valid"]}
    xs, ys = report_curves.latency_ratios([plain, under], under, "overlap-run")
    want = sorted(set(base) & set(theirs))
    ck.check(xs == want and all(abs(y - theirs[x] / base[x]) < 1e-12 for x, y in zip(xs, ys)),
             f"p2p: overlap-run's latency over plain blocking's per size ({xs}, {ys})")
    xs, _ = report_curves.latency_ratios([under], under, "overlap-run")
    ck.check(xs == [], "p2p: no plain file of that setup, no ratio")


def check_installed(ck, build_dir, cmake, env, tmp):
    """`cmake --install` of the report component, then the installed launcher finds its
    modules in ../share/overlap/report."""
    prefix = tmp / "prefix"
    p = subprocess.run([cmake, "--install", build_dir, "--prefix", prefix, "--component", "report"],
                       capture_output=True, text=True, timeout=120)
    launcher = prefix / "bin" / "overlap-report"
    if not ck.check(p.returncode == 0 and os.access(launcher, os.X_OK),
                    f"cmake --install puts an executable bin/overlap-report ({p.stderr.strip()})"):
        return
    out = tmp / "installed"
    p = run_report(str(launcher), [NBC_B, IMPACT, "-o", out], env)
    ck.check(p.returncode == 0 and (out / "impact.png").is_file(),
             f"installed overlap-report runs (rc={p.returncode} {p.stderr.strip()})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True, help="the overlap-report launcher to test")
    ap.add_argument("--install-from", help="a configured build dir: also test `cmake --install`")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--install-only", action="store_true",
                    help="with --install-from: skip the source-tree checks")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir and print it")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="check-report-"))
    # matplotlib wants a writable cache dir; a private one keeps stderr clean and the
    # test independent of $HOME.
    env = dict(os.environ, MPLCONFIGDIR=str(tmp / "mpl"))
    ck = Checker()
    try:
        make_variants(tmp)
        if not (args.install_only and args.install_from):
            # The first run alone (it fills matplotlib's cache); the others, which share no
            # output, two at a time (each is a process of its own), reported in order.
            check_full(ck, args.report, env, tmp)
            rest = [check_demo_output, check_peers_v6, check_every_kind, check_advise,
                    check_decomposition, check_kind_decompositions, check_single_and_titles,
                    check_errors, check_overlap_run, check_p2p_latency]

            def buffered(check):
                own = Checker(buffered=True)
                check(own, args.report, env, tmp)
                return own

            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                for own in pool.map(buffered, rest):
                    for line in own.lines:
                        print(line)
                    ck.failures += own.failures
            check_p2p_series(ck, args.report)
        if args.install_from:
            check_installed(ck, args.install_from, args.cmake, env, tmp)
    finally:
        if args.keep:
            print(f"outputs kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED: ' + str(ck.failures) + ' check(s)' if ck.failures else 'all checks passed'}")
    sys.exit(1 if ck.failures else 0)


if __name__ == "__main__":
    main()
