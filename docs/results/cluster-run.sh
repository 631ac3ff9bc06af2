# Sourced by the figure scripts in docs/results/*/run.sh (POSIX sh).
#
# cluster_run SECONDS [scripts/cluster run options] -- PROGRAM ARGS...
#   scripts/cluster run with a time limit. When PROGRAM's arguments name an --output file,
#   the run also ends (successfully) once that file is complete: MPICH 4.0.2 + UCX may hang
#   in MPI_Finalize across nodes after writing its results (docs/emulated-cluster.md), and
#   waiting out the limit would idle the machine for up to SECONDS. A run that reaches the
#   limit counts as finished too (exit 124): the JSON says whether it is complete.
cluster_run() {
  _limit=$1
  shift
  _done=$(printf '%s\n' "$@" | sed -n '/^--output$/{n;p;q;}')
  scripts/cluster run --timeout "$_limit" ${_done:+--done "$_done"} "$@" || [ $? -eq 124 ]
}
