! A small Fortran program as users write them, in three forms (the preprocessor picks the
! interface: -DUSE_F08 for `use mpi_f08`, -DUSE_MPI for `use mpi`, else mpif.h): a
! nonblocking and a blocking allreduce and a ring MPI_Sendrecv of 1 MiB, then each rank
! prints what it received. Run plain and under overlap-run, the output must be the same
! (check_intercept.py fortran); the report says whether the calls reached overlap-run.
program intercept_fortran
#if defined(USE_F08)
  use mpi_f08
  implicit none
  type(MPI_Request) :: req
#elif defined(USE_MPI)
  use mpi
  implicit none
  integer :: req
#else
  implicit none
  include 'mpif.h'
  integer :: req
#endif
  integer, parameter :: n = 131072
  integer :: rank, size, ierr, i
  double precision, allocatable :: a(:), b(:), c(:)
  allocate(a(n), b(n), c(n))
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  do i = 1, n
    a(i) = rank * 1000 + i
  end do
  call MPI_Iallreduce(a, b, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Sendrecv(b, n, MPI_DOUBLE_PRECISION, mod(rank + 1, size), 7, c, n, &
                    MPI_DOUBLE_PRECISION, mod(rank + size - 1, size), 7, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  print '(a,i0,a,3f16.1)', 'rank ', rank, ' sums ', sum(b), sum(a), sum(c)
  call MPI_Finalize(ierr)
end program intercept_fortran
