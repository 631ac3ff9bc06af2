#!/bin/sh
# overlap-run's cost with nothing to overlap, as layer-cost/ measured it, after the
# per-call bookkeeping was cut (one type query, lock-free per-thread counters, no reap
# scan when nothing finished) and with the side-by-side set ordered ABBA. The small
# message gets many more round trips than layer-cost/ gave it (40): its ratio is the
# median of 2 x ITERATIONS_SMALL alternating round trips. 2 emulated nodes at 1 Gbit/s,
# one rank per node; 1 KiB (below the eager limit and overlap-run's --min-size: straight
# to MPI) and 2 MiB (deferred). ROUNDS (3) and SIZES ("small large") may be set. Root,
# from the repository root, about 5 minutes:
#   OMPI_DIR=build/test-openmpi MPICH_DIR=build/test-mpich \
#     docs/results/overlap-run-2026-11-24/layer-cost-2/run.sh
#   /usr/bin/python3 docs/results/overlap-run-2026-11-24/layer-cost/summarize.py \
#     docs/results/overlap-run-2026-11-24/layer-cost-2
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/overlap-run-2026-11-24/layer-cost-2
common="--comp-times 1ms --impl blocking,blocking-pmpi"
small="--sizes 1KiB --iterations ${ITERATIONS_SMALL:-500} $common"
large="--sizes 2MiB --iterations ${ITERATIONS_LARGE:-40} $common"
for round in $(seq 1 ${ROUNDS:-3}); do
  for mpi in openmpi mpich; do
    dir=$ompi; [ $mpi = mpich ] && dir=$mpich
    bench=$dir/src/apps/overlap-bench
    for size in ${SIZES:-small large}; do
      eval "args=\$$size"
      cluster_run 600 --mpi $mpi -- $bench p2p $args --label plain \
        --output $out/$mpi-plain-$size-$round.json
      cluster_run 600 --mpi $mpi -- $dir/src/apps/overlap-run -- \
        $bench p2p $args --label overlap-run --output $out/$mpi-run-$size-$round.json
    done
  done
done
scripts/cluster down >/dev/null
