#!/bin/bash
# advise's grid and --from (issue 26, item 1) on 2 emulated nodes (one core each, 1 Gbit/s),
# per MPI and repetition:
#  1. `overlap-bench advise --size 8KiB,256KiB,4MiB --comp-time 4ms`: a cell per size, each
#     with every set-up and its advice, and the one set-up for all;
#  2. examples/iallreduce-loop (1 MiB, 4 ms, 200 iterations) under overlap-run --progress
#     caller --report (no thread beside the computation: the windows are the computation's
#     own time), then `advise --from` that report, then the loop again under the set-up
#     advise recommended (plain for mpi, overlap-run with its policy for shared and
#     dedicated; caller needs liboverlap's collectives in the program: not run): the
#     prediction against the program.
# Root (the emulated cluster). Builds from build/test-openmpi and build/test-mpich.
#   REPS="1 2 3" docs/results/advise-grid-2026-11-29/run.sh    # about 5 minutes
# OUT=FOLDER writes the results there instead of beside this script (a later build's run).
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$(mkdir -p "${OUT:-$(dirname "$0")}" && cd "${OUT:-$(dirname "$0")}" && pwd)
cd "$root"
export OVERLAP_CLUSTER_PREFIX=grd- OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'scripts/cluster down >/dev/null; rm -rf "$tmp"' EXIT
scripts/cluster up 2
for mpi in openmpi mpich; do
  mpicc.$mpi -O2 -g -o "$tmp/loop-$mpi" examples/iallreduce-loop/loop.c
  # The same loop on liboverlap's OVX_Iallreduce: how a program gets `caller`.
  lib=$root/build/test-$mpi/src/collectives
  mpicc.$mpi -O2 -g -DLOOP_LIBOVERLAP -I include -I build/test-$mpi/include \
    -o "$tmp/loop-ovx-$mpi" examples/iallreduce-loop/loop.c -L"$lib" -loverlap -Wl,-rpath,"$lib"
  to=()
  [ $mpi = mpich ] && to=(--timeout 180)  # MPICH 4.0.2 may hang in MPI_Finalize here
  bin=build/test-$mpi/src/apps
  for rep in ${REPS:-1 2}; do
    out="$here/grid-$mpi-r$rep"
    scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- $bin/overlap-bench advise --bar never \
      --size 8KiB,256KiB,4MiB --comp-time 4ms --output "$out.json" > "$out.txt" 2>&1
    report="$here/program-$mpi-r$rep.json"
    scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- $bin/overlap-run --progress caller \
      --report "$report" -- "$tmp/loop-$mpi" 1048576 4 200 > "$here/program-$mpi-r$rep.txt" 2>&1
    out="$here/from-$mpi-r$rep"
    scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- $bin/overlap-bench advise --bar never \
      --from "$report" --output "$out.json" > "$out.txt" 2>&1
    setup=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(next(p['recommended'] for p in d['points'] if p['setup'] == 'advice'))" "$out.json")
    # The program under the advised set-up and under shared (the runner-up where caller
    # is advised: within the margin).
    for how in advised shared; do
      [ $how = advised ] && want=$setup || want=shared
      pre=()
      prog="$tmp/loop-$mpi"
      case $want in
        mpi) ;;
        shared|dedicated) pre=($bin/overlap-run --progress "$want" --) ;;
        caller) pre=(env OVERLAP_PROGRESS=caller); prog="$tmp/loop-ovx-$mpi" ;;
        *) echo "advised $want: no program run for it" > "$here/$how-$mpi-r$rep.txt"
           continue ;;
      esac
      scripts/cluster run --mpi $mpi -n 2 "${to[@]}" -- "${pre[@]}" "$prog" 1048576 4 200 \
        > "$here/$how-$mpi-r$rep.txt" 2>&1
    done
  done
done
"$root/docs/results/advise-grid-2026-11-29/summarize.py" "$here" > "$here/summary.md"
cat "$here/summary.md"
