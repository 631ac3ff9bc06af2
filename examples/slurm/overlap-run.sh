#!/bin/bash
#SBATCH --job-name=overlap-run
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
#SBATCH --output=overlap-run-%j.out
# An unmodified program (examples/jacobi, built as ./jacobi or JACOBI=path) plain and under
# overlap-run, in both forms: per rank (srun overlap-run -- ./jacobi) and around the
# launcher (overlap-run -- mpiexec ... ./jacobi). The three print the same iterations and
# residual bits; compare their time per iteration. JACOBI_ARGS: NX, rows per rank, steps.
set -euo pipefail
# common.sh: in the job's directory (--chdir) or the one it was submitted from, or under
# examples/slurm there.
for d in "$PWD" "$SLURM_SUBMIT_DIR" "$SLURM_SUBMIT_DIR/examples/slurm"; do
  [ -r "$d/common.sh" ] && { source "$d/common.sh"; break; }
done
type launch >/dev/null 2>&1 || { echo "common.sh not found under $SLURM_SUBMIT_DIR" >&2; exit 2; }
JACOBI=${JACOBI:-./jacobi}
args=${JACOBI_ARGS:-8192 256 200}
echo "== plain"
launch "$JACOBI" $args
echo "== overlap-run per rank"
launch "$OVERLAP_RUN" --report "jacobi-$SLURM_JOB_ID.json" -- "$JACOBI" $args
echo "== overlap-run around the launcher"
"$OVERLAP_RUN" --report "jacobi-launcher-$SLURM_JOB_ID.json" -- "$MPIEXEC" -n "$SLURM_NTASKS" "$JACOBI" $args
