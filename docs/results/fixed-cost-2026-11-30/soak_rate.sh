#!/usr/bin/env bash
# One run of MPICH's caller soak as counted in soak-mpich.txt: ovx-soak caller on 3 local
# ranks x 3 threads for 45 s, the rescue thread after 1 ms, the rank's resident memory
# watched every second and the run killed past 800 MB (a blow-up). From the repository
# root, after scripts/test built build/test-mpich:
#   docs/results/fixed-cost-2026-11-30/soak_rate.sh LABEL [LIBDIR]
# LIBDIR: a directory holding another liboverlap.so to run against (LD_LIBRARY_PATH).
# Prints "LABEL peak N kB, K pass"; the run's output goes to $TMPDIR/soak-rate-LABEL.txt.
set -uo pipefail
cd "$(dirname "$0")/../../.."
label=${1:?usage: soak_rate.sh LABEL [LIBDIR]}
lib=${2:-}
out=${TMPDIR:-/tmp}/soak-rate-$label.txt
(env ${lib:+LD_LIBRARY_PATH=$lib} OVERLAP_CALLER_RESCUE_MS=1 timeout 200 mpiexec.mpich -n 3 \
   build/test-mpich/tests/mpi/ovx-soak caller --seconds 45 >"$out" 2>&1) &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  for r in $(ps -C ovx-soak -o rss=); do [ "$r" -gt "$peak" ] && peak=$r; done
  [ "$peak" -gt 800000 ] && pkill -f ovx-soak
done
echo "$label peak $peak kB, $(grep -cE '^PASS' "$out") pass"
