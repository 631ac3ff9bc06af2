#!/bin/sh
# advise --op ihalo against a program: on 2 emulated nodes (one core each, 1 Gbit/s), per
# MPI and repetition, `overlap-bench advise --op ihalo --size 256KiB --comp-time 4ms` (every
# set-up), then examples/iallreduce-loop's halo loop (the program's own MPI_Irecv/MPI_Isend
# with both ring neighbours, 4 ms of computation, MPI_Waitall) at 256 KiB, 200 iterations,
# plain and under overlap-run with each liboverlap policy.
# Root, repository root (builds from build/test-openmpi and build/test-mpich):
#   REPS="1 2" docs/results/advise-halo-2026-11-29/run.sh      # about 70 s
set -eu
. docs/results/cluster-run.sh
here=docs/results/advise-halo-2026-11-29
figures_begin $here
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'scripts/cluster down >/dev/null; rm -rf "$tmp"' EXIT
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  mpicc.$mpi -O2 -o "$tmp/loop-$mpi" examples/iallreduce-loop/loop.c
  for rep in ${REPS:-1 2}; do
    f="$out/advise-$mpi-r$rep"
    cluster_run 300 --mpi "$mpi" -n 2 -- "$b/src/apps/overlap-bench" advise --op ihalo \
      --size 256KiB --comp-time 4ms --bar never --output "$f.json" > "$f.txt" 2>&1
    for how in plain caller shared dedicated; do
      if [ "$how" = plain ]; then set --; else set -- "$b/src/apps/overlap-run" --progress "$how" --; fi
      # No result file to end on: MPICH 4.0.2 may hang in MPI_Finalize here, bounded.
      cluster_run 120 --mpi "$mpi" -n 2 -- "$@" "$tmp/loop-$mpi" 262144 4 200 halo \
        > "$out/loop-$mpi-r$rep-$how.txt" 2>&1
    done
  done
done
"$here/summarize.py" "$out" > "$out/summary.md"
cat "$out/summary.md"
