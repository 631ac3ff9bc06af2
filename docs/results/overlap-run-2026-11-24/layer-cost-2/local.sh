#!/bin/sh
# The local half of layer-cost-2 (one node, no cluster): cold_pingpong.c under overlap-run
# and plain (the control), three runs each, both MPIs. From the repository root, about 2
# minutes (ROUNDS: 3 by default):
#   OMPI_DIR=build/test-openmpi MPICH_DIR=build/test-mpich \
#     docs/results/overlap-run-2026-11-24/layer-cost-2/local.sh
set -eu
here=docs/results/overlap-run-2026-11-24/layer-cost-2
ompi=${OMPI_DIR:-build/test-openmpi}
mpich=${MPICH_DIR:-build/test-mpich}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mpi in openmpi mpich; do
  if [ $mpi = openmpi ]; then
    dir=$ompi cc=mpicc.openmpi run="mpiexec.openmpi --allow-run-as-root"
  else
    dir=$mpich cc=mpicc.mpich run=mpiexec.mpich
  fi
  $cc -O2 -o $tmp/cold-$mpi $here/cold_pingpong.c
  for round in $(seq 1 ${ROUNDS:-3}); do
    for mode in pingpong proc-null; do
      np=2; [ $mode = proc-null ] && np=1
      echo "$mpi plain       $($run -n $np $tmp/cold-$mpi $mode)"
      echo "$mpi overlap-run $($run -n $np $dir/src/apps/overlap-run -- $tmp/cold-$mpi $mode)"
    done
  done
done
