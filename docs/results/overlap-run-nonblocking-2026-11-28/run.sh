#!/bin/sh
# Issue 25's first figures: the program's own nonblocking calls progressed by overlap-run's
# engine (a hold while any is outstanding). On 2 emulated nodes at 1 Gbit/s, one core each
# (so the engine's thread shares the computation's core), Open MPI and MPICH:
#   nbc: MPI's own ibcast/iallreduce/ialltoall, plain and under overlap-run --progress
#        shared, beside liboverlap's collectives (--impl overlap, same policy) in each run;
#   p2p: Isend/Irecv + Wait (nonblocking), plain and under overlap-run, beside
#        nonblocking-liboverlap (OVX_Progress_begin/_end around the computation).
# Root, repository root: REPS="1 2 3" OUT=dir docs/results/overlap-run-nonblocking-2026-11-28/run.sh
# (about 2.5 min per repetition); summarize.py DIR prints the README's tables (medians
# over the repetitions: single runs on this 2-core machine differ by more than the effect
# at some points).
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/overlap-run-nonblocking-2026-11-28
nbc="nbc --impl mpi,overlap --progress shared --op ibcast,iallreduce,ialltoall
  --comm-times 4ms,16ms --comp-times 4ms,16ms --iterations 10 --peer-iterations 0 --bar never"
p2p="p2p --impl nonblocking,nonblocking-liboverlap --progress shared --sizes 256KiB,4MiB
  --comp-times 4ms --iterations 20 --bar never"
for rep in ${REPS:-1}; do
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  bench="$PWD/$b/src/apps/overlap-bench"
  run="$PWD/$b/src/apps/overlap-run --progress shared"
  for form in plain overlap-run; do
    r="$mpi-$form-r$rep"
    for b in nbc p2p; do
      [ "$form" = plain ] && pre="" || pre="$run --report $out/$b-$r-report.json --"
      [ "$b" = nbc ] && args=$nbc || args=$p2p
      # shellcheck disable=SC2086  # word lists on purpose
      cluster_run 600 --mpi "$mpi" -n 2 -- $pre "$bench" $args \
        --output "$out/$b-$r.json" > "$out/$b-$r.txt" 2>&1
    done
  done
done
done
scripts/cluster down
