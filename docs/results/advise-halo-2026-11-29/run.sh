#!/bin/bash
# advise --op ihalo against a program: on 2 emulated nodes (one core each, 1 Gbit/s), per
# MPI and repetition, `overlap-bench advise --op ihalo --size 256KiB --comp-time 4ms` (every
# set-up), then examples/iallreduce-loop's halo loop (the program's own MPI_Irecv/MPI_Isend
# with both ring neighbours, 4 ms of computation, MPI_Waitall) at 256 KiB, 200 iterations,
# plain and under overlap-run with each liboverlap set-up advise measured on these nodes.
# Root (the emulated cluster). Builds from build/test-openmpi and build/test-mpich.
#   REPS="1 2 3" docs/results/advise-halo-2026-11-29/run.sh      # about 4 minutes
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$root"
export OVERLAP_CLUSTER_PREFIX=adv- OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'scripts/cluster down >/dev/null; rm -rf "$tmp"' EXIT
scripts/cluster up 2
for mpi in openmpi mpich; do
  mpicc.$mpi -O2 -o "$tmp/loop-$mpi" examples/iallreduce-loop/loop.c
  to=()
  [ $mpi = mpich ] && to=(--timeout 120)  # MPICH 4.0.2 may hang in MPI_Finalize here
  bin=build/test-$mpi/src/apps
  for rep in ${REPS:-1 2 3}; do
    out="$here/advise-$mpi-r$rep"
    scripts/cluster run --mpi $mpi -n 2 "${to[@]}" --done "$out.json" -- $bin/overlap-bench \
      advise --op ihalo --size 256KiB --comp-time 4ms --bar never --output "$out.json" \
      > "$out.txt" 2>&1
    for how in plain caller shared dedicated; do
      pre=()
      [ $how != plain ] && pre=($bin/overlap-run --progress $how --)
      scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- "${pre[@]}" "$tmp/loop-$mpi" \
        262144 4 200 halo > "$here/loop-$mpi-r$rep-$how.txt" 2>&1
    done
  done
done
"$here/summarize.py" "$here" > "$here/summary.md"
cat "$here/summary.md"
