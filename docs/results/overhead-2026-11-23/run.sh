#!/bin/sh
# The runs behind the figures of issue 13 (where the overhead goes). Root, from the
# repository root, with an Open MPI and an MPICH build of this commit:
#   cmake -S . -B build/dev-ompi -G Ninja -DOVERLAP_MPI=openmpi && ninja -C build/dev-ompi
#   cmake -S . -B build/dev -G Ninja -DOVERLAP_MPI=mpich && ninja -C build/dev
# The script builds the "before" liboverlap itself (git worktrees under build/, the
# `overlap` target only) and runs this commit's overlap-bench against it through
# LD_LIBRARY_PATH (overlap-bench uses liboverlap's C API only):
#   before-main = 11f7700 (main before issue 10: one MPI_Test per sub-request per pass)
#   before-int  = ea20dc0 (int: one MPI_Testsome per pass, issue 10)
#   after       = this commit, switches off (the int engine), then with
#                 OVERLAP_SHARED_WAKE_ON_SUBMIT=1, then also OVERLAP_SHARED_TIMER_SLACK_NS=1000
#                 (docs/liboverlap.md, "Engine changes of issue 13")
# 2 emulated nodes, 1 Gbit/s, MTU 65000, one rank per node, each node on its own core (no
# spare core: the floor is 1 + the kernel's share, docs/cpu-accounting.md). Nothing else
# may run on the machine meanwhile. About 7 minutes at full scale with BEFORE=11f7700.
#
#   docs/results/overhead-2026-11-23/run.sh
#   SCALE=smoke docs/results/overhead-2026-11-23/run.sh     # minutes: does it work?
#
# Variables: SCALE (full|smoke), OMPI_BIN, MPICH_BIN (this commit's overlap-bench), OUT
# (default this folder), BEFORE (commits, default "11f7700 ea20dc0"; empty: none), MPIS
# (default "openmpi mpich"), OVERLAP_CLUSTER_PREFIX.
set -eu
here=docs/results/overhead-2026-11-23
out=${OUT:-$here}
ompi=${OMPI_BIN:-build/dev-ompi/src/apps/overlap-bench}
mpich=${MPICH_BIN:-build/dev/src/apps/overlap-bench}
before=${BEFORE-"11f7700 ea20dc0"}
# the issue asks for comm = comp (the diagonal): one run per time, files named after it
mpis=${MPIS:-"openmpi mpich"}
mkdir -p "$out"

if [ "${SCALE:-full}" = smoke ]; then
  grid="--op ibcast --iterations 4 --calibration-runs 3 --tolerance 30%"
  times=8ms
  limit=300
else
  # 40 iterations: the kernel counters tick every 10 ms, so the kernel share of an 8 ms
  # point is known to about 1 tick / (40 x 8 ms) = 3 %.
  grid="--op ibcast,iallreduce,ialltoall --iterations 40"
  times="8ms 32ms"
  limit=3600
fi

# The before engines: liboverlap.so of each commit, per MPI.
libdir() { echo "build/before-$1-$2/src/collectives"; }
for c in $before; do
  src=build/before-$c-src
  [ -d "$src" ] || git worktree add --detach "$src" "$c" >/dev/null
  for mpi in $mpis; do
    cmake -S "$src" -B "build/before-$c-$mpi" -G Ninja -DOVERLAP_MPI=$mpi \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "build/before-$c-$mpi" -j 2 --target overlap
  done
done

# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results
# (docs/emulated-cluster.md): cluster_run stops it once its --output file is complete.
. docs/results/cluster-run.sh
run() { cluster_run "$limit" "$@"; }

scripts/cluster up 2 --rate 1gbit --mtu 65000
for t in $times; do
  for mpi in $mpis; do
    bin=$ompi; [ $mpi = mpich ] && bin=$mpich
    # MPI's own collectives, and liboverlap shared after the engine work, point by point.
    run --mpi $mpi -- $bin nbc $grid --comm-times $t --comp-times $t --impl mpi,overlap --progress shared \
      --label "$mpi: MPI / liboverlap shared (after) $t" --output $out/nbc-$mpi-after-$t.json
    # The engine switches of issue 13 (off by default until these figures say otherwise).
    OVERLAP_SHARED_WAKE_ON_SUBMIT=1 run --mpi $mpi -- $bin nbc $grid --comm-times $t --comp-times $t --impl overlap \
      --progress shared --label "$mpi: liboverlap shared (after, wake on submit) $t" \
      --output $out/nbc-$mpi-after-wake-$t.json
    OVERLAP_SHARED_WAKE_ON_SUBMIT=1 OVERLAP_SHARED_TIMER_SLACK_NS=1000 run --mpi $mpi -- $bin nbc \
      $grid --comm-times $t --comp-times $t --impl overlap --progress shared \
      --label "$mpi: liboverlap shared (after, wake on submit, 1 us slack) $t" \
      --output $out/nbc-$mpi-after-wake-slack-$t.json
    # liboverlap shared before the engine work: the same overlap-bench, the old library.
    for c in $before; do
      LD_LIBRARY_PATH=$PWD/$(libdir $c $mpi) run --mpi $mpi -- $bin nbc $grid --comm-times $t --comp-times $t --impl overlap \
        --progress shared --label "$mpi: liboverlap shared (before, $c) $t" \
        --output $out/nbc-$mpi-before-$c-$t.json
    done
  done
  # MPICH's own progress thread (shows up as "other threads").
  case " $mpis " in *" mpich "*)
    MPICH_ASYNC_PROGRESS=1 run --mpi mpich -- $mpich nbc $grid --comm-times $t --comp-times $t --impl mpi \
      --label "mpich: async progress $t" --output $out/nbc-mpich-async-$t.json ;;
  esac
done
scripts/cluster down

report/overlap-report $out/nbc-*.json -o $out/report
