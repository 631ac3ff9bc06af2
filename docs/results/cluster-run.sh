# Sourced by the figure scripts in docs/results/*/run.sh (POSIX sh).
#
# figures_begin DEFAULT_OUT
#   The figure scripts' common start: $out (OUT, else DEFAULT_OUT; created), $ompi and
#   $mpich (OMPI_DIR and MPICH_DIR, else the test builds), OVERLAP_CLUSTER_PREFIX (ovl-
#   unless set), and 2 emulated nodes at 1 Gbit/s brought up.
figures_begin() {
  out=${OUT:-$1}
  ompi=${OMPI_DIR:-build/test-openmpi}
  mpich=${MPICH_DIR:-build/test-mpich}
  : "${OVERLAP_CLUSTER_PREFIX:=ovl-}"
  export OVERLAP_CLUSTER_PREFIX
  mkdir -p "$out"
  scripts/cluster up 2 --rate 1gbit >/dev/null
}

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
