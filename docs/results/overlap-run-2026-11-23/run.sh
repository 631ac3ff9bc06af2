#!/bin/sh
# The runs behind the figures of issue 11 (overlap-run). Root, from the repository root,
# with an Open MPI and an MPICH build:
#   cmake -S . -B build/dev-ompi -G Ninja -DOVERLAP_MPI=openmpi && ninja -C build/dev-ompi
#   cmake -S . -B build/dev -G Ninja -DOVERLAP_MPI=mpich && ninja -C build/dev
# Emulated cluster (scripts/cluster), 2 nodes, 1 Gbit/s links, one rank per node. Nothing
# else may run on the machine meanwhile. About 5 minutes at full scale.
#
#   docs/results/overlap-run-2026-11-23/run.sh               # every figure
#   SCALE=smoke docs/results/overlap-run-2026-11-23/run.sh   # minutes: does it work?
#   OUT=docs/results/overlap-run-2026-11-24 docs/results/overlap-run-2026-11-23/run.sh
#                                            # the run of 2026-11-24 (its README)
#
# Figures (overlap-report draws p2p across the files given together):
#  1. p2p: the paper's ping-pong with computation, per size: blocking, nonblocking with
#     MPI's own progress and nonblocking with liboverlap's (nonblocking-liboverlap, shared)
#     beside the same blocking code under overlap-run (shared and dedicated; dedicated
#     falls back to caller on these one-core nodes), both MPIs; speedup over blocking. p2p_latency.png:
#     latency and bandwidth per size without computation, and each latency over plain
#     blocking's: overlap-run's is the interception's cost with nothing to overlap (the
#     1.01 / 1.03 goals).
#  2. examples/jacobi: time per iteration plain and under overlap-run (shared, dedicated),
#     with overlap-run's report saying what limited it.
# Variables: SCALE (full|smoke), OMPI_DIR, MPICH_DIR (the two build trees), OUT (default
# this folder), OVERLAP_CLUSTER_PREFIX (as for scripts/cluster).
set -eu
here=docs/results/overlap-run-2026-11-23
out=${OUT:-$here}
ompi=${OMPI_DIR:-build/dev-ompi}
mpich=${MPICH_DIR:-build/dev}
mkdir -p "$out"

if [ "${SCALE:-full}" = smoke ]; then
  p2p="--sizes 64KiB,1MiB --comp-times 2ms --iterations 3 --calibration-runs 3 --tolerance 30%"
  small="--sizes 4KiB --comp-times 1ms --iterations 3 --calibration-runs 3 --tolerance 30%"
  jacobi="2048 64 20 0"
  t=300
  tj=60
else
  # Computation per period around the 1 Gbit/s round trip of the middle sizes (the paper's
  # t_comp = t_comm regime), and one longer.
  # Sizes: one below the eager limit (4 KiB) and three on the diagonal comp = one-way
  # transfer time at 1 Gbit/s (128 KiB, 512 KiB, 2 MiB for 1, 4, 16 ms; 2 MiB is also the
  # ">= 1 MiB" of the interception-cost goal). About 2 minutes per MPI.
  p2p="--sizes 4KiB,128KiB,512KiB,2MiB --comp-times 1ms,4ms,16ms --iterations 20"
  small="--sizes 1KiB,4KiB,16KiB --comp-times 1ms --iterations 100"
  jacobi="8192 512 400 0"
  t=3000
  tj=120
fi

# MPICH 4.0.2 + UCX may hang in MPI_Finalize across nodes after writing its results
# (docs/emulated-cluster.md): cluster_run stops it once its --output file is complete.
. docs/results/cluster-run.sh
run() { cluster_run "$@"; }

scripts/cluster up 2 --rate 1gbit
for mpi in openmpi mpich; do
  dir=$ompi; [ $mpi = mpich ] && dir=$mpich
  bench=$dir/src/apps/overlap-bench
  orun=$dir/src/apps/overlap-run
  jac=$dir/tests/intercept/jacobi
  # 1. p2p plain: blocking, nonblocking with MPI's progress and with liboverlap's.
  run $t --mpi $mpi -- $bench p2p $p2p --impl blocking,nonblocking,nonblocking-liboverlap \
    --progress shared --label "$mpi" --output $out/p2p-$mpi.json
  # (No nonblocking-liboverlap with --progress dedicated: each emulated node has one core,
  # and overlap-bench refuses to take the computation's only core.)
  # ... and the blocking code under overlap-run, per policy (recorded as overlap-run).
  # --min-size 4KiB: every size measured is deferred (the default threshold is 64 KiB).
  for policy in shared dedicated; do
    run $t --mpi $mpi -- $orun --progress $policy --min-size 4KiB \
      --report $out/p2p-$mpi-$policy-run.json -- \
      $bench p2p $p2p --impl blocking --label "$mpi overlap-run $policy" \
      --output $out/p2p-$mpi-$policy.json
  done
  # ... and with overlap-run's defaults (--min-size 64 KiB): small messages are not
  # deferred, so this is what a small message pays for passing through the layer.
  # Plain first, then under overlap-run, the same sizes and round trips.
  run $t --mpi $mpi -- $bench p2p $small --impl blocking --label "$mpi small" \
    --output $out/p2p-$mpi-small.json
  run $t --mpi $mpi -- $orun --progress shared --report $out/p2p-$mpi-defaults-run.json -- \
    $bench p2p $small --impl blocking --label "$mpi overlap-run defaults" \
    --output $out/p2p-$mpi-defaults.json
  # 2. Jacobi: plain, then under overlap-run with its report. Its iterations take seconds;
  # a short limit ends MPICH + UCX's occasional hang in MPI_Finalize once the results are
  # printed (cluster_run counts the limit as finished; the .txt says whether it is complete).
  run $tj --mpi $mpi -- $jac $jacobi > $out/jacobi-$mpi-plain.txt
  for policy in shared dedicated; do
    run $tj --mpi $mpi -- $orun --progress $policy --report $out/jacobi-$mpi-$policy.json -- \
      $jac $jacobi > $out/jacobi-$mpi-$policy.txt 2>&1
  done
done
scripts/cluster down

for mpi in openmpi mpich; do
  report/overlap-report $out/p2p-$mpi.json \
    $out/p2p-$mpi-shared.json $out/p2p-$mpi-dedicated.json -o $out/report-p2p-$mpi
  report/overlap-report $out/jacobi-$mpi-shared.json -o $out/report-jacobi-$mpi
done
grep -H "time per iteration\|iterations\|residual" $out/jacobi-*.txt
