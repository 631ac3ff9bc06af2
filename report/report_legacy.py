"""Result files written before files embedded their schema: schema_version 1 of nbc and
impact, as overlap-bench 0.1 wrote them. Checked the way overlap-report 0.1 checked them.

One change in meaning: 0.1 computed imb_overlap_pct with a formula that is not IMB-NBC's
(minimum instead of maximum in the denominator, each term's maximum over ranks, the
computation-alone time), so it is not shown for these files (null, with a note).
"""
import json
import math

from report_schema import InputError

LEGACY = {"nbc": {1}, "impact": {1}}
IMB_NOTE = ("imb_overlap_pct of schema_version 1 files is not shown: overlap-bench 0.1 "
            "computed it with a formula that is not IMB-NBC's")

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


def legacy_points(bench, points):
    """The checked points of a schema 1 file; raises InputError."""
    check = _check_nbc_point if bench == "nbc" else _check_impact_point
    checked = [check(i, p) for i, p in enumerate(points)]
    if bench == "nbc":
        for p in checked:
            p["imb_overlap_pct"] = None
    return checked


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


