"""overlap-run's report files (benchmark "overlap-run", docs/result-format.md): per call
site over all ranks, how much was deferred, the overlap window gained and the time the
program stalled on its first touch; a figure and the summary's tables; and the program's
nonblocking collectives, routed or MPI's own and why.
"""
from collections import defaultdict

from report_inputs import InputError
from report_units import DASH, fmt_bytes, fmt_int, fmt_share, fmt_time

SITE_NUMBERS = ("calls", "bytes", "deferred", "deferred_by_copy", "completed",
                "touched_before_completion", "faults", "stall_s")


def unreached(run):
    """A report of a run none of whose calls reached overlap-run (metadata.intercepted
    false): no ranks, a note saying why."""
    return run.metadata.get("intercepted") is False and not run.ranks


def check_ranks(data):
    """The 'ranks' list, checked for what the report reads. Empty only in the report of a
    run none of whose calls reached overlap-run (metadata.intercepted false, a note)."""
    ranks = data.get("ranks")
    md = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    if isinstance(ranks, list) and not ranks and md.get("intercepted") is False:
        if not isinstance(md.get("note"), str):
            raise InputError("'ranks' is empty and 'metadata.note' does not say why")
        return ranks
    if not isinstance(ranks, list) or not ranks:
        raise InputError("'ranks' is missing or empty")
    for i, r in enumerate(ranks):
        if not isinstance(r, dict) or not isinstance(r.get("call_sites"), list):
            raise InputError(f"rank entry {i}: 'call_sites' is missing or not a list")
        for j, s in enumerate(r["call_sites"]):
            where = f"rank entry {i}, call site {j}"
            if not isinstance(s, dict) or not isinstance(s.get("call"), str):
                raise InputError(f"{where}: 'call' is missing")
            if not isinstance(s.get("site"), dict) or not isinstance(s["site"].get("text"), str):
                raise InputError(f"{where}: 'site.text' is missing")
            for key in SITE_NUMBERS:
                v = s.get(key)
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                    raise InputError(f"{where}: '{key}' is {v!r}, expected a number >= 0")
            if not isinstance(s.get("window_s"), dict) or not isinstance(s.get("not_deferred"), dict):
                raise InputError(f"{where}: 'window_s' or 'not_deferred' is missing")
    return ranks


def sites_over_ranks(run):
    """(call, site text) -> totals over ranks, in the order of first appearance."""
    rows = {}
    for r in run.ranks:
        for s in r["call_sites"]:
            key = (s["call"], s["site"]["text"])
            row = rows.setdefault(key, defaultdict(float, reasons=defaultdict(int), touches=defaultdict(int)))
            for k in SITE_NUMBERS:
                row[k] += s[k]
            row["window_sum"] += (s["window_s"].get("mean") or 0) * s["completed"]
            for name, n in s["not_deferred"].items():
                row["reasons"][name] += n
            for t in s.get("first_touches") or []:
                row["touches"][t["site"]["text"]] += t.get("count", 0)
    return rows


def collectives_over_ranks(run):
    """(call, site text) -> calls, routed and MPI's own by reason of the program's own
    collectives liboverlap has, nonblocking and blocking (ranks[].collective_sites; absent
    in reports before routing), and for nonblocking ones the requests waited for and each
    rank's median time from call to wait (wait_window_s)."""
    rows = {}
    for r in run.ranks:
        for s in r.get("collective_sites") or []:
            row = rows.setdefault((s["call"], s["site"]["text"]),
                                  {"calls": 0, "routed": 0, "own": defaultdict(int), "note": "",
                                   "waited": 0, "medians": []})
            row["calls"] += s.get("calls", 0)
            row["routed"] += s.get("routed", 0)
            window = s.get("wait_window_s")  # nonblocking ones, in reports that have it
            if window:
                row["waited"] += window["completed"]
                row["medians"].append(window["median"])
            for name, n in (s.get("mpi_own") or {}).items():
                row["own"][name] += n
            row["note"] = row["note"] or s.get("operation_note", "")
    return rows


