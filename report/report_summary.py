"""The text half of the report: diagnosis counts, per-run metadata, per-point tables and
the points where OSU's, IMB's and our overlap metric disagree.

Builds the block list of report_document; it never formats a number itself except
through report_units, so Markdown and HTML show identical values.
"""
from collections import Counter

from report_inputs import (DECOMPOSED_KINDS, grid_key, impact_invalid, impact_reason,
                           invalid_reason, is_invalid)
from report_tables import generic_run
from report_units import (DASH, fmt_bytes, fmt_int, fmt_pct, fmt_ratio, fmt_share,
                          fmt_time)

# Order of the paper (3.3): good first, then the pathologies, then what says nothing.
DIAGNOSES = ("overlap", "partial_overlap", "no_progression", "computation_slowdown",
             "communication_slowdown", "contention_without_overlap", "imprecise_reference",
             "invalid")
NOT_MEASURED = "not measured"

# "Overlap" for OSU/IMB (percent of communication hidden) against "overlap" for us
# (r_overhead: 0 perfect, 1 serialized). Half-way on both scales is the fairest cut.
DISAGREE_PCT, DISAGREE_OVERHEAD = 50.0, 0.5
# Ranks whose computation speeds differ by this much or more are named in the point's row.
COMP_SPREAD_SHOWN = 1.2

# OSU and IMB as they measure (their own protocols), then their formulas on our iterations.
POINT_HEADERS = ("comm target", "comp target", "msg size", "comp size (n)", "t_comm_ref",
                 "t_comp_ref", "t_measured", "r_overhead", "r_comm", "r_comp_slowdown",
                 "OSU overlap", "IMB overlap", "OSU / IMB on our times", "diagnosis")
IMPACT_HEADERS = ("comp target", "rank", "host", "comp size (n)", "t_comp_ref",
                  "t_comp_passive_mpi", "r_mpi_impact", "max over ranks", "median")


def build_summary(runs, figures):
    """All blocks of summary.md/.html. `figures` lists (section title, [file names])."""
    nbc_runs = [r for r in runs if r.benchmark == "nbc"]
    impact_runs = [r for r in runs if r.benchmark == "impact"]
    others = [r for r in runs if r.benchmark not in ("nbc", "impact")]
    blocks = [("h", 1, "Overlap report"), ("p", _inputs_line(runs))]
    if nbc_runs:
        blocks += [("h", 2, "Diagnoses"), ("p", _DIAGNOSIS_GUIDE), _diagnosis_counts(nbc_runs)]
    if figures:
        blocks.append(("h", 2, "Figures"))
        for title, files in figures:
            blocks += [("h", 3, title)] + [("img", f, f) for f in files if f.endswith(".png")]
    for run in nbc_runs:
        blocks += _nbc_run(run)
    for run in impact_runs:
        blocks += _impact_run(run)
    for run in others:
        blocks += [("h", 2, f"{run.benchmark} run: {run.title}"), _metadata_table(run, nbc=False)]
        blocks += generic_run(run)
        if run.benchmark in COMPARED:
            blocks += decomposition_blocks(run)
    return blocks


# What the decomposition compares, per kind without an op grid.
COMPARED = {"progress": "the work-based run against the work alone",
            "p2p": "the round trips with computation against the computation alone",
            "impact": "with MPI idle against before MPI_Init"}


def decomposition_blocks(run):
    """Each point's decomposition sentence (docs/cpu-accounting.md), or why it has none;
    nothing for a file written before points carried one."""
    if not any("decomposition" in p for p in run.points):
        return []
    order, key, _ = DECOMPOSED_KINDS[run.benchmark]
    rows = []
    for p in sorted(run.points, key=order):
        d = p.get("decomposition")
        if d:
            text = where_it_goes(d)
        else:
            why = (p.get("null_reasons") or {}).get("decomposition")
            text = f"not measured: {why}" if why else NOT_MEASURED
        rows.append([key(p), text])
    return [("h", 3, f"{run.title} — where the slowdown goes ({COMPARED[run.benchmark]})"),
            ("table", ["point", "where it goes"], rows)]


