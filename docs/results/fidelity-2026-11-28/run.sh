#!/bin/sh
# Issue 24's figures, the nbc part: the issue's 8-rank case (ibcast, iallreduce, ialltoall
# at 16 ms x 16 ms, MPI's and liboverlap's collectives) as far as a 2-core box allows, and
# the demo at its defaults. Per run the OSU and IMB columns both ways: with the peers' own
# protocols (osu/imb_overlap_pct, new) and their formulas on nbc's own iterations
# (osu/imb_on_nbc_times_pct: what the columns were until nbc schema 5).
#   4 nodes: n0, n2 on core 0 and n1, n3 on core 1 (two ranks per core); 2 nodes: a core each.
# Root, repository root: OUT=dir docs/results/fidelity-2026-11-28/run.sh (about 8 min);
# then summarize.py DIR prints the tables of the README.
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/fidelity-2026-11-28
sweep="nbc --impl mpi,overlap --progress shared --op ibcast,iallreduce,ialltoall
  --comm-times 16ms --comp-times 16ms --iterations 10 --peer-iterations 10 --bar never"
for nodes in 4 2; do
  scripts/cluster up "$nodes" --rate 1gbit >/dev/null
  # shellcheck disable=SC2086  # $sweep is a word list on purpose
  cluster_run 600 --mpi openmpi -n "$nodes" -- "$PWD/$ompi/src/apps/overlap-bench" $sweep \
    --output "$out/nbc-openmpi-n$nodes.json" > "$out/nbc-openmpi-n$nodes.txt"
done
# The demo at its defaults on its own 2-node cluster (its up and down).
OVERLAP_CLUSTER_PREFIX=${OVERLAP_CLUSTER_PREFIX}demo- scripts/demo \
  --bench "$PWD/$ompi/src/apps/overlap-bench" --out "$out/demo" > "$out/demo.txt" 2>&1
scripts/cluster down
