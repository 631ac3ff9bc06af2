#!/usr/bin/python3
"""The README's table from run.sh's output directory: per MPI and point, the median time per
iteration over the repetitions, plain and under overlap-run, their ratio, and the range of
the per-repetition ratios. Fails if a point's checksum differs between the two forms."""
import re
import statistics
import sys
from pathlib import Path

LINE = re.compile(r"^(\w+) bytes (\d+) comp_us (\d+) iterations \d+ median_us ([\d.]+) "
                  r"checksum (\S+)$", re.M)


def load(d):
    """{(mpi, point): {form: {rep: (us, checksum)}}}"""
    out = {}
    for f in sorted(Path(d).glob("*-r*.txt")):
        m = re.match(r"(openmpi|mpich)-(plain|overlap-run)-r(\d+)\.txt", f.name)
        if not m:
            continue
        mpi, form, rep = m.groups()
        for op, size, comp, us, check in LINE.findall(f.read_text()):
            key = (mpi, f"{op} {int(size)} B, compute {int(comp) / 1000:g} ms")
            out.setdefault(key, {}).setdefault(form, {})[rep] = (float(us), check)
    return out


def main():
    data = load(sys.argv[1])
    print("| MPI | point | plain (ms) | overlap-run (ms) | plain / overlap-run | range over runs |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (mpi, point), forms in data.items():
        plain, inter = forms.get("plain", {}), forms.get("overlap-run", {})
        reps = sorted(set(plain) & set(inter))
        for r in reps:
            if plain[r][1] != inter[r][1]:
                sys.exit(f"{mpi} {point} run {r}: checksum {inter[r][1]} != plain {plain[r][1]}")
        p = statistics.median(plain[r][0] for r in reps)
        o = statistics.median(inter[r][0] for r in reps)
        ratios = [plain[r][0] / inter[r][0] for r in reps]
        print(f"| {mpi} | {point} | {p / 1000:.3f} | {o / 1000:.3f} | {p / o:.2f} | "
              f"{min(ratios):.2f}-{max(ratios):.2f} |")


if __name__ == "__main__":
    main()
