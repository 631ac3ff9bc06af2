# Sourced by the batch scripts of this folder (from the directory they were submitted
# from: Slurm runs a copy of the script elsewhere). Picks the launch form:
#   LAUNCH=srun (default)   srun direct launch: --mpi=pmix for Open MPI, pmi2 for MPICH
#                           (Slurm's plugins; `srun --mpi=list` shows what a site has)
#   LAUNCH=mpiexec          the MPI's own launcher inside the allocation: Open MPI's
#                           mpirun and MPICH's Hydra read the nodes from Slurm and start
#                           their daemons with srun
# OVERLAP_BENCH, OVERLAP_RUN, OVERLAP_REPORT: the tools (default: from PATH); MPIEXEC:
# the launcher for LAUNCH=mpiexec (default: mpiexec).
OVERLAP_BENCH=${OVERLAP_BENCH:-overlap-bench}
OVERLAP_RUN=${OVERLAP_RUN:-overlap-run}
OVERLAP_REPORT=${OVERLAP_REPORT:-overlap-report}
LAUNCH=${LAUNCH:-srun}
MPIEXEC=${MPIEXEC:-mpiexec}

# Which MPI the tools were built with decides srun's PMI plugin (overlap-bench, else the
# program a script runs, e.g. JACOBI).
# ldd's whole output is read first: `ldd | grep -q` under the scripts' pipefail failed
# whenever grep stopped reading before ldd finished writing (SIGPIPE), which picked pmix
# for MPICH and started every task as an MPI job of its own (seen in CI).
probe=$(command -v "$OVERLAP_BENCH" 2>/dev/null || command -v "${JACOBI:-}" 2>/dev/null || true)
libs=$([ -n "$probe" ] && ldd "$probe" 2>/dev/null || true)
case $libs in
  *libmpich*) SRUN_MPI=${SRUN_MPI:-pmi2} ;;
  *) SRUN_MPI=${SRUN_MPI:-pmix} ;;
esac

# launch PROGRAM ARGS...: one rank per task of the allocation.
launch() {
  case $LAUNCH in
    srun) srun --mpi="$SRUN_MPI" "$@" ;;
    mpiexec) "$MPIEXEC" -n "$SLURM_NTASKS" "$@" ;;
    *) echo "LAUNCH=$LAUNCH: allowed are srun and mpiexec" >&2; return 2 ;;
  esac
}

echo "job $SLURM_JOB_ID: $SLURM_JOB_NUM_NODES nodes ($SLURM_JOB_NODELIST), $SLURM_NTASKS tasks," \
  "launch: $LAUNCH$( [ "$LAUNCH" = srun ] && echo " --mpi=$SRUN_MPI")"
