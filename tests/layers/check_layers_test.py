#!/usr/bin/python3
"""scripts/check-layers on this repository (must pass) and on a small tree in which four
files break the rule of docs/architecture.md (each must be named, with its line and its
layer's rule, and nothing else)."""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRIPT = ROOT / "scripts" / "check-layers"
EXPECTED = [
    "src/bench/uses_cxx_layer.cpp:2: includes overlap/overlap.hpp; bench/ may include",
    "include/overlap/leaks.h:2: includes bench/benchmark.hpp; include/overlap/ may include overlap.h",
    "src/measure/uses_clock.cpp:3: includes clock/clock_model.hpp; measure/ may include base",
    "src/progress/uses_base.cpp:3: includes base/usage_error.hpp; progress/ may include nothing",
]


def main():
    failures = 0
    p = subprocess.run([SCRIPT], capture_output=True, text=True)
    ok = p.returncode == 0
    print(("ok   " if ok else "FAIL ") + f"this repository: exit {p.returncode}\n{p.stdout}")
    failures += not ok
    p = subprocess.run([SCRIPT, "--root", HERE / "violation", "--doc",
                        ROOT / "docs" / "architecture.md"], capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if not l.startswith("check-layers:")]
    for want in EXPECTED:
        found = [l for l in lines if l.startswith(want)]
        print(("ok   " if found else "FAIL ") + want)
        failures += not found
    ok = p.returncode == 1 and len(lines) == len(EXPECTED)
    print(("ok   " if ok else "FAIL ") + f"violations: exit {p.returncode}, {len(lines)} lines")
    failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
