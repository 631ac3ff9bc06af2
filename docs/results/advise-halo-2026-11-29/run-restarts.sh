#!/bin/sh
# Does liboverlap's loop slow down over advise's restarts (OVX_Finalize, OVX_Init between
# set-ups)? MPICH, 2 emulated nodes (one core each, 1 Gbit/s), advise --op ihalo at 256 KiB
# and 4 ms, three times each: every liboverlap set-up restarts before each of shared's
# blocks with --setups mpi,caller,shared, none with --setups shared.
# Root, repository root (builds from build/test-mpich):
#   docs/results/advise-halo-2026-11-29/run-restarts.sh      # about 30 s
set -eu
. docs/results/cluster-run.sh
figures_begin docs/results/advise-halo-2026-11-29/restarts
trap 'scripts/cluster down >/dev/null' EXIT
for rep in 1 2 3; do
  for setups in shared mpi,caller,shared; do
    f="$out/$rep-$(echo $setups | tr , _)"
    cluster_run 300 --mpi mpich -n 2 -- "$mpich/src/apps/overlap-bench" advise --op ihalo \
      --size 256KiB --comp-time 4ms --setups $setups --bar never --output "$f.json" > "$f.txt" 2>&1
  done
done
python3 - "$out" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for p in json.load(open(f))["points"]:
        if p.get("loop_blocks_s"):
            print(f.split("/")[-1], p["setup"], " ".join("%.2f" % (x * 1e3) for x in p["loop_blocks_s"]))
PY
