#!/bin/sh
# Issue 25's examples, plain against overlap-run --progress shared, rounds interleaved
# (plain, then intercepted, ROUNDS times), on 2 emulated nodes at 1 Gbit/s, one core each,
# both MPIs: examples/transpose (Fortran, MPI_Ialltoall behind the next field's
# transform) and examples/pipelined-cg (MPI_Iallreduce behind the matrix-vector product).
# Root, repository root: ROUNDS=3 OUT=dir docs/results/overlap-run-nonblocking-2026-11-28/examples.sh
# (about 6 min). Each line of examples.txt: example, MPI, round, form, the program's output.
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/overlap-run-nonblocking-2026-11-28
: "${TRANSPOSE_ARGS:=2048 4 3 32}"
: "${PCG_ARGS:=2000000 60 2}"
log="$out/examples.txt"
: > "$log"
tmp=$(mktemp -d)
mpif90.openmpi -O2 -g -o "$tmp/transpose-openmpi" examples/transpose/transpose.f90
mpif90.mpich -O2 -g -o "$tmp/transpose-mpich" examples/transpose/transpose.f90
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  run="$PWD/$b/src/apps/overlap-run --progress shared"
  for round in $(seq "${ROUNDS:-3}"); do
    for form in plain overlap-run; do
      [ "$form" = plain ] && pre="" || pre="$run --"
      # shellcheck disable=SC2086  # word lists on purpose
      cluster_run 300 --mpi "$mpi" -n 2 -- $pre "$tmp/transpose-$mpi" $TRANSPOSE_ARGS \
        2>/dev/null | sed "s/^/transpose $mpi $round $form: /" >> "$log"
      # shellcheck disable=SC2086
      cluster_run 300 --mpi "$mpi" -n 2 -- $pre "$PWD/$b/tests/intercept/pcg" $PCG_ARGS \
        2>/dev/null | sed "s/^/pcg $mpi $round $form: /" >> "$log"
    done
  done
done
rm -rf "$tmp"
scripts/cluster down
