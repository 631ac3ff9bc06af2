#!/bin/bash
# advise's prediction against a program: on 2 emulated nodes (one core each, 1 Gbit/s),
# per MPI and repetition, `overlap-bench advise` at its defaults (iallreduce where MPI's own
# takes 4 ms, 4 ms of computation), then examples/iallreduce-loop at advise's message size
# and 4 ms, 200 iterations, plain and under overlap-run --progress shared.
# Root (the emulated cluster). Builds from build/test-openmpi and build/test-mpich.
#   REPS="1 2 3" docs/results/advise-2026-11-28/run.sh      # about 2 minutes
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
    scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- $bin/overlap-bench advise --bar never \
      --output "$out.json" > "$out.txt" 2>&1
    bytes=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(next(p['msg_bytes'] for p in d['points'] if p['msg_bytes']))" "$out.json")
    for how in plain shared; do
      pre=()
      [ $how = shared ] && pre=($bin/overlap-run --progress shared --)
      scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- "${pre[@]}" "$tmp/loop-$mpi" \
        "$bytes" 4 200 > "$here/loop-$mpi-r$rep-$how.txt" 2>&1
    done
  done
done
"$here/summarize.py" "$here" > "$here/summary.md"
cat "$here/summary.md"