_DIAGNOSIS_GUIDE = (
    "r_overhead: 0 = perfect overlap, 1 = serialized (no overlap), above 1 = slower than "
    "not overlapping at all, below 0 = measurement noise. `partial_overlap`: part of the "
    "collective progressed while computing, the computation was not slowed. "
    "`no_progression`: the collective only advanced inside MPI calls (r_comm ≈ 1, "
    "r_comp_slowdown ≈ 1). `computation_slowdown`: communication progressed but the "
    "computation lost more time than the noise allows, judged against what overlap could "
    "save. `communication_slowdown`: the collective got slower (r_comm above 1, or the run "
    "slower than serialized) while the computation was not. `contention_without_overlap`: "
    "the computation was slowed and the collective still ran inside MPI calls. "
    "`imprecise_reference`: clearly faster than perfect overlap, so a reference time is off. "
    "See docs/report.md.")


def _inputs_line(runs):
    # A file comparing implementations is split into one run per implementation.
    names = list(dict.fromkeys(r.path.name for r in runs))
    files = ", ".join(f"`{n}`" for n in names)
    return f"Generated by overlap-report from {len(names)} file(s): {files}."


def _diag_of(point):
    return "invalid" if is_invalid(point) else str(point.get("diagnosis") or "unknown")


def _diagnosis_counts(runs):
    counts, columns = [], list(DIAGNOSES)
    for run in runs:
        for op in run.ops():
            c = Counter(_diag_of(p) for p in run.point_map(op).values())
            c[NOT_MEASURED] = len(run.missing(op))
            columns += [d for d in c if d not in columns and d != NOT_MEASURED]
            counts.append((run.title, op, c))
    columns.append(NOT_MEASURED)
    rows = [[title, op] + [str(c.get(d, 0)) for d in columns] for title, op, c in counts]
    return ("table", ["run", "op"] + columns, rows)


def _nbc_run(run):
    blocks = [("h", 2, f"Run: {run.title}"), _metadata_table(run, nbc=True)]
    for op in run.ops():
        points = sorted(run.point_map(op).values(),
                        key=lambda p: (p["target_comp_s"], p["target_comm_s"]))
        blocks.append(("h", 3, f"{run.title} — {op}"))
        blocks.append(("table", list(POINT_HEADERS), [_point_row(p) for p in points]))
        missing = run.missing(op)
        if missing:
            cells = ", ".join(f"{fmt_time(c)} × {fmt_time(k)}" for c, k in missing)
            blocks.append(("p", f"Not measured yet (comm × comp): {cells}."))
    blocks.append(("h", 3, f"{run.title} — where the three metrics disagree"))
    blocks += _disagreements(run)
    return blocks


# nbc schema 3 (before issue 13's review) called all kernel time on the rank's CPUs
# "kernel network processing" and compared the phases' CPU amounts, not rates, so a steady
# background showed as a share (docs/cpu-accounting.md). Such sentences are reworded and
# flagged; later files say it themselves (they carry kernel_cpus_shared).
SCHEMA3_KERNEL = "kernel network processing on this core"
SCHEMA3_NOTE = ("recorded before the phases' CPU was compared as rates: a steady background "
                "may show as a share")


def where_it_goes(d):
    """The decomposition's sentence as the summary quotes it."""
    if d.get("kernel_cpus_shared") is not None:
        return d["text"]
    return (d["text"].replace(SCHEMA3_KERNEL, "kernel time on this rank's CPUs")
            + f" ({SCHEMA3_NOTE})")


def _point_row(p):
    targets = [fmt_time(p["target_comm_s"]), fmt_time(p["target_comp_s"])]
    if is_invalid(p):
        return targets + [""] * (len(POINT_HEADERS) - 3) + [f"invalid: {invalid_reason(p)}"]
    diagnosis = f"**{p.get('diagnosis') or 'unknown'}**"
    if p.get("diagnosis_text"):
        diagnosis += f": {p['diagnosis_text']}"
    if p.get("decomposition"):
        diagnosis += f" Where it goes: {where_it_goes(p['decomposition'])}."
    if p.get("calibration_note"):
        diagnosis += f" Calibration: {p['calibration_note']}."
    spread = p.get("comp_speed_spread")
    if spread is not None and spread >= COMP_SPREAD_SHOWN:
        diagnosis += (f" The ranks' computation speed differs {spread:.2f}× (slowest over "
                      "fastest mean reference).")
    ours = f"{fmt_pct(p.get('osu_on_nbc_times_pct'))} / {fmt_pct(p.get('imb_on_nbc_times_pct'))}"
    return targets + [
        fmt_bytes(p["msg_bytes"]), fmt_int(p["comp_size"]), fmt_time(p["t_comm_ref_s"]),
        fmt_time(p["t_comp_ref_s"]), fmt_time(p["t_measured_s"]), fmt_ratio(p["r_overhead"]),
        fmt_ratio(p["r_comm"]), fmt_ratio(p["r_comp_slowdown"]), fmt_pct(p["osu_overlap_pct"]),
        fmt_pct(p["imb_overlap_pct"]), ours, diagnosis]


