#!/bin/sh
# examples/jacobi, plain and under overlap-run (shared, dedicated), interleaved and
# repeated: single plain runs on this shared machine differ by tens of percent from one
# another, more than the effect measured. Root, from the repository root, with the build trees of run.sh.
#   OMPI_DIR=build/test-openmpi MPICH_DIR=build/test-mpich \
#     docs/results/overlap-run-2026-11-24/jacobi-repeat.sh   # about 4 minutes
# Writes jacobi-repeat.tsv (mpi, configuration, round, seconds per iteration).
set -eu
out=${OUT:-docs/results/overlap-run-2026-11-24}
ompi=${OMPI_DIR:-build/dev-ompi}
mpich=${MPICH_DIR:-build/dev}
rounds=${ROUNDS:-5}
. docs/results/cluster-run.sh
scripts/cluster up 2 --rate 1gbit >/dev/null
tsv=$out/jacobi-repeat.tsv
printf 'mpi\tconfig\tround\ts_per_iteration\n' > $tsv
log=$(mktemp)
for round in $(seq 1 $rounds); do
  for mpi in openmpi mpich; do
    dir=$ompi; [ $mpi = mpich ] && dir=$mpich
    for config in plain shared dedicated; do
      if [ $config = plain ]; then
        cluster_run 120 --mpi $mpi -- $dir/tests/intercept/jacobi 8192 512 400 0 > $log 2>&1
      else
        cluster_run 120 --mpi $mpi -- $dir/src/apps/overlap-run --progress $config -- \
          $dir/tests/intercept/jacobi 8192 512 400 0 > $log 2>&1
      fi
      s=$(sed -n 's/^time per iteration \([0-9.e-]*\) s$/\1/p' $log)
      printf '%s\t%s\t%s\t%s\n' $mpi $config $round "${s:-incomplete}" >> $tsv
    done
  done
done
rm -f $log
scripts/cluster down >/dev/null
