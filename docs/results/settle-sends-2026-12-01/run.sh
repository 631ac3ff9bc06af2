#!/usr/bin/env bash
# Issue 28: a collective whose first step is sends alone, settled before the call returns
# (TaskGraph::settle_sends), side by side with the library before it in one run. Root, from
# the repository root, after scripts/test built build/test-openmpi and build/test-mpich at
# the commit under test:
#   BASE=30dac4d REPS="1 2 3" [PARTS="floor shm net latency"] docs/results/settle-sends-2026-12-01/run.sh
# It builds liboverlap alone at BASE (a git worktree under /tmp, same flags and ccache), so
# the same programs run against either library (LD_LIBRARY_PATH picks one). Writes, per MPI
# and repetition N:
#   floor-MPI-rN.txt  floor_probe.c on 2 emulated nodes (1 Gbit/s, one core each): MPI's own,
#                     point-to-point, point-to-point in a generalized request, liboverlap
#                     before and after, 8-byte bcast and alltoall;
#   shm-MPI-rN.txt    fixed_cost.c (docs/results/fixed-cost-2026-11-30) on 2 local ranks;
#   net-MPI-rN.txt    small_probe.c (docs/results/small-collectives-2026-11-30) on the 2 nodes;
#   latency-MPI-CONFIG-rN.json  overlap-bench latency on the 2 nodes, `caller`, 8 B-64 KiB.
# summarize.py prints summary.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/settle-sends-2026-12-01
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
base=${BASE:?set BASE to the commit to compare with}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; git worktree remove --force "$tmp/base" 2>/dev/null || true' EXIT
git worktree add --detach "$tmp/base" "$base" >/dev/null
export CCACHE_DIR=$PWD/build/ccache CCACHE_NOHASHDIR=1
for mpi in openmpi mpich; do
  (cd "$tmp/base" && CCACHE_BASEDIR=$PWD cmake -S . -B build/test-$mpi -G Ninja -DOVERLAP_MPI=$mpi \
     -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
     "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DCMAKE_C_COMPILER_LAUNCHER=ccache \
     -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null &&
   CCACHE_BASEDIR=$PWD cmake --build build/test-$mpi -j 2 --target overlap >/dev/null)
  mkdir -p "$tmp/lib-$mpi"
  cp -a "$tmp/base/build/test-$mpi/src/collectives/"liboverlap.so* "$tmp/lib-$mpi/"
  tree=$PWD/build/test-$mpi
  for prog in floor_probe:$here/floor_probe.c fixed_cost:docs/results/fixed-cost-2026-11-30/fixed_cost.c \
      small_probe:docs/results/small-collectives-2026-11-30/small_probe.c; do
    "mpicc.$mpi" -O2 -Wall -I include -I "$tree/include" -o "$tmp/${prog%%:*}-$mpi" "${prog#*:}" \
      -L "$tree/src/collectives" -loverlap -Wl,-rpath,"$tree/src/collectives"
  done
done
launch() {  # MPI, then the command: 2 local ranks
  local mpi=$1
  shift
  if [ "$mpi" = openmpi ]; then mpirun.openmpi --oversubscribe -n 2 "$@"; else mpiexec.mpich -n 2 "$@"; fi
}
on_nodes() {  # MPI, seconds, then the command: 2 emulated nodes
  local mpi=$1 limit=$2
  shift 2
  scripts/cluster run --mpi "$mpi" -n 2 --timeout "$limit" -- "$@"
}
parts=" ${PARTS:-floor shm net latency} "
case $parts in *" floor "* | *" net "* | *" latency "*) scripts/cluster up 2 --rate 1gbit ;; esac
for rep in ${REPS:-1 2 3}; do
  for mpi in openmpi mpich; do
    lib=$tmp/lib-$mpi
    if [[ $parts == *" floor "* ]]; then
      out=$here/floor-$mpi-r$rep.txt
      : >"$out"
      for op in bcast alltoall; do
        for config in mpi blk p2p greq before after; do
          mode=$config
          case $config in before | after) mode=ovx ;; esac
          env=()
          [ "$config" = before ] && env=(LD_LIBRARY_PATH="$lib")
          on_nodes "$mpi" 120 env "${env[@]}" "$tmp/floor_probe-$mpi" "$mode" "$op" 3000 |
            grep median | sed "s/^/$config /" | tee -a "$out"
        done
      done
    fi
    if [[ $parts == *" shm "* ]]; then
      out=$here/shm-$mpi-r$rep.txt
      : >"$out"
      for op in allreduce bcast alltoall barrier; do
        launch "$mpi" "$tmp/fixed_cost-$mpi" mpi "$op" 100000 | sed 's/^/mpi /' | tee -a "$out"
        launch "$mpi" env LD_LIBRARY_PATH="$lib" "$tmp/fixed_cost-$mpi" ovx "$op" 100000 |
          sed 's/^/before /' | tee -a "$out"
        launch "$mpi" "$tmp/fixed_cost-$mpi" ovx "$op" 100000 | sed 's/^/after /' | tee -a "$out"
      done
    fi
    if [[ $parts == *" net "* ]]; then
      out=$here/net-$mpi-r$rep.txt
      : >"$out"
      for op in allreduce bcast alltoall; do
        for bytes in 8 1024 8192; do
          for config in mpi before after; do
            mode=ovx env=()
            [ "$config" = mpi ] && mode=mpi
            [ "$config" = before ] && env=(LD_LIBRARY_PATH="$lib")
            on_nodes "$mpi" 120 env PROBE_TAG="$config" OVERLAP_PROGRESS=caller "${env[@]}" \
              "$tmp/small_probe-$mpi" "$mode" "$op" "${ITERATIONS:-3000}" "$bytes" |
              grep -E '^(mpi|ovx) ' | tee -a "$out"
          done
        done
      done
    fi
    if [[ $parts == *" latency "* ]]; then
      for config in before after; do
        f=$here/latency-$mpi-$config-r$rep.json
        env=()
        [ "$config" = before ] && env=(LD_LIBRARY_PATH="$lib")
        scripts/cluster run --mpi "$mpi" -n 2 --timeout 600 --done "$f" -- env "${env[@]}" \
          "$PWD/build/test-$mpi/src/apps/overlap-bench" latency \
          --op ibcast,iallreduce,ialltoall --sizes 8B,64B,1KiB,8KiB,64KiB --iterations "${LATENCY_ITERATIONS:-200}" \
          --progress caller --sync-span 0.5s --bar never --output "$f" >/dev/null 2>&1 ||
          [ $? -eq 124 ]
      done
    fi
  done
done
