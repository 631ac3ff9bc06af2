#!/bin/sh
# The runs behind the figures of issue 14 (measurement fidelity, coll, progress). Root,
# from the repository root, with an Open MPI and an MPICH build:
#   cmake -S . -B build/dev-ompi -G Ninja -DOVERLAP_MPI=openmpi && ninja -C build/dev-ompi
#   cmake -S . -B build/dev -G Ninja -DOVERLAP_MPI=mpich && ninja -C build/dev
# Emulated cluster (scripts/cluster), 1 Gbit/s links, MTU 65000, one rank per node, each
# node pinned to core (i mod cores): on 2 emulated nodes of a 2-core machine each node has
# a core of its own; on 4 nodes, nodes n0/n2 and n1/n3 share a core (the machine setup is
# recorded in every file's metadata: hosts, environment, thread_pus, command line).
# Nothing else may run on the machine meanwhile. About 2 hours at full scale.
#
#   docs/results/fidelity-2026-11-23/run.sh            # all three figures, 2 and 4 nodes
#   SCALE=smoke NODES=2 docs/results/fidelity-2026-11-23/run.sh   # minutes: does it work?
#
# Variables: NODES (default "2 4"), SCALE (full|medium|smoke), OMPI_BIN, MPICH_BIN (the two
# overlap-bench binaries), OUT (default this folder), OVERLAP_CLUSTER_PREFIX (as for
# scripts/cluster).
set -eu
here=docs/results/fidelity-2026-11-23
out=${OUT:-$here}
ompi=${OMPI_BIN:-build/dev-ompi/src/apps/overlap-bench}
mpich=${MPICH_BIN:-build/dev/src/apps/overlap-bench}
nodes=${NODES:-"2 4"}
mkdir -p "$out"

if [ "${SCALE:-full}" = smoke ]; then
  # Same commands, tiny: one op, two points, few iterations.
  nbc="--op ibcast --comm-times 8ms --comp-times 8ms --iterations 3 --calibration-runs 3 --tolerance 30%"
  coll="--op bcast --sizes 4KiB,64KiB --iterations 10"
  progress="--op ibcast --sizes 256KiB --iterations 3 --calibration-runs 3 --tolerance 30%"
  tests="--test-intervals 64KiB"
  long=240 short=240
elif [ "${SCALE:-full}" = medium ]; then
  # The full commands on fewer points: about 30 minutes on 2 nodes (used for the closing
  # note of issue 14 while the machine was shared; see README.md there).
  nbc="--op ibcast,ialltoall --comm-times 8ms,32ms --comp-times 8ms,32ms --iterations 10"
  coll="--op bcast,allreduce --sizes 1KiB:1MiB --iterations 30"
  progress="--op ibcast,iallreduce --sizes 64KiB:1MiB --iterations 7"
  tests="--test-intervals 16KiB,256KiB"
  long=1800 short=900
else
  # Figure 1: the nbc grid whose diagonal (comm = comp) is compared with OSU and IMB.
  nbc="--op ibcast,ireduce,ialltoall --comm-times 4ms:64ms --comp-times 4ms:64ms --iterations 15"
  # Figure 2: blocking latency per size, MPI's and liboverlap's, with the naive loop.
  coll="--op bcast,allreduce,alltoall --sizes 1KiB:4MiB --iterations 50"
  # Figure 3: overhead time- vs work-based, and test calls.
  progress="--op ibcast,iallreduce --sizes 64KiB:4MiB --iterations 11"
  tests="--test-intervals 16KiB,64KiB,256KiB,1MiB"
  long=2400 short=1200  # seconds: an nbc grid, a coll or progress run, with room to spare
fi

# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results
# (docs/emulated-cluster.md): cluster_run stops it once its --output file is complete.
. docs/results/cluster-run.sh
run() { cluster_run "$@"; }

for n in $nodes; do
  scripts/cluster up "$n" --rate 1gbit --mtu 65000
  for mpi in openmpi mpich; do
    bin=$ompi; [ $mpi = mpich ] && bin=$mpich
    # 1. nbc: MPI's own collectives; MPICH also with its progress thread.
    run $long --mpi $mpi -- $bin nbc $nbc --output $out/nbc-$mpi-n$n.json --csv $out/nbc-$mpi-n$n.csv
    # 2. coll: MPI's blocking collectives and liboverlap's (shared), windows and naive loop.
    run $short --mpi $mpi -- $bin coll $coll --impl mpi,overlap --progress shared \
      --output $out/coll-$mpi-n$n.json
    # 3b. progress with test calls: how many MPI's own collectives need, and liboverlap's
    #     caller policy (progress only inside MPI calls) beside them.
    run $short --mpi $mpi -- $bin progress $progress $tests --impl mpi,overlap --progress caller \
      --label "$mpi test calls" --output $out/progress-tests-$mpi-n$n.json
  done
  MPICH_ASYNC_PROGRESS=1 run $long --mpi mpich -- $mpich nbc $nbc \
    --output $out/nbc-mpich-async-n$n.json --csv $out/nbc-mpich-async-n$n.csv
  # 3a. overhead time- vs work-based: MPICH without and with its progress thread, and
  #     liboverlap's shared thread.
  run $short --mpi mpich -- $mpich progress $progress --test-intervals none --impl mpi \
    --label "mpich" --output $out/progress-mpich-n$n.json
  MPICH_ASYNC_PROGRESS=1 run $short --mpi mpich -- $mpich progress $progress --test-intervals none \
    --impl mpi --label "mpich async-progress" --output $out/progress-mpich-async-n$n.json
  run $short --mpi mpich -- $mpich progress $progress --test-intervals none --impl overlap \
    --progress shared --label "mpich + liboverlap shared" \
    --output $out/progress-liboverlap-shared-n$n.json
  scripts/cluster down

  report/overlap-report $out/nbc-*-n$n.json -o $out/report-nbc-n$n
  report/overlap-report $out/coll-*-n$n.json -o $out/report-coll-n$n
  report/overlap-report $out/progress-*-n$n.json -o $out/report-progress-n$n
  /usr/bin/python3 $here/plot_diagonal.py $out/nbc-*-n$n.json -o $out/diagonal-n$n.png
done
