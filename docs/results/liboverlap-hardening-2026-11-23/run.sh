#!/bin/sh
# Issue 10's figures: liboverlap before and after the hardening, side by side on the same
# 2-node emulated cluster: `overlap-bench latency` (Icoll + Wait, 64 KiB-16 MiB) and the
# `nbc` diagonal (comm = comp), with the `shared` and `caller` policies, both MPIs. Before
# and after runs alternate (repeat by repeat), so drift of the machine shows up in both.
# Root, from the repository root, with four builds of overlap-bench:
#   before (ab6b786) and after, each with -DOVERLAP_MPI=openmpi and with mpich, e.g.
#   git worktree add /tmp/ovx-before ab6b786
#   cmake -S /tmp/ovx-before -B /tmp/ovx-before/build-ompi -G Ninja -DOVERLAP_MPI=openmpi && ninja -C /tmp/ovx-before/build-ompi overlap-bench
#   cmake -S /tmp/ovx-before -B /tmp/ovx-before/build-mpich -G Ninja -DOVERLAP_MPI=mpich && ninja -C /tmp/ovx-before/build-mpich overlap-bench
#   (the same for this tree into build/dev-ompi and build/dev)
#   docs/results/liboverlap-hardening-2026-11-23/run.sh \
#     --before-openmpi /tmp/ovx-before/build-ompi --before-mpich /tmp/ovx-before/build-mpich \
#     --after-openmpi build/dev-ompi --after-mpich build/dev
# Options: --mpi openmpi|mpich|both (both), --repeats N (2), --out DIR (this folder),
# --quick (tiny grids, one repeat: a smoke test of the script, not figures).
# Nothing else may run on the machine meanwhile. Results: latency-<mpi>-<policy>-<when>-<k>.json,
# nbc-<mpi>-<policy>-<when>-<k>.json, report/ (overlap-report) and summary.md (compare.py).
set -eu
here=$(dirname "$0")
out=$here
mpis="openmpi mpich"
repeats=2
quick=0
b_ompi= b_mpich= a_ompi= a_mpich=
while [ $# -gt 0 ]; do
  case "$1" in
    --before-openmpi) b_ompi=$2; shift 2 ;;
    --before-mpich) b_mpich=$2; shift 2 ;;
    --after-openmpi) a_ompi=$2; shift 2 ;;
    --after-mpich) a_mpich=$2; shift 2 ;;
    --mpi) case "$2" in openmpi|mpich) mpis=$2 ;; both) mpis="openmpi mpich" ;;
             *) echo "run.sh: --mpi '$2' is not allowed; use openmpi, mpich or both" >&2; exit 2 ;; esac
           shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --quick) quick=1; repeats=1; shift ;;
    *) echo "run.sh: unknown argument '$1' (see the header of this script)" >&2; exit 2 ;;
  esac
done
case "$repeats" in ''|*[!0-9]*|0) echo "run.sh: --repeats '$repeats' is not a positive integer" >&2; exit 2 ;; esac
bench() {  # bench MPI WHEN -> path of overlap-bench
  case "$1-$2" in
    openmpi-before) d=$b_ompi ;; openmpi-after) d=$a_ompi ;;
    mpich-before) d=$b_mpich ;; mpich-after) d=$a_mpich ;;
  esac
  [ -n "$d" ] || { echo "run.sh: no --$2-$1 build given" >&2; exit 2; }
  [ -x "$d/src/apps/overlap-bench" ] || { echo "run.sh: $d/src/apps/overlap-bench is not there (build it first)" >&2; exit 2; }
  echo "$(cd "$d" && pwd)/src/apps/overlap-bench"
}
for mpi in $mpis; do bench "$mpi" before >/dev/null; bench "$mpi" after >/dev/null; done
mkdir -p "$out"

if [ $quick = 1 ]; then
  lat="--op ibcast,iallreduce --sizes 64KiB,256KiB --iterations 3 --warmup 1"
  diag="4ms"
  nbc_it="--iterations 3 --warmup 1 --calibration-runs 2 --op ibcast,iallreduce"
else
  lat="--op ibcast,iallreduce,ialltoall --sizes 64KiB:16MiB --iterations 20"
  diag="8ms 32ms"
  nbc_it="--op ibcast,iallreduce,ialltoall"
fi

scripts/cluster up 2 --rate 1gbit
# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results
# (docs/emulated-cluster.md): cluster_run stops it once its --output file is complete.
. docs/results/cluster-run.sh
run() { cluster_run 900 "$@"; }

k=1
while [ $k -le "$repeats" ]; do
  for mpi in $mpis; do
    for policy in shared caller; do
      for when in before after; do
        bin=$(bench "$mpi" "$when")
        label="$when $mpi $policy"
        run --mpi "$mpi" -- "$bin" latency $lat --impl mpi,overlap --progress "$policy" \
          --label "$label" --output "$out/latency-$mpi-$policy-$when-$k.json"
        for t in $diag; do
          run --mpi "$mpi" -- "$bin" nbc $nbc_it --impl mpi,overlap --progress "$policy" \
            --comm-times "$t" --comp-times "$t" --label "$label" \
            --output "$out/nbc-$mpi-$policy-$when-$k-$t.json"
        done
      done
    done
  done
  k=$((k + 1))
done
scripts/cluster down

report/overlap-report "$out"/nbc-*.json -o "$out/report"
/usr/bin/python3 "$here/compare.py" "$out" > "$out/summary.md"
cat "$out/summary.md"
