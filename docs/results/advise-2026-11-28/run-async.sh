#!/bin/bash
# MPI's own asynchronous progress against liboverlap's, advise on 2 emulated nodes (one
# core each, 1 Gbit/s) at its defaults, with MPICH_ASYNC_PROGRESS=1 (MPICH) or
# OMPI_MCA_btl_tcp_progress_thread=1 (Open MPI) in the environment: MPI's own is then
# measured as mpi-async. Root.   REPS="1 2" docs/results/advise-2026-11-28/run-async.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
export OVERLAP_CLUSTER_PREFIX=adv- OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
trap 'scripts/cluster down >/dev/null' EXIT
scripts/cluster up 2
for mpi in openmpi mpich; do
  var=OMPI_MCA_btl_tcp_progress_thread to=()
  [ $mpi = mpich ] && { var=MPICH_ASYNC_PROGRESS; to=(--timeout 120); }
  for rep in ${REPS:-1 2}; do
    out="$here/async-$mpi-r$rep"
    env "$var=1" scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- \
      build/test-$mpi/src/apps/overlap-bench advise --setups mpi-async,caller,shared \
      --bar never --output "$out.json" > "$out.txt" 2>&1
    grep -E "^(mpi-async|caller|shared|advice) " "$out.txt" | sed "s/^/$mpi r$rep: /"
  done
done
