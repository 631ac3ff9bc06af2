#!/bin/bash
#SBATCH --job-name=overlap-advise
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=2
#SBATCH --exclusive
#SBATCH --output=overlap-advise-%j.out
# Which progress set-up should my program use on these nodes? overlap-bench advise measures
# each (MPI's own, liboverlap caller/shared/dedicated, and with one of the task's CPUs left
# to progress) at the program's collective, message size and computation, and prints the
# advice with the command line that gets it; then its report. Ask for the tasks per node
# and CPUs per task the program will run with. MPI's own asynchronous progress starts in
# MPI_Init: submit again with MPICH_ASYNC_PROGRESS=1 (MPICH) or
# OMPI_MCA_btl_tcp_progress_thread=1 (Open MPI) exported to measure it.
# ADVISE_ARGS replaces the program's description (default: iallreduce, the message at which
# MPI's own takes 4 ms, 4 ms of computation), e.g. "--op ialltoall --size 1MiB --comp-time 10ms".
set -euo pipefail
# common.sh: in the job's directory (--chdir) or the one it was submitted from, or under
# examples/slurm there.
for d in "$PWD" "$SLURM_SUBMIT_DIR" "$SLURM_SUBMIT_DIR/examples/slurm"; do
  [ -r "$d/common.sh" ] && { source "$d/common.sh"; break; }
done
type launch >/dev/null 2>&1 || { echo "common.sh not found under $SLURM_SUBMIT_DIR" >&2; exit 2; }
launch "$OVERLAP_BENCH" advise --output "advise-$SLURM_JOB_ID.json" ${ADVISE_ARGS:-}
"$OVERLAP_REPORT" "advise-$SLURM_JOB_ID.json" -o "advise-$SLURM_JOB_ID-report"
