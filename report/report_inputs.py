"""Reading and checking the result files of every overlap-bench benchmark, through one
reader: a file that embeds its schema (docs/result-format.md) is checked against it,
whatever its kind; schema_version 1 files of nbc and impact through report_legacy.
Everything is checked before anything is drawn, so a bad file costs one clear line on
stderr and not a half-written report. Checks are about structure (what the report needs
to draw), not about physics: the numbers are shown as the benchmark wrote them.
"""
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from report_legacy import IMB_NOTE, LEGACY, legacy_points
from report_units import fmt_bytes, fmt_time
from report_schema import (InputError, check_fields, check_schema_description,
                           measured_fields)

# The kinds this report draws figures for; any other kind that embeds its schema is
# still read and tabled.
KNOWN = ("nbc", "impact", "latency", "coll", "progress", "sync", "p2p")


def grid_key(seconds):
    """Grid coordinates are compared through this, so 0.064 from the config and 0.064
    written into a point match even after a float round trip."""
    return float(f"{float(seconds):.9g}")


@dataclass
class Run:
    path: Path
    benchmark: str
    metadata: dict
    config: dict
    complete: bool
    points: list
    timing: dict
    schema: dict = field(default_factory=dict)  # section -> field descriptions (or {})
    notes: list = field(default_factory=list)   # what a reader must know about this file
    title: str = ""
    duplicates: int = 0
    ranks: list = field(default_factory=list)  # overlap-run: per rank, its call sites
    _by_op: dict = field(default_factory=dict, repr=False)

    @property
    def label(self):
        md = self.metadata
        return str(md.get("label") or md.get("mpi_flavor") or self.path.stem)

    def ops(self):
        """Ops of the sweep in config order, then any op only seen in points."""
        ops = [str(o) for o in self.config.get("ops") or []]
        for p in self.points:
            if p.get("op") not in ops:
                ops.append(p["op"])
        return ops

    def comm_times(self):
        more = (p["target_comm_s"] for p in self.points)
        return union_times(self.config.get("comm_times_s"), more)

    def comp_times(self):
        more = (p["target_comp_s"] for p in self.points)
        return union_times(self.config.get("comp_times_s"), more)

    def point_map(self, op):
        """{(comm_key, comp_key): point} of one op; a repeated coordinate keeps the last
        point written, which is the one a resumed run measured last."""
        if op not in self._by_op:
            self._by_op[op] = {(grid_key(p["target_comm_s"]), grid_key(p["target_comp_s"])): p
                               for p in self.points if p.get("op") == op}
        return self._by_op[op]

    def missing(self, op):
        """Grid coordinates of this run's own sweep that have no point yet."""
        have = self.point_map(op)
        return [(c, k) for k in self.comp_times() for c in self.comm_times()
                if (grid_key(c), grid_key(k)) not in have]


def union_times(first, more):
    seen = {}
    for v in list(first or []) + list(more):
        seen.setdefault(grid_key(v), float(v))
    return sorted(seen.values())


def is_invalid(point):
    """The report's single notion of an unusable nbc point: the benchmark said so, or the
    headline ratio is missing (a valid point without r_overhead cannot be drawn)."""
    return point.get("valid") is False or point.get("r_overhead") is None


def invalid_reason(point):
    if point.get("valid") is False:
        return str(point.get("invalid_reason") or "no reason given")
    return "r_overhead is null"