def _disagreements(run):
    """OSU/IMB call ≥ 50 % 'overlap' while r_overhead ≥ 0.5 says mostly serialized, or
    they call < 50 % while r_overhead < 0.5 says mostly overlapped."""
    items = []
    for op in run.ops():
        points = sorted((p for p in run.point_map(op).values() if not is_invalid(p)),
                        key=lambda p: (p["target_comp_s"], p["target_comm_s"]))
        for p in points:
            item = _disagreement(op, p)
            if item:
                items.append(item)
    intro = (f"Points where OSU's or IMB's overlap, measured with their own protocols "
             f"(≥ {DISAGREE_PCT:.0f} % counts as overlap), and r_overhead (< "
             f"{DISAGREE_OVERHEAD} counts as overlap) disagree. Points flagged "
             "imprecise_reference are left out: their r_overhead is not a finding.")
    if not any(p.get("osu_overlap_pct") is not None or p.get("imb_overlap_pct") is not None
               for p in run.points):
        return [("p", intro + " Not available: this run has no OSU or IMB column measured "
                 "with their own protocols (nbc schema 5 and before, or --peer-iterations 0).")]
    if not items:
        return [("p", intro + " None: the three metrics agree on every valid point.")]
    return [("p", intro), ("list", items)]


def _disagreement(op, p):
    if p.get("diagnosis") == "imprecise_reference":
        return None
    ours = p["r_overhead"] < DISAGREE_OVERHEAD
    claims = [f"{name} {pct:.1f} %" for name, pct in
              (("OSU", p["osu_overlap_pct"]), ("IMB", p["imb_overlap_pct"]))
              if pct is not None and (pct >= DISAGREE_PCT) != ours]
    if not claims:
        return None
    where = f"{op}, comm {fmt_time(p['target_comm_s'])} × comp {fmt_time(p['target_comp_s'])}"
    verdict = "overlap" if ours else "little overlap"
    return (f"{where}: {' and '.join(claims)} overlap, but r_overhead "
            f"{p['r_overhead']:.2f} says {verdict} ({p.get('diagnosis') or 'unknown'})")


def _metadata_table(run, nbc):
    md, timing = run.metadata, run.timing
    rows = [
        ("label", md.get("label") or DASH),
        ("file", f"`{run.path.name}`"),
        ("MPI library", _library(md)),
        ("processes", fmt_int(md.get("processes"))),
        ("hosts", _hosts(md.get("hosts"))),
        ("CPUs per rank", _rank_cpus(md.get("placement"))),
        ("threads run on", _threads_run_on(md.get("placement"))),
        ("Slurm job", _slurm(md.get("placement"))),
        ("threads per rank", fmt_int(md.get("threads"))),
        ("dedicated cores", fmt_int(md.get("dedicated_cores"))),
        ("thread level", md.get("thread_level") or DASH),
        ("environment", _environment(md.get("environment"))),
        ("clock", md.get("clock_source") or DASH),
        ("liboverlap progress", _progress_choice(md.get("progress_choice"))),
        ("liboverlap cost model", _cost_model(md.get("cost_model"))),
    ]
    if nbc:
        rows.append(("clock sync", _clock_sync(md.get("clock_sync"))))
    rows += [
        ("command line", f"`{md['command_line']}`" if md.get("command_line") else DASH),
        ("started", md.get("started_at") or DASH),
        ("complete", _completeness(run, nbc)),
        ("wall time", fmt_time(timing.get("wall_s"))),
        ("calibration", _calibration(timing)),
        ("sweep", _sweep(run, nbc)),
    ]
    rows += [("note", n) for n in run.notes]
    return ("table", ["field", "value"], [[k, str(v)] for k, v in rows])


