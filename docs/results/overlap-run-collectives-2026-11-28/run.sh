#!/bin/sh
# Issue 25, item 1: the program's own nonblocking collectives routed to liboverlap's task
# graphs under overlap-run. On 2 emulated nodes at 1 Gbit/s, one core each (so the
# engine's thread shares the computation's core), Open MPI and MPICH:
#   nbc:     MPI_Ibcast/MPI_Iallreduce/MPI_Ialltoall as the program calls them (--impl mpi),
#            plain and under overlap-run --progress shared (where they are routed), beside
#            liboverlap's own (--impl overlap) in each run;
#   latency: the same calls waited for at once, 8 B to 64 KiB (nothing to overlap), plain,
#            under overlap-run (routed) and under overlap-run --collectives mpi (MPI's own,
#            with the hold), alternating run by run.
# Root, repository root: REPS="1 2 3" OUT=dir docs/results/overlap-run-collectives-2026-11-28/run.sh
# then summarize.py DIR prints the README's tables (medians over the repetitions).
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/overlap-run-collectives-2026-11-28
nbc="nbc --impl mpi,overlap --progress shared --op ibcast,iallreduce,ialltoall
  --comm-times 4ms,16ms --comp-times 4ms,16ms --iterations 10 --peer-iterations 0 --bar never"
lat="latency --impl mpi --progress shared --op ibcast,iallreduce,ialltoall
  --sizes 8B,1KiB,64KiB --iterations 100 --warmup 10 --bar never"
for rep in ${REPS:-1}; do
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  bench="$PWD/$b/src/apps/overlap-bench"
  run="$PWD/$b/src/apps/overlap-run --progress shared"
  for form in plain overlap-run own; do
    r="$mpi-$form-r$rep"
    case $form in
      plain) pre="" ;;
      overlap-run) pre="$run --report $out/report-$r.json --" ;;
      own) pre="$run --collectives mpi --" ;;
    esac
    # shellcheck disable=SC2086  # word lists on purpose
    cluster_run 600 --mpi "$mpi" -n 2 -- $pre "$bench" $lat \
      --output "$out/latency-$r.json" > "$out/latency-$r.txt" 2>&1
    [ "$form" = own ] && continue
    # shellcheck disable=SC2086
    cluster_run 600 --mpi "$mpi" -n 2 -- $pre "$bench" $nbc \
      --output "$out/nbc-$r.json" > "$out/nbc-$r.txt" 2>&1
  done
done
done
scripts/cluster down
