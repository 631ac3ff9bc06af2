set -eu
cd /work/main
. docs/results/cluster-run.sh
out=docs/results/overlap-run-2026-11-23/repeat; mkdir -p $out
small="--sizes 1KiB:16KiB --comp-times 1ms --iterations 100"
scripts/cluster up 2 --rate 1gbit >/dev/null
dir=build/test-openmpi
b=$dir/src/apps/overlap-bench; o=$dir/src/apps/overlap-run
cluster_run 300 --mpi openmpi -- $b p2p $small --impl blocking --output $out/plain.json >/dev/null 2>&1
cluster_run 300 --mpi openmpi -- $o --progress caller --defer none -- $b p2p $small --impl blocking --output $out/none.json >/dev/null 2>&1
cluster_run 300 --mpi openmpi -- $o --progress caller -- $b p2p $small --impl blocking --output $out/caller.json >/dev/null 2>&1
cluster_run 300 --mpi openmpi -- $b p2p $small --impl blocking --output $out/plain2.json >/dev/null 2>&1
scripts/cluster down >/dev/null