def load_run(path):
    """Parse and check one file; raises InputError with a one-line explanation."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise InputError("not a text file (not UTF-8)") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:
        raise InputError(f"not valid JSON: {e}") from None
    return _check_top(path, data)


def split_by_impl(run):
    """An nbc sweep with --impl mpi,overlap measured two implementations point by point;
    the report shows them as two runs side by side, labelled by implementation."""
    if run.benchmark != "nbc":
        return [run]
    impls = []
    for p in run.points:
        if p.get("impl", "mpi") not in impls:
            impls.append(p.get("impl", "mpi"))
    for name in run.config.get("impls") or []:
        if name not in impls:
            impls.append(name)
    if impls in ([], ["mpi"]):
        return [run]
    runs = []
    for impl in impls:
        metadata = dict(run.metadata)
        if impl == "overlap":
            # The policy in effect (auto resolved; metadata.progress_choice), else as asked.
            choice = run.metadata.get("progress_choice") or {}
            policy = choice.get("policy") or run.config.get("progress", "shared")
            if run.config.get("progress") == "auto" and choice.get("policy"):
                policy = f"auto → {policy}"
            metadata["label"] = f"{run.label} · liboverlap {policy}"
        else:
            metadata["label"] = f"{run.label} · MPI"
        part = Run(path=run.path, benchmark=run.benchmark, metadata=metadata, config=run.config,
                   complete=run.complete, timing=run.timing, schema=run.schema,
                   notes=run.notes, points=[p for p in run.points if p.get("impl", "mpi") == impl])
        part.duplicates = len(part.points) - sum(len(part.point_map(op)) for op in part.ops())
        runs.append(part)
    return runs


def _reject_constant(name):
    # Python's json accepts NaN/Infinity; the format promises null for unmeasured values.
    raise ValueError(f"{name} is not allowed (the format uses null)")


def _check_top(path, data):
    if not isinstance(data, dict):
        raise InputError("top level is not a JSON object")
    bench = data.get("benchmark")
    if not isinstance(bench, str) or not bench:
        raise InputError(f"unknown benchmark {json.dumps(bench)} (not an overlap-bench result)")
    version = data.get("schema_version")
    if bench == "overlap-run":
        # overlap-run's report (not a benchmark: call sites, not points) is read by its own
        # checks; written once, at MPI_Finalize, so a file that exists is complete.
        from report_intercept import check_ranks
        if version != 1:
            raise InputError(f"unsupported schema_version {json.dumps(version)} for "
                             "overlap-run (overlap-report reads 1)")
        return Run(path=path, benchmark=bench, metadata=_object(data, "metadata", required=True),
                   config={}, complete=True, points=[], timing={}, ranks=check_ranks(data))
    legacy = type(version) is int and version in LEGACY.get(bench, set())
    if "schema" not in data and not legacy:
        raise InputError(f"unsupported schema_version {json.dumps(version)} for {bench} "
                         "(overlap-report reads files that embed their schema, and "
                         "schema_version 1 of nbc and impact)")
    metadata = _object(data, "metadata", required=True)
    config = _object(data, "config", required=False)
    timing = _object(data, "timing", required=False)
    points = data.get("points")
    if not isinstance(points, list):
        raise InputError("'points' is missing or not a list")
    run = Run(path=path, benchmark=bench, metadata=metadata, config=config,
              complete=data.get("complete") is True, points=points, timing=timing)
    if "schema" in data:
        run.schema = check_schema_description(data["schema"])
        check_fields(metadata, run.schema["metadata"], "metadata")
        check_fields(config, run.schema["config"], "config")
        check_fields(timing, run.schema["timing"], "timing")
        for i, p in enumerate(points):
            check_fields(p, run.schema["points"], f"point {i}")
        run.points = [_disowned(p, run.schema["points"]) for p in points]
    else:
        run.points = legacy_points(bench, points)
        if bench == "nbc":
            run.notes.append(IMB_NOTE)
    if bench == "nbc":
        if type(version) is int and version <= 5:
            _formulas_on_nbc_times(run)
        for i, p in enumerate(run.points):
            if "impl" in p and p["impl"] not in ("mpi", "overlap"):
                raise InputError(f"point {i}: 'impl' is {json.dumps(p['impl'])} (allowed: "
                                 f"\"mpi\", \"overlap\")")
        run.duplicates = len(run.points) - sum(len(run.point_map(op)) for op in run.ops())
    return run


PEERS_NOTE = ("OSU and IMB columns of nbc schema 5 and before are their formulas on nbc's own "
              "iterations (every rank computing as long as the slowest), not what OSU and IMB "
              "measure with their own protocols; shown as such, not as the peers' numbers")


def _formulas_on_nbc_times(run):
    """Until nbc schema 5, osu_overlap_pct and imb_overlap_pct held the peers' formulas on
    nbc's own iterations; schema 6 calls them *_on_nbc_times_pct and measures the columns
    with the peers' own protocols (docs/result-format.md)."""
    for p in run.points:
        p["osu_on_nbc_times_pct"] = p.get("osu_overlap_pct")
        p["imb_on_nbc_times_pct"] = p.get("imb_overlap_pct")
        p["osu_overlap_pct"] = p["imb_overlap_pct"] = None
    run.notes.append(PEERS_NOTE)


