"""Point tables for any result kind, from the schema its file embeds: one row per point
with the point's flat fields, each formatted by its unit; a spread (NAME, NAME_p25,
NAME_p75) shown as one cell "median (p25–p75)"; invalid points as their key columns and
the reason; each list of nested records (progress' test runs, sync's ranks, ...) as a
table of its own, one row per element, led by the point's key columns.
"""
from report_schema import flat_fields
from report_units import DASH, fmt_bytes, fmt_int, fmt_pct, fmt_ratio, fmt_time

# Columns that say which point a row is (the first of these a kind has, in this order).
KEYS = ("impl", "op", "requested_bytes", "msg_bytes", "target_comm_s", "target_comp_s",
        "target_comp_s", "interval_bytes", "rank")
HIDDEN = {"valid", "invalid_reason", "element_bytes", "elapsed_s", "calibration_s"}


def fmt_value(v, unit):
    if v is None:
        return DASH
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return v
    return {"s": fmt_time, "bytes": fmt_bytes, "ratio": fmt_ratio,
            "%": fmt_pct}.get(unit, lambda x: fmt_int(x) if float(x).is_integer()
                                 else f"{x:.4g}")(v)


def _spread_parts(fields):
    """{median name: (p25 name, p75 name)} for the spreads among `fields`."""
    names = {f["name"] for f in fields}
    spreads = {}
    for n in names:
        base, unit = (n[:-2], "_s") if n.endswith("_s") else (n, "")
        lo, hi = f"{base}_p25{unit}", f"{base}_p75{unit}"
        if lo in names and hi in names:
            spreads[n] = (lo, hi)
    return spreads


def columns(fields):
    """(header, render(point)) per shown column."""
    spreads = _spread_parts(fields)
    quartiles = {q for pair in spreads.values() for q in pair}
    cols = []
    for f in flat_fields(fields):
        name, unit = f["name"], f["unit"]
        if name in HIDDEN or name in quartiles:
            continue
        if name in spreads:
            lo, hi = spreads[name]
            cols.append((f"{name} (p25–p75)", lambda p, n=name, u=unit, a=lo, b=hi:
                         f"{fmt_value(p.get(n), u)} ({fmt_value(p.get(a), u)}–"
                         f"{fmt_value(p.get(b), u)})" if p.get(n) is not None else DASH))
        else:
            cols.append((name, lambda p, n=name, u=unit: fmt_value(p.get(n), u)))
    return cols


def key_count(cols):
    k = 0
    while k < len(cols) and cols[k][0] in KEYS:
        k += 1
    return k


def table(points, fields, lead=None):
    """A table block of `points`; `lead` (header, render) columns come first."""
    cols = (lead or []) + columns(fields)
    keys = key_count(cols) if lead is None else len(lead)
    rows = []
    for p in points:
        cells = [render(p) for _, render in cols]
        if p.get("valid") is False:
            reason = p.get("invalid_reason") or "no reason given"
            cells = cells[:keys] + [""] * max(0, len(cols) - keys - 1) + [f"invalid: {reason}"]
        rows.append(cells)
    return ("table", [h for h, _ in cols], rows)


def generic_run(run):
    """The blocks of one run of a kind without a dedicated summary section."""
    fields = run.schema.get("points", [])
    if not fields:
        return [("p", "This file has no schema to read its points by.")]
    blocks = [("h", 3, f"{run.title} — points"), table(run.points, fields)]
    point_cols = columns(fields)
    lead = point_cols[:key_count(point_cols)]
    for f in fields:
        if f["kind"] != "sections" or not f.get("fields"):
            continue
        rows = [dict(element, **{"@point": p}) for p in run.points
                for element in p.get(f["name"]) or []]
        if not rows:
            continue
        lead_of_parent = [(h, lambda e, r=render: r(e["@point"])) for h, render in lead]
        blocks += [("h", 3, f"{run.title} — {f['name']}"),
                   table(rows, f["fields"], lead=lead_of_parent)]
    return blocks
