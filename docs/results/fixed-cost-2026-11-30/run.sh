#!/usr/bin/env bash
# Issue 28: the fixed cost of a small liboverlap collective, before and after the graph
# arena (commit "liboverlap: a small collective's bookkeeping without heap allocations"),
# side by side in one run. Root, from the repository root, after scripts/test built
# build/test-openmpi and build/test-mpich at the commit under test:
#   BASE=0be9b72 REPS="1 2 3" [PARTS="shm net"] docs/results/fixed-cost-2026-11-30/run.sh
# It builds liboverlap alone at BASE (a git worktree under /tmp, same flags and ccache), so
# the same test programs run against either library (LD_LIBRARY_PATH picks one). Writes
# shm-MPI-rN.txt (fixed_cost.c on 2 local ranks: MPI's own, liboverlap before, after) and
# net-MPI-rN.txt (small_probe.c of docs/results/small-collectives-2026-11-30 on 2 emulated
# nodes at 1 Gbit/s, one core each: the same three). summarize.py prints summary.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/fixed-cost-2026-11-30
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
  for prog in fixed_cost:$here/fixed_cost.c small_probe:docs/results/small-collectives-2026-11-30/small_probe.c; do
    "mpicc.$mpi" -O2 -Wall -I include -I "$tree/include" -o "$tmp/${prog%%:*}-$mpi" "${prog#*:}" \
      -L "$tree/src/collectives" -loverlap -Wl,-rpath,"$tree/src/collectives"
  done
done
launch() {  # MPI, then the command: 2 local ranks
  local mpi=$1
  shift
  if [ "$mpi" = openmpi ]; then mpirun.openmpi --oversubscribe -n 2 "$@"; else mpiexec.mpich -n 2 "$@"; fi
}
parts=" ${PARTS:-shm net} "
case $parts in *" net "*) scripts/cluster up 2 --rate 1gbit ;; esac
for rep in ${REPS:-1 2 3}; do
  for mpi in openmpi mpich; do
    case $parts in *" shm "*) ;; *) continue ;; esac
    out=$here/shm-$mpi-r$rep.txt
    : >"$out"
    for op in allreduce bcast alltoall barrier; do
      launch "$mpi" "$tmp/fixed_cost-$mpi" mpi "$op" 100000 | sed 's/^/mpi /' | tee -a "$out"
      launch "$mpi" env LD_LIBRARY_PATH="$tmp/lib-$mpi" "$tmp/fixed_cost-$mpi" ovx "$op" 100000 |
        sed 's/^/before /' | tee -a "$out"
      launch "$mpi" "$tmp/fixed_cost-$mpi" ovx "$op" 100000 | sed 's/^/after /' | tee -a "$out"
    done
  done
  for mpi in openmpi mpich; do
    case $parts in *" net "*) ;; *) continue ;; esac
    out=$here/net-$mpi-r$rep.txt
    : >"$out"
    for op in allreduce bcast alltoall; do
      for bytes in 8 1024 8192; do
        for config in mpi before after; do
          mode=ovx lib=
          [ "$config" = mpi ] && mode=mpi
          [ "$config" = before ] && lib=$tmp/lib-$mpi
          scripts/cluster run --mpi "$mpi" -n 2 --timeout 120 -- env PROBE_TAG="$config" \
            OVERLAP_PROGRESS=caller ${lib:+LD_LIBRARY_PATH=$lib} "$tmp/small_probe-$mpi" "$mode" \
            "$op" "${ITERATIONS:-3000}" "$bytes" | grep -E '^(mpi|ovx) ' | tee -a "$out"
        done
      done
    done
  done
done
