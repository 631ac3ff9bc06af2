#!/bin/sh
# Issue 25, item 3: the program's blocking collectives deferred under overlap-run. On 2
# emulated nodes at 1 Gbit/s, one core each (the engine's thread shares the computation's
# core), Open MPI and MPICH, blocking_window.c plain and under overlap-run --progress
# shared, alternating run by run:
#   nothing to overlap: MPI_Allreduce of 8 B and 1 KiB (under --min-size: MPI's own after
#     the routing verdict), 1 MiB and 4 MiB (routed and deferred, the result read at once);
#   something to overlap: the same 1 MiB and 4 MiB, and an MPI_Alltoall of 256 KiB blocks,
#     followed by computation that does not read the result, then the read.
# Root, repository root: REPS="1 2" OUT=dir docs/results/overlap-run-blocking-2026-11-28/run.sh
# then summarize.py DIR prints the README's table (medians over the repetitions).
set -eu
. docs/results/cluster-run.sh
here=docs/results/overlap-run-blocking-2026-11-28
figures_begin $here
points="allreduce:8:0:4000 allreduce:1024:0:4000 allreduce:1048576:0:20
  allreduce:1048576:20000:20 allreduce:4194304:0:10 allreduce:4194304:60000:10
  alltoall:262144:0:20 alltoall:262144:5000:20"
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  "mpicc.$mpi" -O2 -o "$b/blocking_window" "$here/blocking_window.c"
done
for rep in ${REPS:-1}; do
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  for form in plain overlap-run; do
    [ "$form" = plain ] && pre="" ||
      pre="$PWD/$b/src/apps/overlap-run --progress shared --report $out/report-$mpi-r$rep.json --"
    for p in $points; do
      # shellcheck disable=SC2046,SC2086  # word lists on purpose
      cluster_run 300 --mpi "$mpi" -n 2 -- $pre "$PWD/$b/blocking_window" $(echo "$p" | tr : ' ') \
        --output "$out/last.json" >> "$out/$mpi-$form-r$rep.txt" 2>&1
      rm -f "$out/last.json"
    done
  done
done
done
scripts/cluster down
