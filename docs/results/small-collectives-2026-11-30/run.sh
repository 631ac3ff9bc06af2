#!/usr/bin/env bash
# Issue 28: small collectives one at a time (small_probe.c) on 2 emulated nodes at 1 Gbit/s
# with one core each, interleaved per point, both MPIs: MPI's own nonblocking call,
# liboverlap with `caller`, with `shared` and with `shared-long`, the long stand-down tried
# in commit 3bf5ac0 and reverted after these figures. The builds must come from 3bf5ac0:
# OVERLAP_SHARED_STAND_DOWN_LONG exists only there (0, the `shared` runs, is main's
# behaviour; 1 is the long stand-down). Root, from the repository root, after
# scripts/test has built build/test-openmpi and build/test-mpich:
#   REPS="1 2 3" [PARTS="probe nbc"] docs/results/small-collectives-2026-11-30/run.sh
# Writes probe-MPI-rN.txt here (one line per point and configuration). The nbc part checks
# what the long stand-down costs overlap: overlap-bench nbc, liboverlap `shared`, comm = comp
# = 2, 4, 8 ms with a GEMM on the core the thread shares, shared against shared-long
# (nbc-MPI-CONFIG-rN.json). summarize.py prints the tables of summary.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/small-collectives-2026-11-30
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for mpi in openmpi mpich; do
  tree=$PWD/build/test-$mpi
  "mpicc.$mpi" -O2 -Wall -I include -I "$tree/include" -o "$bin/probe-$mpi" "$here/small_probe.c" \
    -L "$tree/src/collectives" -loverlap -Wl,-rpath,"$tree/src/collectives"
done
scripts/cluster up 2 --rate 1gbit
parts=" ${PARTS:-probe nbc} "
for rep in ${REPS:-1 2 3}; do
  for mpi in openmpi mpich; do
    case $parts in *" nbc "*) ;; *) continue ;; esac
    for config in shared shared-long; do
      long=0
      [ "$config" = shared-long ] && long=1
      f=$here/nbc-$mpi-$config-r$rep.json
      OVERLAP_SHARED_STAND_DOWN_LONG=$long scripts/cluster run --mpi "$mpi" -n 2 --timeout 600 \
        --done "$f" -- "$PWD/build/test-$mpi/src/apps/overlap-bench" nbc --impl overlap \
        --progress shared --op ibcast,iallreduce,ialltoall --comm-times 2ms,4ms,8ms \
        --comp-times 2ms,4ms,8ms --iterations 10 --peer-iterations 0 --sync-span 0.5s \
        --bar never --output "$f" >/dev/null 2>&1 || [ $? -eq 124 ]
    done
  done
  for mpi in openmpi mpich; do
    case $parts in *" probe "*) ;; *) continue ;; esac
    out=$here/probe-$mpi-r$rep.txt
    : >"$out"
    for op in allreduce bcast alltoall; do
      for bytes in 8 1024 8192; do
        for config in mpi caller shared shared-long; do
          mode=ovx policy=${config%-long} long=0
          [ "$config" = mpi ] && mode=mpi policy=caller
          [ "$config" = shared-long ] && long=1
          scripts/cluster run --mpi "$mpi" -n 2 --timeout 120 -- env PROBE_TAG="$config" \
            OVERLAP_PROGRESS="$policy" OVERLAP_SHARED_STAND_DOWN_LONG=$long \
            "$bin/probe-$mpi" "$mode" "$op" "${ITERATIONS:-3000}" \
            "$bytes" | grep -E '^(mpi|ovx) ' | tee -a "$out"
        done
      done
    done
  done
done
