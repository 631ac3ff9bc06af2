#!/bin/bash
#SBATCH --job-name=overlap-coll
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
#SBATCH --output=overlap-coll-%j.out
# Blocking collectives against liboverlap's, message sizes 8 B to 16 MiB (overlap-bench
# coll), one rank per node, and the report. COLL_ARGS replaces the sizes and iterations.
set -euo pipefail
# common.sh: in the job's directory (--chdir) or the one it was submitted from, or under
# examples/slurm there.
for d in "$PWD" "$SLURM_SUBMIT_DIR" "$SLURM_SUBMIT_DIR/examples/slurm"; do
  [ -r "$d/common.sh" ] && { source "$d/common.sh"; break; }
done
type launch >/dev/null 2>&1 || { echo "common.sh not found under $SLURM_SUBMIT_DIR" >&2; exit 2; }
launch "$OVERLAP_BENCH" coll --impl mpi,overlap --output "coll-$SLURM_JOB_ID.json" \
  ${COLL_ARGS:---sizes 8B:16MiB}
"$OVERLAP_REPORT" "coll-$SLURM_JOB_ID.json" -o "coll-$SLURM_JOB_ID-report"
