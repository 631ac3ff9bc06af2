#!/bin/sh
# The runs behind the figures in this folder (issue 4). Root, from the repository root,
# with build/dev-ompi (Open MPI) and build/dev (MPICH) built by
#   cmake -S . -B build/dev-ompi -G Ninja -DOVERLAP_MPI=openmpi && ninja -C build/dev-ompi
#   cmake -S . -B build/dev -G Ninja -DOVERLAP_MPI=mpich && ninja -C build/dev
# 2 emulated nodes at 1 Gbit/s (MTU 65000), one rank per node, each node on its own core:
# no spare core, the `shared` case. Nothing else may run on the machine meanwhile.
set -eu
out=docs/results/liboverlap-2026-11-23
ompi=build/dev-ompi/src/apps/overlap-bench
mpich=build/dev/src/apps/overlap-bench
grid="--impl mpi,overlap --op ibcast,iallreduce,ialltoall --comm-times 8ms,32ms --comp-times 8ms,32ms"
lat="--op ibcast,iallreduce,ialltoall --sizes 64KiB:16MiB --impl mpi,overlap --iterations 20"

scripts/cluster up 2 --rate 1gbit
# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results
# (docs/emulated-cluster.md): --timeout bounds it; the JSON is complete before that.
run() { scripts/cluster run --timeout 400 "$@" || [ $? -eq 124 ]; }

for mpi in openmpi mpich; do
  bin=$ompi; [ $mpi = mpich ] && bin=$mpich
  for policy in shared caller; do
    run --mpi $mpi -- $bin nbc $grid --progress $policy \
      --output $out/nbc-$mpi-$policy.json --csv $out/nbc-$mpi-$policy.csv
  done
  run --mpi $mpi -- $bin impact --comp-times 8ms:128ms --output $out/impact-$mpi.json
  run --mpi $mpi -- $bin impact --comp-times 8ms:128ms --progress shared \
    --output $out/impact-$mpi-liboverlap-shared.json
  run --mpi $mpi -- $bin latency $lat --progress shared --output $out/latency-$mpi.json
done

report/overlap-report $out/nbc-*.json $out/impact-*.json -o $out/report