def _disowned(point, fields):
    """An invalid point's measured numbers are null by the format; a report must not show
    numbers the benchmark itself disowned, whatever a writer left there."""
    if point.get("valid") is not False:
        return point
    return {**point, **{k: None for k in measured_fields(fields) if k in point}}


def _object(data, key, required):
    value = data.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"'{key}' is missing or not an object")
    return value


def impact_invalid(point):
    return point.get("valid") is False or point.get("r_mpi_impact_max") is None


def impact_reason(point):
    if point.get("valid") is False:
        return str(point.get("invalid_reason") or "no reason given")
    return "r_mpi_impact_max is null"


# Kinds without an op grid whose points carry a decomposition (docs/cpu-accounting.md):
# (sort key, the point's name in figures and tables, whether it is unusable), one place
# for report_cpu's bars and report_summary's tables.
DECOMPOSED_KINDS = {
    "progress": (lambda p: (str(p.get("impl")), str(p.get("op")), p.get("requested_bytes") or 0),
                 lambda p: f"{p.get('impl')} {p.get('op')} {fmt_bytes(p.get('msg_bytes'))}",
                 lambda p: p.get("valid") is False),
    "impact": (lambda p: p["target_comp_s"], lambda p: fmt_time(p["target_comp_s"]),
               impact_invalid),
    "p2p": (lambda p: (p.get("msg_bytes") or 0, p.get("target_comp_s") or 0, str(p.get("impl"))),
            lambda p: f"{p.get('impl')} {fmt_bytes(p.get('msg_bytes'))} "
                      f"{fmt_time(p.get('target_comp_s'))}",
            lambda p: p.get("valid") is False),
}


def assign_titles(runs):
    """Panel titles: the label, plus the file stem where two runs of the same benchmark
    share a label (comparing two files of one library is the common case), plus a counter
    if even that collides (the same file given twice). Runs of different benchmarks
    rightly keep the same plain label: they never share a figure."""
    for bench in dict.fromkeys(r.benchmark for r in runs):
        _disambiguate([r for r in runs if r.benchmark == bench])
    return runs


def _disambiguate(runs):
    labels = Counter(r.label for r in runs)
    for r in runs:
        r.title = r.label if labels[r.label] == 1 else f"{r.label} ({r.path.stem})"
    totals, seen = Counter(r.title for r in runs), Counter()
    for r in runs:
        if totals[r.title] > 1:
            seen[r.title] += 1
            r.title = f"{r.title} #{seen[r.title]}"


def op_grid(runs, op):
    """Shared axes of one op across runs: the union of their coordinates, so panels side
    by side line up cell for cell (a run that lacks a coordinate shows it as missing)."""
    comm = union_times([], (c for r in runs for c in r.comm_times()))
    comp = union_times([], (c for r in runs for c in r.comp_times()))
    return comm, comp


def all_ops(runs):
    ops = []
    for r in runs:
        ops += [op for op in r.ops() if op not in ops]
    return ops
