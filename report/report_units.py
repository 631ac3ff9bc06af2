"""Human formatting of the numbers in result files: times, sizes, ratios, percentages.

JSON holds seconds and bytes; people read µs/ms/s and KiB/MiB. Every formatter accepts
None (a value that was not measured or is invalid) and renders it as a dash, so callers
never have to special-case missing numbers.
"""

DASH = "–"


def fmt_time(seconds, digits=3):
    """'850 µs', '4 ms', '1.02 s', '2 min 5 s'; three significant digits below a minute."""
    if seconds is None:
        return DASH
    s = float(seconds)
    mag = abs(s)
    if mag >= 3600:
        return f"{int(s // 3600)} h {int(s % 3600 // 60)} min"
    if mag >= 120:
        return f"{int(s // 60)} min {int(round(s % 60))} s"
    if mag >= 1 or mag == 0:
        return f"{s:.{digits}g} s"
    if mag >= 1e-3:
        return f"{s * 1e3:.{digits}g} ms"
    if mag >= 1e-6:
        return f"{s * 1e6:.{digits}g} µs"
    return f"{s * 1e9:.{digits}g} ns"


def fmt_bytes(n):
    """'512 B', '1.5 KiB', '8 MiB': message sizes are calibrated, so rarely round."""
    if n is None:
        return DASH
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.3g} {unit}" if unit != "B" else f"{int(value)} B"
        value /= 1024
    return DASH  # unreachable; keeps linters quiet


def fmt_ratio(r):
    return DASH if r is None else f"{float(r):.2f}"


def fmt_pct(p):
    return DASH if p is None else f"{float(p):.1f} %"


def fmt_int(n):
    return DASH if n is None else str(int(n))


def fmt_share(part, whole):
    """Share of `part` in `whole` as '32 %'; dash when either is unknown or whole is 0."""
    if part is None or not whole:
        return DASH
    return f"{100.0 * float(part) / float(whole):.0f} %"
