#!/bin/sh
# overlap-run's default placement (move where the gate allows it) against --place copy and
# plain runs, interleaved and repeated (single runs on this shared machine differ by more
# than the effect measured). Root, from the repository root, about 17 minutes:
#   OMPI_DIR=build/test-openmpi MPICH_DIR=build/test-mpich \
#     docs/results/overlap-run-2026-11-24/default-move/run.sh
# 1. p2p: the 2 MiB ping-pong with 16 ms of computation, blocking calls as written:
#    plain, under overlap-run (default), under overlap-run --place copy; ROUNDS rounds.
# 2. examples/jacobi (tests/intercept/jacobi): plain and under overlap-run (default),
#    JACOBI_ROUNDS rounds; writes jacobi.tsv (mpi, configuration, round, s per iteration).
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/overlap-run-2026-11-24/default-move
p2p="--sizes 2MiB --comp-times 16ms --iterations 20"
for round in $(seq 1 ${ROUNDS:-3}); do
  for mpi in openmpi mpich; do
    dir=$ompi; [ $mpi = mpich ] && dir=$mpich
    bench=$dir/src/apps/overlap-bench; orun=$dir/src/apps/overlap-run
    cluster_run 600 --mpi $mpi -- $bench p2p $p2p --impl blocking --label plain \
      --output $out/$mpi-plain-$round.json
    cluster_run 600 --mpi $mpi -- $orun --min-size 4KiB --report $out/$mpi-default-$round-run.json -- \
      $bench p2p $p2p --impl blocking --label default --output $out/$mpi-default-$round.json
    cluster_run 600 --mpi $mpi -- $orun --place copy --min-size 4KiB \
      --report $out/$mpi-copy-$round-run.json -- \
      $bench p2p $p2p --impl blocking --label copy --output $out/$mpi-copy-$round.json
  done
done
tsv=$out/jacobi.tsv
printf 'mpi\tconfig\tround\ts_per_iteration\n' > $tsv
log=$(mktemp)
for round in $(seq 1 ${JACOBI_ROUNDS:-5}); do
  for mpi in openmpi mpich; do
    dir=$ompi; [ $mpi = mpich ] && dir=$mpich
    for config in plain default; do
      if [ $config = plain ]; then
        cluster_run 120 --mpi $mpi -- $dir/tests/intercept/jacobi 8192 512 400 0 > $log 2>&1
      else
        cluster_run 120 --mpi $mpi -- $dir/src/apps/overlap-run \
          --report $out/jacobi-$mpi-$round-run.json -- \
          $dir/tests/intercept/jacobi 8192 512 400 0 > $log 2>&1
      fi
      s=$(sed -n 's/^time per iteration \([0-9.e-]*\) s$/\1/p' $log)
      printf '%s\t%s\t%s\t%s\n' $mpi $config $round "${s:-incomplete}" >> $tsv
    done
  done
done
rm -f $log
scripts/cluster down >/dev/null
