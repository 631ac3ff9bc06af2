"""Reading and checking the result files of `overlap-bench nbc` and `overlap-bench impact`.

The format is docs/result-format.md. Everything is checked before anything is drawn, so
a bad file costs one clear line on stderr and not a half-written report. Checks are about
structure (what the report needs to draw), not about physics: the numbers are shown as
the benchmark wrote them.
"""
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SUPPORTED_SCHEMAS = {"nbc": {1}, "impact": {1}}

# Measured fields and ratios of an nbc point; on an invalid point they are ignored even if
# a writer left numbers there, because the format promises null and a report must not
# show numbers the benchmark itself disowned.
NBC_NUMBERS = (
    "msg_bytes", "comp_size", "iterations", "t_comm_ref_s", "t_comp_ref_s", "t_measured_s",
    "t_measured_p25_s", "t_measured_p75_s", "t_call_s", "t_comp_s", "t_wait_s",
    "r_overhead", "r_comm", "r_comp_slowdown", "osu_overlap_pct", "imb_overlap_pct",
    "calibration_s", "elapsed_s",
)
IMPACT_NUMBERS = ("r_mpi_impact_max", "r_mpi_impact_median")
RANK_NUMBERS = ("rank", "comp_size", "t_comp_ref_s", "t_comp_passive_mpi_s", "r_mpi_impact")


class InputError(Exception):
    """What is wrong with one file, as one line without the file name."""


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
    title: str = ""
    duplicates: int = 0
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
            policy = run.config.get("progress", "shared")
            metadata["label"] = f"{run.label} · liboverlap {policy}"
        else:
            metadata["label"] = f"{run.label} · MPI"
        part = Run(path=run.path, benchmark=run.benchmark, metadata=metadata, config=run.config,
                   complete=run.complete, timing=run.timing,
                   points=[p for p in run.points if p.get("impl", "mpi") == impl])
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
    if bench not in SUPPORTED_SCHEMAS:
        raise InputError(f"unknown benchmark {json.dumps(bench)} (overlap-report reads "
                         f"{' and '.join(sorted(SUPPORTED_SCHEMAS))})")
    version = data.get("schema_version")
    allowed = SUPPORTED_SCHEMAS[bench]
    if type(version) is not int or version not in allowed:
        raise InputError(f"unsupported schema_version {json.dumps(version)} for {bench} "
                         f"(overlap-report reads {', '.join(map(str, sorted(allowed)))})")
    metadata = _object(data, "metadata", required=True)
    config = _object(data, "config", required=False)
    timing = _object(data, "timing", required=False)
    points = data.get("points")
    if not isinstance(points, list):
        raise InputError("'points' is missing or not a list")
    check = _check_nbc_point if bench == "nbc" else _check_impact_point
    points = [check(i, p) for i, p in enumerate(points)]
    run = Run(path=path, benchmark=bench, metadata=metadata, config=config,
              complete=data.get("complete") is True, points=points, timing=timing)
    if bench == "nbc":
        run.duplicates = len(points) - sum(len(run.point_map(op)) for op in run.ops())
    return run


def _object(data, key, required):
    value = data.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"'{key}' is missing or not an object")
    return value


def _number_or_null(where, point, key):
    v = point.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"{where}: '{key}' is {json.dumps(v)}, expected a number or null")
    return v


def _coordinate(where, point, key):
    v = _number_or_null(where, point, key)
    if v is None or v <= 0:
        raise InputError(f"{where}: '{key}' must be a positive number of seconds")
    return float(v)


def _check_nbc_point(i, p):
    where = f"point {i}"
    if not isinstance(p, dict):
        raise InputError(f"{where} is not an object")
    if "impl" in p and p["impl"] not in ("mpi", "overlap"):
        raise InputError(f"point {i}: 'impl' is {json.dumps(p['impl'])} (allowed: \"mpi\", "
                         f"\"overlap\")")
    if not isinstance(p.get("op"), str) or not p["op"]:
        raise InputError(f"{where}: 'op' is missing or not a string")
    out = dict(p)
    out["target_comm_s"] = _coordinate(where, p, "target_comm_s")
    out["target_comp_s"] = _coordinate(where, p, "target_comp_s")
    for key in NBC_NUMBERS:
        out[key] = _number_or_null(where, p, key)
    if p.get("valid") is False:
        out.update({key: None for key in NBC_NUMBERS
                    if key not in ("calibration_s", "elapsed_s", "iterations")})
    return out


def _check_impact_point(i, p):
    where = f"point {i}"
    if not isinstance(p, dict):
        raise InputError(f"{where} is not an object")
    out = dict(p)
    out["target_comp_s"] = _coordinate(where, p, "target_comp_s")
    for key in IMPACT_NUMBERS:
        out[key] = _number_or_null(where, p, key)
    ranks = p.get("ranks") or []
    if not isinstance(ranks, list) or not all(isinstance(r, dict) for r in ranks):
        raise InputError(f"{where}: 'ranks' is not a list of objects")
    out["ranks"] = [{**r, **{k: _number_or_null(f"{where} rank {j}", r, k) for k in RANK_NUMBERS}}
                    for j, r in enumerate(ranks)]
    if p.get("valid") is False:
        out.update({key: None for key in IMPACT_NUMBERS})
    return out


def impact_invalid(point):
    return point.get("valid") is False or point.get("r_mpi_impact_max") is None


def impact_reason(point):
    if point.get("valid") is False:
        return str(point.get("invalid_reason") or "no reason given")
    return "r_mpi_impact_max is null"


def assign_titles(runs):
    """Panel titles: the label, plus the file stem where two runs of the same benchmark
    share a label (comparing two files of one library is the common case), plus a counter
    if even that collides (the same file given twice). An nbc and an impact run of the
    same configuration rightly keep the same plain label: they never share a figure."""
    for bench in SUPPORTED_SCHEMAS:
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
