#!/bin/sh
# Open MPI on the emulated cluster selects PMIx's hash key-value store in every process
# (mpirun, the daemons, the ranks) and prints no PMIX ERROR line: the shared-memory stores
# (gds ds21/ds12) printed "PMIX ERROR ... dstore_base.c" on every run (docs/emulated-cluster.md).
# Usage: check_cluster_pmix.sh CLUSTER OVERLAP_BENCH (root, with the cluster up, Open MPI build).
set -u
cluster=$1 bench=$2
fail() { echo "FAIL: $*"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
PMIX_MCA_gds_base_verbose=10 "$cluster" run --mpi openmpi -n 2 --timeout 120 -- \
  "$bench" sync --passes 2 --span 0.2s --verify-after 0.1s --barrier-iterations 10 >"$log" 2>&1
rc=$?
[ $rc -eq 0 ] || { tail -20 "$log"; fail "the run exited $rc"; }
! grep -q "PMIX ERROR" "$log" || { grep "PMIX ERROR" "$log" | head -5; fail "PMIX ERROR lines"; }
# Each process prints its final choice: "Final gds priorities" then one line per component.
finals=$(grep -c "Final gds priorities" "$log")
hash=$(grep -c "gds: hash Priority" "$log")
others=$(grep -c "gds: ds[0-9]* Priority" "$log")
[ "$finals" -ge 5 ] || fail "$finals processes reported their PMIx store, want mpirun + 2 daemons + 2 ranks"
[ "$hash" -eq "$finals" ] && [ "$others" -eq 0 ] ||
  fail "$finals processes, $hash chose gds hash, $others listed a shared-memory store (ds12/ds21)"
echo "PASS: $finals Open MPI processes use PMIx's hash store, no PMIX ERROR line"
