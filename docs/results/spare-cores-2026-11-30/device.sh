#!/bin/bash
# Issues 26 (item 3) and 28 (item 1) on the lent 16-core box: the figures that need nodes with
# cores to spare. Runs from the repository root on that box, as root, with the bundle made by
# ../shared/tools/portable-bundle in .bundle/overlap.tar.xz (plus .bundle/loop-MPI, the
# iallreduce-loop example built for each MPI). Every step has a time limit cut to what is left
# of BUDGET seconds; results are packed into $OUT/results-PHASE.tgz after every step, so a
# run stopped at its limit loses nothing finished.
#   device.sh 1 BUDGET   2 nodes x 4 cores: nbc dedicated/shared, advise, p2p, the loop example
#   device.sh 2 BUDGET   8 nodes x 2 cores: nbc dedicated; coll and latency (issue 28)
#   device.sh 3 BUDGET   2 nodes x 4 cores: advise twice more per MPI (runs r2, r3)
# LOCAL=1 runs the same steps on this project's 2-core machine (one core per node, short
# limits) to check the script itself; its figures mean nothing.
set -u
phase=${1:?phase 1 or 2} budget=${2:?budget in seconds}
start=$SECONDS
OUT=${OUT:-/tmp/device-out}
res=/tmp/device-res-$phase
rm -rf "$res"
mkdir -p "$OUT" "$res"
exec > >(tee -a "$OUT/log-$phase.txt") 2>&1
root=$PWD

if [ -z "${LOCAL:-}" ]; then
  tar xf .bundle/overlap.tar.xz -C / || exit 1
  # shellcheck disable=SC1091
  . /opt/overlap-bundle/env.sh
  cd "$root" || exit 1
  B=/opt/overlap-bundle
  ob() { echo "$B/$1/bin/overlap-bench"; }
  orun() { echo "$B/$1/bin/overlap-run"; }
else
  ob() { echo "$root/build/test-$1/src/apps/overlap-bench"; }
  orun() { echo "$root/build/test-$1/src/apps/overlap-run"; }
fi
loop() { echo "$root/.bundle/loop-$1"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OVERLAP_CLUSTER_PREFIX=dev-
# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results: a
# finished --output file ends the job after this grace (scripts/cluster run --done).
export OVERLAP_CLUSTER_DONE_GRACE=3

left() { echo $((budget - (SECONDS - start))); }
pack() { tar czf "$OUT/results-$phase.tgz" -C "$res" . 2>/dev/null; }

# run NAME MAXSECONDS MPI NP [env VAR=VALUE...] PROGRAM ARGS...
#   One job on the emulated cluster; its stdout+stderr go to NAME.txt, and --output NAME.json
#   is appended when PROGRAM is overlap-bench.
run() {
  local name=$1 max=$2 mpi=$3 np=$4
  shift 4
  local l
  l=$(left)
  if ((l < 12)); then
    echo "SKIP $name: ${l} s left of the budget"
    return
  fi
  ((max > l - 4)) && max=$((l - 4))
  [ -n "${LOCAL:-}" ] && max=$((max < 40 ? max : 40))
  local extra=() done=()
  case " $* " in
    *overlap-bench" "*)
      extra=(--output "$res/$name.json")
      done=(--done "$res/$name.json")
      ;;
  esac
  echo "== $(date +%T) +$((SECONDS - start))s $name (limit ${max}s): $*"
  local t0=$SECONDS rc=0
  scripts/cluster run --mpi "$mpi" -n "$np" --timeout "$max" "${done[@]}" -- "$@" "${extra[@]}" \
    >"$res/$name.txt" 2>&1 || rc=$?
  echo "   rc=$rc in $((SECONDS - t0)) s"
  tail -n 12 "$res/$name.txt"
  pack
}

common=(--sync-span 0.5s --bar never)

