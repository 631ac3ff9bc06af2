#!/bin/bash
# A/B: 2 MiB ping-pong, plain vs overlap-run --place move vs copy, interleaved rounds.
# Needs the emulated cluster up: scripts/cluster up 2 --rate 1gbit (docs/emulated-cluster.md).
set -u
cd "$(dirname "$0")/../../.."
: "${OVERLAP_CLUSTER_PREFIX:=ovl-}"; export OVERLAP_CLUSTER_PREFIX
. docs/results/cluster-run.sh
out=${OUT:-docs/results/overlap-run-2026-11-24/placement}; mkdir -p $out
p2p="--sizes 2MiB --comp-times 16ms --iterations 20"
for round in 1 2; do
for mpi in ${MPIS:-openmpi mpich}; do
  dir=${OMPI_DIR:-build/test-openmpi}; [ $mpi = mpich ] && dir=${MPICH_DIR:-build/test-mpich}
  bench=$dir/src/apps/overlap-bench; orun=$dir/src/apps/overlap-run
  cluster_run 600 --mpi $mpi -- $bench p2p $p2p --impl blocking --label plain --output $out/$mpi-plain-$round.json
  for place in move copy; do
    cluster_run 600 --mpi $mpi -- $orun --place $place --min-size 4KiB --report $out/$mpi-$place-$round-run.json -- \
      $bench p2p $p2p --impl blocking --label $place --output $out/$mpi-$place-$round.json
  done
done
done
