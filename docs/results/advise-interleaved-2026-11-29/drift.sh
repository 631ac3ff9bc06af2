#!/bin/bash
# advise under a machine whose speed changes while it measures: a busy loop on node 0's core
# for 0.7 s of every 2 s (a noisy neighbour), advise --size 256KiB --comp-time 4ms on 2
# emulated nodes (Open MPI), the build before the loops were interleaved (OLD, its
# overlap-bench) and this one, alternately, REPS times each; then the same without the busy
# loop. Root (the emulated cluster).
#   OLD=/tmp/old/build/src/apps/overlap-bench REPS="1 2 3 4" \
#     docs/results/advise-interleaved-2026-11-29/drift.sh    # about 3 minutes
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$root"
export OVERLAP_CLUSTER_PREFIX=drf- OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
new=build/test-openmpi/src/apps/overlap-bench
hog=
stop_hog() { [ -n "$hog" ] && kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null; hog=; }
trap 'stop_hog; scripts/cluster down >/dev/null' EXIT
scripts/cluster up 2 --cpus 0,1
for load in busy quiet; do
  for rep in ${REPS:-1 2 3}; do
    if [ $load = busy ]; then
      taskset -c 0 bash -c \
        'while :; do timeout 0.7 bash -c "while :; do :; done"; sleep 1.3; done' &
      hog=$!
    fi
    order=(old new)
    [ $((rep % 2)) -eq 0 ] && order=(new old)
    for build in "${order[@]}"; do
      [ $build = old ] && bin=$OLD || bin=$new
      out="$here/drift-$load-$build-r$rep"
      scripts/cluster run --mpi openmpi -n 2 -- "$bin" advise --bar never --size 256KiB \
        --comp-time 4ms --output "$out.json" > "$out.txt" 2>&1
    done
    stop_hog
  done
done
"$here/drift_summary.py" "$here" > "$here/drift.md"
cat "$here/drift.md"