if [ "$phase" = 1 ]; then
  {
    date -u
    uname -a
    nproc
    lscpu
    lscpu -e
    free -g
  } >"$res/machine.txt" 2>&1
  head -n 30 "$res/machine.txt"
  if [ -n "${LOCAL:-}" ]; then cpus=0-1,0-1; else cpus=0-3,4-7; fi
  scripts/cluster up 2 --rate 1gbit --cpus "$cpus" || {
    echo "cluster up failed"
    pack
    exit 1
  }
  scripts/cluster status >"$res/cluster-2.txt" 2>&1
  for mpi in openmpi mpich; do
    bench=$(ob $mpi)
    # The nbc diagonal (and its off-diagonal corners) with a core left free for liboverlap's
    # dedicated thread, against MPI's own in the same run.
    run nbc-$mpi-dedicated-2x4 70 $mpi 2 "$bench" nbc --impl mpi,overlap --progress dedicated \
      --op ibcast,iallreduce --comm-times 4ms,16ms --comp-times 4ms,16ms --iterations 10 \
      --peer-iterations 0 "${common[@]}"
    # advise at its defaults: which set-up it picks where a core can be spared.
    run advise-$mpi-2x4 60 $mpi 2 "$bench" advise "${common[@]}"
  done
  # The same grid with shared and no core left (4 computation threads).
  run nbc-openmpi-shared-2x4 70 openmpi 2 "$(ob openmpi)" nbc --impl mpi,overlap \
    --progress shared --op ibcast,iallreduce --comm-times 4ms,16ms --comp-times 4ms,16ms \
    --iterations 10 --peer-iterations 0 "${common[@]}"
  # p2p 2 MiB x 16 ms, blocking code: plain, and under overlap-run (dedicated + 3 threads,
  # shared + 4, dedicated + 4).
  b=$(ob openmpi) r=$(orun openmpi)
  p2p=(p2p --impl blocking --sizes 2MiB --comp-times 16ms --iterations 20 "${common[@]}")
  run p2p-openmpi-plain 40 openmpi 2 "$b" "${p2p[@]}" --threads 4
  run p2p-openmpi-dedicated-t3 40 openmpi 2 "$r" --progress dedicated -- "$b" "${p2p[@]}" \
    --threads 3
  run p2p-openmpi-shared-t4 40 openmpi 2 "$r" --progress shared -- "$b" "${p2p[@]}" --threads 4
  run p2p-openmpi-dedicated-t4 40 openmpi 2 "$r" --progress dedicated -- "$b" "${p2p[@]}" \
    --threads 4
  # The loop advise models (one computation thread, so cores are free): 1 MiB, 4 ms.
  for how in plain dedicated shared; do
    pre=()
    [ $how != plain ] && pre=("$r" --progress $how --)
    run loop-openmpi-$how 30 openmpi 2 "${pre[@]}" "$(loop openmpi)" 1048576 4 200
  done
  # Issue 28: liboverlap's shared thread with a core to itself, comm = comp = 2, 4, 8 ms.
  run nbc-openmpi-shared-core-2x4 80 openmpi 2 "$(ob openmpi)" nbc --impl mpi,overlap \
    --progress shared --dedicate-cores 1 --op ibcast,iallreduce,ialltoall \
    --comm-times 2ms,4ms,8ms --comp-times 2ms,4ms,8ms --iterations 10 --peer-iterations 0 \
    "${common[@]}"
  # MPICH's own asynchronous progress (its thread starts in MPI_Init): advise again with it.
  run advise-mpich-async-2x4 70 mpich 2 env MPICH_ASYNC_PROGRESS=1 "$(ob mpich)" advise \
    "${common[@]}"
elif [ "$phase" = 3 ]; then
  if [ -n "${LOCAL:-}" ]; then cpus=0-1,0-1; else cpus=0-3,4-7; fi
  scripts/cluster up 2 --rate 1gbit --cpus "$cpus" || exit 1
  for i in 2 3; do
    for mpi in openmpi mpich; do
      run advise-$mpi-2x4-r$i 40 $mpi 2 "$(ob $mpi)" advise "${common[@]}"
    done
  done
else
  if [ -n "${LOCAL:-}" ]; then cpus=0-1; else cpus=0-1,2-3,4-5,6-7,8-9,10-11,12-13,14-15; fi
  scripts/cluster up 8 --rate 1gbit --cpus "$cpus" || {
    echo "cluster up failed"
    pack
    exit 1
  }
  scripts/cluster status >"$res/cluster-8.txt" 2>&1
  sizes=8B,64B,1KiB,8KiB,64KiB,1MiB
  coll_latency() {
    local mpi=$1 pol=$2
    run coll-$mpi-$pol-8x2 50 $mpi 8 "$(ob $mpi)" coll --op bcast,allreduce,alltoall \
      --sizes $sizes --iterations 10 --progress $pol "${common[@]}"
    run latency-$mpi-$pol-8x2 50 $mpi 8 "$(ob $mpi)" latency --op ibcast,iallreduce,ialltoall \
      --sizes $sizes --iterations 10 --progress $pol "${common[@]}"
  }
  for mpi in openmpi mpich; do
    run nbc-$mpi-dedicated-8x2 90 $mpi 8 "$(ob $mpi)" nbc --impl mpi,overlap \
      --progress dedicated --op ibcast,iallreduce,ialltoall --comm-times 4ms,16ms \
      --comp-times 4ms,16ms --iterations 10 --peer-iterations 0 "${common[@]}"
    coll_latency $mpi shared
  done
  coll_latency openmpi caller
  coll_latency mpich caller
fi
scripts/cluster down >/dev/null 2>&1
echo "phase $phase done in $((SECONDS - start)) s"
pack
