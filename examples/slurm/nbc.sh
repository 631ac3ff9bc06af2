#!/bin/bash
#SBATCH --job-name=overlap-nbc
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=2
#SBATCH --exclusive
#SBATCH --output=overlap-nbc-%j.out
# Does communication overlap computation here? The nbc sweep (MPI's nonblocking
# collectives against liboverlap's, a grid of communication and computation times) and
# its report. With 2 CPUs per task and one computation thread, liboverlap's `auto` policy
# puts its progress thread on the second CPU (metadata.progress_choice says why). Where
# Slurm's CPUs are hyperthreads, ask for whole cores (--hint=nomultithread): auto counts
# cores, and two hyperthreads of one core leave none free.
# NBC_ARGS replaces the grid.
set -euo pipefail
# common.sh: in the job's directory (--chdir) or the one it was submitted from, or under
# examples/slurm there.
for d in "$PWD" "$SLURM_SUBMIT_DIR" "$SLURM_SUBMIT_DIR/examples/slurm"; do
  [ -r "$d/common.sh" ] && { source "$d/common.sh"; break; }
done
type launch >/dev/null 2>&1 || { echo "common.sh not found under $SLURM_SUBMIT_DIR" >&2; exit 2; }
launch "$OVERLAP_BENCH" nbc --impl mpi,overlap --threads 1 --output "nbc-$SLURM_JOB_ID.json" \
  ${NBC_ARGS:---op ibcast,iallreduce --comm-times 2ms,8ms --comp-times 2ms,8ms}
"$OVERLAP_REPORT" "nbc-$SLURM_JOB_ID.json" -o "nbc-$SLURM_JOB_ID-report"