def _progress_choice(choice):
    """'shared (auto: 2 cores in this rank's CPU set …)'; a dash without liboverlap."""
    if not choice:
        return DASH
    return f"{choice.get('policy') or '?'} ({choice.get('reason') or 'no reason recorded'})"


def _cost_model(model):
    """'latency 7.5 µs, 0.138 GB/s (measured)'; a dash without liboverlap."""
    if not model:
        return DASH
    lat, bw = model.get("latency_s"), model.get("bandwidth_bytes_per_s")
    if lat is None or bw is None:
        return DASH
    return f"latency {fmt_time(lat)}, {bw / 1e9:.3g} GB/s ({model.get('source') or '?'})"


def _library(md):
    lib = md.get("mpi_library") or DASH
    extra = [x for x in (md.get("mpi_flavor"), md.get("mpi_standard") and
                         f"MPI {md['mpi_standard']}") if x]
    return f"{lib} ({', '.join(extra)})" if extra else lib


def _rank_cpus(placement):
    """Each rank's affinity mask at the start, grouped: 'rank 0: 0, rank 1: 1' or
    'every rank: 0-15'. A dash in files written before placement was recorded."""
    cpus = (placement or {}).get("cpus")
    if not cpus:
        return DASH
    if len(set(cpus)) == 1:
        return f"every rank: {cpus[0] or '?'}"
    shown = ", ".join(f"rank {r}: {c or '?'}" for r, c in enumerate(cpus[:8]))
    return shown + (f", … {len(cpus) - 8} more" if len(cpus) > 8 else "")


def _threads_run_on(placement):
    """Where the computation threads and liboverlap's thread ran, read back from /proc
    (hwloc's reading too, where it differs): 'rank 0: computation 0 · progress 1', grouped
    like the CPUs. A dash in files written before it was recorded."""
    ranks = ((placement or {}).get("threads") or {}).get("ranks")
    if not ranks:
        return DASH

    def one(r):
        text = "computation " + (", ".join(r["computation"]) or "none")
        if r["progress"]:
            text += " · progress " + ", ".join(r["progress"])
        if r["computation"] != r["computation_hwloc"] or r["progress"] != r["progress_hwloc"]:
            text += " (hwloc reads " + ", ".join(r["computation_hwloc"] + r["progress_hwloc"]) + ")"
        return text

    texts = [one(r) for r in ranks]
    if len(set(texts)) == 1:
        return f"every rank: {texts[0]}"
    shown = ", ".join(f"rank {r['rank']}: {t}" for r, t in zip(ranks[:8], texts))
    return shown + (f", … {len(ranks) - 8} more" if len(ranks) > 8 else "")


def _slurm(placement):
    """'job 4711 (step 0) on n[01-02]: 4 tasks, 2(x2) per node, 2 CPUs per task, bind
    quiet,cores', or 'not under Slurm'."""
    if not placement:
        return DASH
    job = placement.get("slurm")
    if not job:
        return "not under Slurm"
    step = f" (step {job['step_id']})" if job.get("step_id") else " (no srun step)"
    facts = [f"{job['tasks']} tasks" if job.get("tasks") else None,
             f"{job['tasks_per_node']} per node" if job.get("tasks_per_node") else None,
             f"{job['cpus_per_task']} CPUs per task" if job.get("cpus_per_task") else None,
             f"bind {job['cpu_bind']}" if job.get("cpu_bind") else None,
             f"partition {job['partition']}" if job.get("partition") else None]
    return (f"job {job.get('job_id')}{step} on {job.get('node_list') or '?'}: "
            + (", ".join(f for f in facts if f) or "no task layout given"))


def _hosts(hosts):
    """Placement, not rank order: 'n0 (2 ranks), n1 (2 ranks)' or one rank each."""
    if not hosts:
        return DASH
    if not isinstance(hosts, list):
        return str(hosts)
    per_host = Counter(str(h) for h in hosts)
    names = list(per_host)[:8]
    more = f", … {len(per_host) - 8} more" if len(per_host) > 8 else ""
    if set(per_host.values()) == {1}:
        return f"{len(per_host)} host(s), one rank each: {', '.join(names)}{more}"
    shown = [f"{h} ({per_host[h]} rank{'s' if per_host[h] > 1 else ''})" for h in names]
    return f"{len(per_host)} host(s): {', '.join(shown)}{more}"


