#!/bin/sh
# overlap-run's cost with nothing to overlap, measured side by side in each run: the
# blocking ping-pong as written alternates, round trip by round trip, with the same code
# calling PMPI_Send/PMPI_Recv (blocking-pmpi), which no interposed layer sees
# (pingpong_vs_pmpi). Plain runs give the same ratio as a control (about 1: the noise).
# 2 emulated nodes at 1 Gbit/s, one rank per node; 1 KiB (below the eager limit and
# overlap-run's --min-size: straight to MPI) and 2 MiB (deferred). Root, from the
# repository root, about 4 minutes:
#   OMPI_DIR=build/test-openmpi MPICH_DIR=build/test-mpich \
#     docs/results/overlap-run-2026-11-24/layer-cost/run.sh
#   /usr/bin/python3 docs/results/overlap-run-2026-11-24/layer-cost/summarize.py
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/overlap-run-2026-11-24/layer-cost
p2p="--sizes 1KiB,2MiB --comp-times 1ms --iterations ${ITERATIONS:-40} --impl blocking,blocking-pmpi"
for round in $(seq 1 ${ROUNDS:-3}); do
  for mpi in openmpi mpich; do
    dir=$ompi; [ $mpi = mpich ] && dir=$mpich
    bench=$dir/src/apps/overlap-bench
    cluster_run 600 --mpi $mpi -- $bench p2p $p2p --label plain --output $out/$mpi-plain-$round.json
    cluster_run 600 --mpi $mpi -- $dir/src/apps/overlap-run -- \
      $bench p2p $p2p --label overlap-run --output $out/$mpi-run-$round.json
  done
done
scripts/cluster down >/dev/null
