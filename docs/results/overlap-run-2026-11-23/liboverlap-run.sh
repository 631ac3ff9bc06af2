set -eu
# The p2p-<mpi>-liboverlap.json runs (README): the plain run with nonblocking-liboverlap.
cd /work/main
. docs/results/cluster-run.sh
out=docs/results/overlap-run-2026-11-23
scripts/cluster up 2 --rate 1gbit >/dev/null
for mpi in openmpi mpich; do
  dir=build/test-openmpi; [ $mpi = mpich ] && dir=build/test-mpich
  cluster_run 600 --mpi $mpi -- $dir/src/apps/overlap-bench p2p --sizes 128KiB,512KiB,2MiB --comp-times 1ms,4ms,16ms --iterations 20 \
    --impl blocking,nonblocking,nonblocking-liboverlap --progress shared --label "$mpi liboverlap progress" \
    --output $out/p2p-$mpi-liboverlap.json
done
scripts/cluster down >/dev/null