def _environment(env):
    if not env:
        return "(none set)"
    if isinstance(env, dict):
        return ", ".join(f"`{k}={v}`" for k, v in sorted(env.items()))
    if isinstance(env, list):
        return ", ".join(f"`{e}`" for e in env)
    return str(env)


def _clock_sync(cs):
    if not isinstance(cs, dict) or not cs:
        return DASH
    return (f"{fmt_int(cs.get('passes'))} passes, offset error ≤ {fmt_time(cs.get('max_rtt_s'))}"
            f", {fmt_int(cs.get('barrier_late'))} late barrier(s), barrier window "
            f"{fmt_time(cs.get('barrier_window_s'))}")


def _completeness(run, nbc):
    if not nbc:
        return "yes" if run.complete else "no (partial run)"
    have = sum(len(run.point_map(op)) for op in run.ops())
    total = have + sum(len(run.missing(op)) for op in run.ops())
    state = "yes" if run.complete else "**no** (partial sweep)"
    return f"{state}, {have} of {total} points"


def _calibration(timing):
    cal = timing.get("calibration_s")
    if cal is None:
        return DASH
    return f"{fmt_time(cal)} ({fmt_share(cal, timing.get('wall_s'))} of the wall time)"


def _sweep(run, nbc):
    cfg = run.config
    if run.benchmark == "impact":
        comps = ", ".join(fmt_time(t) for t in cfg.get("comp_times_s") or [])
        return f"comp times {comps or DASH}; {fmt_int(cfg.get('runs'))} runs"
    if not nbc:
        return "; ".join(f"{k} {_config_value(v)}" for k, v in cfg.items())
    return (f"ops {', '.join(run.ops())}; comm times "
            f"{', '.join(fmt_time(t) for t in run.comm_times())}; comp times "
            f"{', '.join(fmt_time(t) for t in run.comp_times())}; "
            f"{fmt_int(cfg.get('iterations'))} iterations, {fmt_int(cfg.get('warmup'))} warm-up, "
            f"{fmt_int(cfg.get('calibration_runs'))} calibration runs, tolerance "
            f"{fmt_pct(100 * cfg['tolerance']) if cfg.get('tolerance') is not None else DASH}")


def _config_value(v):
    if isinstance(v, list):
        return ",".join(str(x) for x in v) or DASH
    return DASH if v is None else str(v)


def _impact_run(run):
    rows = []
    for p in sorted(run.points, key=lambda p: p["target_comp_s"]):
        target = fmt_time(p["target_comp_s"])
        if impact_invalid(p):
            rows.append([target] + [""] * (len(IMPACT_HEADERS) - 2)
                        + [f"invalid: {impact_reason(p)}"])
            continue
        for i, r in enumerate(p["ranks"] or [{}]):
            # The point's worst/median once, on its first rank row.
            point = [target, fmt_ratio(p["r_mpi_impact_max"]),
                     fmt_ratio(p["r_mpi_impact_median"])] if i == 0 else ["", "", ""]
            rows.append(point[:1] + [
                fmt_int(r.get("rank")), str(r.get("host") or DASH), fmt_int(r.get("comp_size")),
                fmt_time(r.get("t_comp_ref_s")), fmt_time(r.get("t_comp_passive_mpi_s")),
                fmt_ratio(r.get("r_mpi_impact"))] + point[1:])
    covered = {grid_key(p["target_comp_s"]) for p in run.points}
    missing = [t for t in run.config.get("comp_times_s") or [] if grid_key(t) not in covered]
    blocks = [("h", 2, f"Impact run: {run.title}"), _metadata_table(run, nbc=False),
              ("h", 3, f"{run.title} — r_MPI_impact per computation time"),
              ("table", list(IMPACT_HEADERS), rows)]
    if missing:
        blocks.append(("p", "Not measured yet: " + ", ".join(fmt_time(t) for t in missing) + "."))
    blocks += decomposition_blocks(run)
    return blocks
