#!/bin/sh
# `scripts/cluster run --done FILE`: a job that has written its complete result but does
# not end (MPICH's Finalize hang) is stopped after the grace time and counts as success;
# a job that fails before that keeps its exit code; a file that was complete before the
# run started does not end the run early. Usage: check_cluster_done.sh CLUSTER (root, with
# the cluster up).
set -u
cluster=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OVERLAP_CLUSTER_DONE_GRACE=3

start=$(date +%s)
"$cluster" run --mpi openmpi -n 2 --timeout 120 --done "$dir/a.json" -- \
  sh -c "printf '{\"complete\": true}\n' > $dir/a.json; exec sleep 297"
rc=$? took=$(($(date +%s) - start))
[ $rc -eq 0 ] || fail "a finished but hanging job: exit $rc, want 0"
[ $took -lt 90 ] || fail "a finished but hanging job was stopped after $took s, want < 90"
! pgrep -f 'sleep 297' >/dev/null || fail "the hanging job's processes are still running"

printf '{"complete": false}\n' > "$dir/b.json"
"$cluster" run --mpi openmpi -n 2 --timeout 120 --done "$dir/b.json" -- sh -c 'exit 3'
rc=$?
[ $rc -ne 0 ] || fail "a failing job: exit 0, want its nonzero exit code"

printf '{"complete": true}\n' > "$dir/c.json"
start=$(date +%s)
"$cluster" run --mpi openmpi -n 2 --timeout 120 --done "$dir/c.json" -- sh -c 'sleep 8'
rc=$? took=$(($(date +%s) - start))
[ $rc -eq 0 ] || fail "a job with an old complete file: exit $rc, want 0"
[ $took -ge 8 ] || fail "a job with an old complete file was stopped after $took s, want >= 8"
echo "PASS: --done stops a finished hanging job, keeps failures, ignores stale files"
