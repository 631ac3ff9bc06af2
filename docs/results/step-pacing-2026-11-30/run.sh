#!/bin/sh
# Issue 28, item 2: the `shared` thread's pauses paced by the steps in flight
# (docs/liboverlap.md, "Steps paced by their expected time"). On 2 emulated nodes at
# 1 Gbit/s, one core each, Open MPI and MPICH, two configurations side by side:
#   before  OVERLAP_SHARED_PAUSES_PER_STEP=0 (the backoff alone, 20-500 us);
#   paced   the default (16 pauses per expected step time, never past a step's due time);
#   paced64 64 pauses per step (OVERLAP_SHARED_PAUSES_PER_STEP=64): nbc and idle (bcast,
#           allreduce), no latency. CONFIGS="before paced paced64" (the default) picks.
# nbc: liboverlap `shared`, comm = comp = 2, 4, 8 ms (and off the diagonal), ibcast,
#   iallreduce, ialltoall, with a GEMM computation on the core the thread shares;
# idle: idle_overlap.c, the same collectives at 512 KiB with the caller asleep for 4.5 ms
#   instead of computing, so the thread has the core to itself (the case of a spare core
#   or of a rank waiting on a GPU, which one core per node cannot otherwise show);
# latency: OVX_I* + MPI_Wait against MPI_I* + MPI_Wait, 8 B - 4 MiB (what pacing may cost
#   where the caller waits at once).
# Root, repository root: REPS="1 2 3" [CONFIGS=...] [PARTS="nbc idle latency"] OUT=dir docs/results/step-pacing-2026-11-30/run.sh
# then summarize.py DIR prints the README's tables.
set -eu
. docs/results/cluster-run.sh
here=docs/results/step-pacing-2026-11-30
figures_begin $here
common="--sync-span 0.5s --bar never"
for mpi in openmpi mpich; do
  [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
  "mpicc.$mpi" -O2 -I include -I "$b/include" -o "$out/idle-$mpi" "$here/idle_overlap.c" \
    -L"$b/src/collectives" -loverlap -Wl,-rpath,"$PWD/$b/src/collectives"
done
outdir=$(cd "$out" && pwd)
for rep in ${REPS:-1}; do
  for mpi in openmpi mpich; do
    [ "$mpi" = openmpi ] && b=$ompi || b=$mpich
    bench="$PWD/$b/src/apps/overlap-bench"
    for cfg in ${CONFIGS:-before paced paced64}; do
      case $cfg in before) k=0 ;; paced) k=16 ;; paced64) k=64 ;; esac
      export OVERLAP_SHARED_PAUSES_PER_STEP=$k
      f="$out/nbc-$mpi-$cfg-r$rep.json"
      case " ${PARTS:-nbc idle latency} " in *" nbc "*) ;; *) f= ;; esac
      [ -z "$f" ] || cluster_run 600 --mpi "$mpi" -n 2 -- "$bench" nbc --impl overlap --progress shared \
        --op ibcast,iallreduce,ialltoall --comm-times 2ms,4ms,8ms --comp-times 2ms,4ms,8ms \
        --iterations 10 --peer-iterations 0 $common --output "$f" > /dev/null 2>&1
      ops="bcast allreduce alltoall"
      [ "$cfg" = paced64 ] && ops="bcast allreduce"
      case " ${PARTS:-nbc idle latency} " in *" idle "*) ;; *) ops= ;; esac
      for op in $ops; do
        cluster_run 120 --mpi "$mpi" -n 2 -- "$outdir/idle-$mpi" shared 524288 4500 20 "$op" \
          >> "$out/idle-$mpi-$cfg-r$rep.txt" 2>&1
      done
      [ "$rep" = 1 ] && [ "$cfg" != paced64 ] || continue
      case " ${PARTS:-nbc idle latency} " in *" latency "*) ;; *) continue ;; esac
      f="$out/latency-$mpi-$cfg.json"
      cluster_run 600 --mpi "$mpi" -n 2 -- "$bench" latency --op ibcast,iallreduce,ialltoall \
        --sizes 8B,1KiB,8KiB,64KiB,512KiB,4MiB --iterations 10 --progress shared $common \
        --output "$f" > /dev/null 2>&1
    done
  done
done
unset OVERLAP_SHARED_PAUSES_PER_STEP
scripts/cluster down
