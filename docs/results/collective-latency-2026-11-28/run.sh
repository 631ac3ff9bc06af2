#!/bin/sh
# Issue 28, item 1 (the gap, measured) and item 2 (the shared thread standing down while
# the application passes itself). On 2 emulated nodes at 1 Gbit/s, one core each (the
# engine's thread shares the caller's core), Open MPI and MPICH, three configurations of
# liboverlap side by side with MPI's own in each run:
#   caller        no progress thread;
#   shared-before the shared thread as before issue 28 (OVERLAP_SHARED_STAND_DOWN=0);
#   shared        the shared thread standing down (the default now).
# coll: blocking MPI_* against OVX_I* + MPI_Wait (windows on the global clock);
# latency: MPI_I* + MPI_Wait against OVX_I* + MPI_Wait (from a sync barrier);
# nbc (shared, shared-before): comm = comp = 2, 4, 8 ms, ibcast, iallreduce, ialltoall.
# Root, repository root: REPS="1 2" OUT=dir docs/results/collective-latency-2026-11-28/run.sh
# then summarize.py DIR prints the README's tables (medians over the repetitions).
set -eu
. docs/results/cluster-run.sh
here=docs/results/collective-latency-2026-11-28
figures_begin $here
sizes=${SIZES:-8B,64B,1KiB,8KiB,64KiB,512KiB,4MiB,16MiB}
ops=bcast,allreduce,alltoall
common="--sync-span 0.5s --bar never"
for rep in ${REPS:-1}; do
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  bench="$PWD/$b/src/apps/overlap-bench"
  for cfg in caller shared-before shared; do
    pol=${cfg%-before}
    [ "$cfg" = shared-before ] && sd=0 || sd=1
    f="$out/coll-$mpi-$cfg-r$rep.json"
    OVERLAP_SHARED_STAND_DOWN=$sd cluster_run 900 --mpi "$mpi" -n 2 -- "$bench" coll \
      --op $ops --sizes "$sizes" --iterations 20 --progress "$pol" $common --output "$f" \
      > /dev/null 2>&1
    f="$out/latency-$mpi-$cfg-r$rep.json"
    OVERLAP_SHARED_STAND_DOWN=$sd cluster_run 900 --mpi "$mpi" -n 2 -- "$bench" latency \
      --op "i$(echo $ops | sed 's/,/,i/g')" --sizes "$sizes" --iterations 20 --progress "$pol" \
      $common --output "$f" > /dev/null 2>&1
    [ "$cfg" = caller ] && continue
    f="$out/nbc-$mpi-$cfg-r$rep.json"
    OVERLAP_SHARED_STAND_DOWN=$sd cluster_run 900 --mpi "$mpi" -n 2 -- "$bench" nbc \
      --impl mpi,overlap --op ibcast,iallreduce,ialltoall --comm-times 2ms,4ms,8ms \
      --comp-times 2ms,4ms,8ms --iterations 10 --peer-iterations 0 --progress shared \
      $common --output "$f" > /dev/null 2>&1
  done
done
done
scripts/cluster down
