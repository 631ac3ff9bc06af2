#!/usr/bin/env bash
# Runs ovx-creation's MPI_Comm_idup scenarios with an older liboverlap (OLD_LIBDIR, which
# holds its liboverlap.so.0) and with the build's own, Open MPI, 10 s watchdog each.
#   idup_ab.sh OLD_LIBDIR [BUILD_DIR (default build/test-openmpi)]
set -u
old=$1
build=${2:-build/test-openmpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for lib in "$old" ""; do
  label=${lib:-"this build"}
  for run in "idup-behind 2" "idup-behind 3" "behind 2" "idup-made 2" "churn 2"; do
    set -- $run
    start=$(date +%s%N)
    out=$(LD_LIBRARY_PATH=$lib timeout 60 mpiexec.openmpi --oversubscribe -x LD_LIBRARY_PATH \
          -n "$2" "$build/tests/mpi/ovx-creation" "$1" --timeout 10 2>&1)
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    verdict=$(printf '%s\n' "$out" | grep -m1 -E 'PASS|FAIL' || echo "no verdict")
    echo "$label | $1 np$2 | exit $rc | ${ms} ms | $verdict"
  done
done
