#!/usr/bin/env bash
# The test mpi.ovx_hardening.lone-comms.np3 (MPICH) run N times against the library of this
# checkout and N times against another one, alternating. From the repository root, after
# scripts/test built build/test-mpich:
#   docs/results/idup-self-2026-11-30/lone_comms_ab.sh OLD_LIBDIR [N]
# OLD_LIBDIR holds the other liboverlap.so (e.g. a build of b12ed46, the commit before the
# fix, configured with -DOVERLAP_MPI=mpich: its src/collectives). Prints one line per run.
set -uo pipefail
cd "$(dirname "$0")/../../.."
old=${1:?usage: lone_comms_ab.sh OLD_LIBDIR [N]}
n=${2:-5}
prog=build/test-mpich/tests/mpi/ovx-hardening
for i in $(seq 1 "$n"); do
  for which in new old; do
    start=$(date +%s%N)
    if [ "$which" = old ]; then
      out=$(LD_LIBRARY_PATH=$old timeout 120 mpiexec.mpich -n 3 $prog lone-comms --timeout 100 2>&1)
    else
      out=$(timeout 120 mpiexec.mpich -n 3 $prog lone-comms --timeout 100 2>&1)
    fi
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    verdict=$(echo "$out" | grep -E "^PASS|FAIL" | head -1)
    count=$(echo "$out" | grep -E "^[0-9]+ collectives on one-process" | head -1)
    printf '%s run %d: rc %d, %d.%d s: %s %s\n' "$which" "$i" "$rc" $((ms / 1000)) \
      $((ms % 1000 / 100)) "$verdict" "$count"
  done
done
