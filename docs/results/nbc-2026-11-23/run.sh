#!/bin/sh
# The runs behind the figures in this folder (issue 3). Root, from the repository root,
# with build/dev (MPICH) and build/dev-ompi (Open MPI) built by
#   cmake -S . -B build/dev -G Ninja -DOVERLAP_MPI=mpich && ninja -C build/dev
#   cmake -S . -B build/dev-ompi -G Ninja -DOVERLAP_MPI=openmpi && ninja -C build/dev-ompi
# 2 emulated nodes at 1 Gbit/s (MTU 65000), one rank per node, each node on its own core.
set -eu
out=docs/results/nbc-2026-11-23
mpich=build/dev/src/apps/overlap-bench
ompi=build/dev-ompi/src/apps/overlap-bench
grid="--op ibcast,iallreduce --comm-times 4ms,10ms,25ms,64ms --comp-times 4ms,10ms,25ms,64ms"
impact="--comp-times 8ms:128ms"

scripts/cluster up 2 --rate 1gbit
# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results
# (docs/emulated-cluster.md): --timeout bounds it; the JSON is complete before that.
run() { scripts/cluster run --timeout 600 "$@" || [ $? -eq 124 ]; }

run --mpi openmpi -- $ompi nbc $grid --output $out/nbc-openmpi.json --csv $out/nbc-openmpi.csv
run --mpi mpich -- $mpich nbc $grid --output $out/nbc-mpich.json --csv $out/nbc-mpich.csv
MPICH_ASYNC_PROGRESS=1 run --mpi mpich -- $mpich nbc $grid \
  --output $out/nbc-mpich-async.json --csv $out/nbc-mpich-async.csv
run --mpi openmpi -- $ompi impact $impact --output $out/impact-openmpi.json
run --mpi mpich -- $mpich impact $impact --output $out/impact-mpich.json
MPICH_ASYNC_PROGRESS=1 run --mpi mpich -- $mpich impact $impact --output $out/impact-mpich-async.json

report/overlap-report $out/nbc-openmpi.json $out/nbc-mpich.json $out/nbc-mpich-async.json \
  $out/impact-openmpi.json $out/impact-mpich.json $out/impact-mpich-async.json -o $out/report
