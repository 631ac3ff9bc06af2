#!/bin/sh
# Issue 24, item 5: the emulated link with and without tbf's peak bucket (2 nodes, 1 Gbit/s,
# MTU 65000). For each shaping: the idle-gap probe (tests/mpi/check_cluster_link.py: 1 MiB
# after 50 ms idle, 5 rounds) and `overlap-bench coll` (bcast, allreduce; 8 B to 8 MiB; 20
# windows, the naive loop beside) with Open MPI and MPICH. "burst" re-creates the old
# qdiscs (rate + 256 KiB bucket) on the same cluster with tc; "peak" is scripts/cluster's.
# Root, repository root: OUT=dir docs/results/fidelity-2026-11-28/link.sh (about 3 min).
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/fidelity-2026-11-28
p=$OVERLAP_CLUSTER_PREFIX
old_shaping() {
  for i in 0 1; do
    ip netns exec "${p}n$i" tc qdisc replace dev eth0 root tbf rate 1gbit burst 262144 latency 400ms
    ip netns exec "${p}sw" tc qdisc replace dev "vn$i" root tbf rate 1gbit burst 262144 latency 400ms
  done
}
for shaping in peak burst; do
  if [ "$shaping" = burst ]; then old_shaping; fi
  scripts/cluster status | sed -n '6,7p' > "$out/link-$shaping-qdisc.txt"
  /usr/bin/python3 tests/mpi/check_cluster_link.py --cluster scripts/cluster \
    > "$out/link-$shaping-idle-gap.txt" || true
  for mpi in openmpi mpich; do
    bin=$ompi; [ "$mpi" = mpich ] && bin=$mpich
    cluster_run 300 --mpi "$mpi" -n 2 -- "$PWD/$bin/src/apps/overlap-bench" coll \
      --op bcast,allreduce --sizes 8B,64KiB,1MiB,8MiB --impl mpi --iterations 20 \
      --bar never --output "$out/link-$shaping-coll-$mpi.json" > "$out/link-$shaping-coll-$mpi.txt"
  done
  scripts/cluster status | sed -n '6,7p' >> "$out/link-$shaping-qdisc.txt"
done
scripts/cluster down   # the next `up` builds the links as scripts/cluster does