def collectives_blocks(run):
    """The table of the program's collectives: routed to liboverlap's task graphs, or MPI's
    own and why (docs/overlap-run.md, "Nonblocking collectives", "Blocking collectives";
    a routed blocking one's deferral is in the call-site table)."""
    rows = collectives_over_ranks(run)
    if not rows:
        return []
    table = []
    for (call, site), r in rows.items():
        own = ", ".join(f"{n}× {name}" for name, n in sorted(r["own"].items())) or DASH
        medians = sorted(r["medians"])
        wait = DASH
        if medians:
            lo, hi = fmt_time(medians[0]), fmt_time(medians[-1])
            wait = lo if lo == hi else f"{lo} to {hi}"
        table.append([call, site, fmt_int(r["calls"]), fmt_int(r["routed"]), own, wait,
                      r["note"] or DASH])
    setting = run.metadata.get("collectives", "overlap")
    return [("h", 3, "Collectives"),
            ("p", f"Routed to liboverlap's task graphs (--collectives {setting}), or left to "
                  "MPI's own, with the reason. A routed blocking collective is also a call "
                  "site above: deferred or not, and why. \"Call to wait\": for a nonblocking "
                  "one, the median time from the call's return to the wait that completed it "
                  "(each rank's median; the computation it could overlap, what "
                  "overlap-bench advise --from reads)."),
            ("table", ("call", "site", "calls", "routed", "MPI's own", "call to wait", "note"),
             table)]


def intercept_figure(run, stem, outdir):
    """Per call site: mean overlap window and mean stall per deferred call (bars), with
    the share of calls deferred written beside them."""
    from report_plots import DPI, _figure, _save

    rows = sites_over_ranks(run)
    labels = [f"{call} {site}" for call, site in rows]
    window = [r["window_sum"] / r["completed"] * 1e3 if r["completed"] else 0 for r in rows.values()]
    stall = [r["stall_s"] / r["completed"] * 1e3 if r["completed"] else 0 for r in rows.values()]
    height = 120 + 36 * max(1, len(rows))
    fig = _figure(900, height)
    ax = fig.add_axes([0.36, 60 / height, 0.5, 1 - 100 / height])
    ys = range(len(rows))
    ax.barh([y + 0.2 for y in ys], window, height=0.4, color="#3a923a", label="overlap window (mean)")
    ax.barh([y - 0.2 for y in ys], stall, height=0.4, color="#c0392b", label="stall at first touch (mean)")
    ax.set_yticks(list(ys))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ms per deferred call")
    for y, r in zip(ys, rows.values()):
        ax.annotate(f"{fmt_share(r['deferred'], r['calls'])} deferred", (1.0, y), xycoords=("axes fraction", "data"),
                    xytext=(6, 0), textcoords="offset points", va="center", fontsize=8)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"overlap-run: {run.title}", fontsize=10)
    del DPI
    return _save(fig, outdir, stem), (900, height)


def intercept_blocks(run):
    md = run.metadata
    if unreached(run):
        return [("h", 2, f"overlap-run: {run.title}"),
                ("p", f"Nothing was intercepted: {md['note']}.")]
    blocks = [("h", 2, f"overlap-run: {run.title}"),
              ("p", f"{md.get('processes')} ranks, {md.get('mpi_library', md.get('mpi_flavor'))}; "
                    f"progress {md.get('progress')} ({md.get('progress_mechanism', '')}); "
                    f"messages from {fmt_bytes(md.get('min_size_bytes'))} deferred; families "
                    f"{md.get('defer')}." + (f" {md['progress_note']}." if md.get("progress_note") else ""))]
    headers = ("call", "site", "calls", "bytes", "deferred", "copied", "mean window",
               "touched early", "stall", "first touch", "not deferred")
    rows = []
    for (call, site), r in sites_over_ranks(run).items():
        touch = max(r["touches"].items(), key=lambda kv: kv[1])[0] if r["touches"] else DASH
        reasons = ", ".join(f"{n}× {name}" for name, n in sorted(r["reasons"].items())) or DASH
        rows.append([call, site, fmt_int(r["calls"]), fmt_bytes(r["bytes"]), fmt_int(r["deferred"]),
                     fmt_int(r["deferred_by_copy"]),
                     fmt_time(r["window_sum"] / r["completed"]) if r["completed"] else DASH,
                     fmt_int(r["touched_before_completion"]), fmt_time(r["stall_s"]), touch, reasons])
    blocks.append(("table", headers, rows))
    return blocks + collectives_blocks(run)
