#!/bin/bash
#SBATCH --job-name=overlap-sync
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
#SBATCH --output=overlap-sync-%j.out
# How well the ranks' clocks agree across the allocation (overlap-bench sync), one rank
# per node: submit from the folder that holds common.sh, e.g.
#   sbatch examples/slurm/sync.sh          (LAUNCH=mpiexec sbatch ... for mpirun)
set -euo pipefail
# common.sh: in the job's directory (--chdir) or the one it was submitted from, or under
# examples/slurm there.
for d in "$PWD" "$SLURM_SUBMIT_DIR" "$SLURM_SUBMIT_DIR/examples/slurm"; do
  [ -r "$d/common.sh" ] && { source "$d/common.sh"; break; }
done
type launch >/dev/null 2>&1 || { echo "common.sh not found under $SLURM_SUBMIT_DIR" >&2; exit 2; }
launch "$OVERLAP_BENCH" sync --output "sync-$SLURM_JOB_ID.json" ${SYNC_ARGS:-}
