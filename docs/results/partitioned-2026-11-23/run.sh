#!/bin/sh
# The runs behind the figures of issue 12 (partitioned point-to-point). Root, from the
# repository root, with an Open MPI and an MPICH build:
#   cmake -S . -B build/dev-ompi -G Ninja -DOVERLAP_MPI=openmpi && ninja -C build/dev-ompi
#   cmake -S . -B build/dev -G Ninja -DOVERLAP_MPI=mpich && ninja -C build/dev
# Emulated cluster (scripts/cluster): 2 nodes, 1 Gbit/s, MTU 65000, one rank per node.
# CPUs: an emulated node has one core by default, and `part` runs one sender thread per
# partition, so 2..8 threads would share one core and partitions would become ready one
# after another instead of together. Both nodes therefore get the machine's cores
# (`--cpus 0-1` on this 2-core machine; CPUS overrides): the sender's threads can run two
# at a time, the receiver shares the cores with them. With 4 and 8 partitions threads
# still outnumber cores (overlap-bench warns): the figures then show what a node with
# fewer cores than threads gets, which is the case the early-bird transfer must survive.
# Nothing else may run on the machine meanwhile. About 25 minutes at full scale.
#
#   docs/results/partitioned-2026-11-23/run.sh
#   SCALE=smoke docs/results/partitioned-2026-11-23/run.sh   # minutes: does it work?
#
# Variables: SCALE (full|smoke), CPUS (default 0-1), OMPI_BIN, MPICH_BIN (the two
# overlap-bench binaries), OUT (default this folder), OVERLAP_CLUSTER_PREFIX (as for
# scripts/cluster).
#
# Figures (issue 12): early-bird % and availability for MPICH's own partitioned (`mpi`,
# MPICH run only), liboverlap's layer (`overlap`) and `multiple` beside `single`, at 2, 4
# and 8 partitions, 64 KiB..16 MiB, 10 ms per thread with 4 % single-thread noise, hot
# cache (run 1); the overhead ratio without noise (run 2); one Sweep3D and one Halo3D point
# (runs 3 and 4: 1 MiB faces in 4 partitions, the same computation and noise; with one
# rank per node the grids are 2x1 and 2x1x1, i.e. one face between the two nodes).
set -eu
here=docs/results/partitioned-2026-11-23
out=${OUT:-$here}
ompi=${OMPI_BIN:-build/dev-ompi/src/apps/overlap-bench}
mpich=${MPICH_BIN:-build/dev/src/apps/overlap-bench}
cpus=${CPUS:-0-1}
mkdir -p "$out"

if [ "${SCALE:-full}" = smoke ]; then
  sizes="64KiB,1MiB" parts="2,4" iters="--iterations 2 --warmup 1" t=300
  psize=64KiB pparts=2
  usizes=64KiB uparts=4
else
  sizes="64KiB:16MiB" parts="1,2,4,8" iters="--iterations 20 --warmup 3" t=3600
  psize=1MiB pparts=4
  usizes="64KiB:4MiB" uparts="2,4,8"
fi
impls="single,multiple,overlap,mpi"

# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results
# (docs/emulated-cluster.md): cluster_run stops it once its --output file is complete.
. docs/results/cluster-run.sh
run() { cluster_run "$@"; }

scripts/cluster up 2 --rate 1gbit --mtu 65000 --cpus "$cpus"
for mpi in mpich openmpi; do
  bin=$ompi; [ $mpi = mpich ] && bin=$mpich
  # 1. 10 ms per thread, 4 % single-thread noise, hot cache: early-bird %, availability,
  #    perceived bandwidth, per-partition timelines (ready_s, arrive_s).
  run $t --mpi $mpi -- $bin part --impl $impls --sizes $sizes --partitions $parts \
    --compute 10ms --noise single --noise-amount 4% --cache hot --progress shared $iters \
    --output $out/part-noise-$mpi.json --csv $out/part-noise-$mpi.csv
  # 2. The overhead ratio without noise (the transfer phase of every point; the computation
  #    phase is kept short).
  run $t --mpi $mpi -- $bin part --impl $impls --sizes $sizes --partitions $parts \
    --compute 1ms --noise none --cache hot --progress shared $iters \
    --output $out/part-overhead-$mpi.json --csv $out/part-overhead-$mpi.csv
  # 5. Ready times spread over the computation (uniform noise of 90 %: each thread computes
  #    10..19 ms), the regime where the computation is longer than the transfer and
  #    partitions can leave early (run 1's single-thread 4 % noise opens a 0.4 ms window
  #    only, so there early-bird is bounded by what crosses the link in 0.4 ms).
  run $t --mpi $mpi -- $bin part --impl $impls --sizes $usizes --partitions $uparts \
    --compute 10ms --noise uniform --noise-amount 90% --cache hot --progress shared $iters \
    --output $out/part-spread-$mpi.json --csv $out/part-spread-$mpi.csv
  # 3, 4. One point of each application pattern: time per iteration, overhead vs single,
  #    sweep3d's early-bird %.
  for pattern in sweep3d halo3d; do
    run $t --mpi $mpi -- $bin part --pattern $pattern --impl $impls --sizes $psize \
      --partitions $pparts --compute 10ms --noise single --noise-amount 4% --cache hot \
      --progress shared $iters \
      --output $out/part-$pattern-$mpi.json --csv $out/part-$pattern-$mpi.csv
  done
done
scripts/cluster down

report/overlap-report $out/part-*.json -o $out/report
