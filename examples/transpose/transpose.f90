! The transpose step of a distributed FFT, written the way such codes overlap it: several
! fields, each transformed along its local lines, then transposed with MPI_Ialltoall while
! the next field is transformed. Nothing in it knows about overlap-run.
!
!   transpose N FIELDS STEPS PASSES
!
! N: global lines of N values (N divisible by the number of ranks); each rank holds
! N / P lines of every field. FIELDS fields are pipelined: the transpose of field f is in
! flight while field f + 1 is transformed. STEPS transposes of every field (the result is
! the next step's input). PASSES: work per value of the line transform. Prints the time
! per step and a checksum of the result that is the same, to the bit, however the
! transfers progressed.
program fft_transpose
  use mpi_f08
  implicit none
  integer :: n, nfields, nsteps, npasses, rank, nprocs, nloc, f, step
  real(8), allocatable :: a(:, :, :), sendbuf(:, :, :, :), recvbuf(:, :, :, :)
  type(MPI_Request), allocatable :: req(:)
  real(8) :: t0, t1, local, total
  integer(8) :: bits
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  n = int_arg(1, 1024, 'N')
  nfields = int_arg(2, 4, 'FIELDS')
  nsteps = int_arg(3, 3, 'STEPS')
  npasses = int_arg(4, 20, 'PASSES')
  if (n <= 0 .or. mod(n, nprocs) /= 0) then
    call refuse('N', n, 'a positive multiple of the number of ranks')
  else if (nfields < 1) then
    call refuse('FIELDS', nfields, 'at least 1')
  else if (nsteps < 1) then
    call refuse('STEPS', nsteps, 'at least 1')
  else if (npasses < 0) then
    call refuse('PASSES', npasses, '0 or more')
  end if
  nloc = n / nprocs
  allocate(a(n, nloc, nfields), sendbuf(nloc, nloc, nprocs, nfields), &
           recvbuf(nloc, nloc, nprocs, nfields), req(nfields))
  call initial(a)

  call MPI_Barrier(MPI_COMM_WORLD)
  t0 = MPI_Wtime()
  do step = 1, nsteps
    ! Field 1 starts the pipeline; each next field is transformed while the previous one
    ! is transposed.
    do f = 1, nfields
      call transform(a(:, :, f))
      call pack(a(:, :, f), sendbuf(:, :, :, f))
      call MPI_Ialltoall(sendbuf(:, :, :, f), nloc * nloc, MPI_DOUBLE_PRECISION, &
                         recvbuf(:, :, :, f), nloc * nloc, MPI_DOUBLE_PRECISION, &
                         MPI_COMM_WORLD, req(f))
      if (f > 1) then
        call MPI_Wait(req(f - 1), MPI_STATUS_IGNORE)
        call unpack(recvbuf(:, :, :, f - 1), a(:, :, f - 1))
      end if
    end do
    call MPI_Wait(req(nfields), MPI_STATUS_IGNORE)
    call unpack(recvbuf(:, :, :, nfields), a(:, :, nfields))
  end do
  t1 = MPI_Wtime()

  local = checksum(a)
  call MPI_Reduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    bits = transfer(total, bits)
    print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'transpose N ', n, ' fields ', nfields, ' steps ', &
          nsteps, ' passes ', npasses, ' ranks ', nprocs
    print '(a,f10.3,a)', 'time per step ', (t1 - t0) / nsteps * 1d3, ' ms'
    print '(a,es24.16,a,z16.16,a)', 'checksum ', total, ' (bits ', bits, ')'
  end if
  call MPI_Finalize()

contains

  ! One line naming the value and what is allowed, exit code 2, before any MPI traffic.
  subroutine refuse(what, value, allowed)
    character(len=*), intent(in) :: what, allowed
    integer, intent(in) :: value
    if (rank == 0) print '(a,a,a,i0,a,a,a,i0,a)', 'transpose: ', what, '=', value, &
                         ' is not allowed (', allowed, '; ranks: ', nprocs, ')'
    call MPI_Finalize()
    stop 2
  end subroutine

  integer function int_arg(i, default, what)
    integer, intent(in) :: i, default
    character(len=*), intent(in) :: what
    integer :: status
    int_arg = default
    if (command_argument_count() >= i) then
      call get_command_argument(i, arg)
      read (arg, *, iostat=status) int_arg
      if (status /= 0 .or. verify(trim(arg), '0123456789-') /= 0) then
        if (rank == 0) print '(5a)', 'transpose: ', what, '=', trim(arg), &
                                     ' is not allowed (an integer)'
        call MPI_Finalize()
        stop 2
      end if
    end if
  end function

  subroutine initial(x)
    real(8), intent(out) :: x(:, :, :)
    integer :: i, j, k
    do k = 1, size(x, 3)
      do j = 1, size(x, 2)
        do i = 1, size(x, 1)
          x(i, j, k) = modulo(i * 7 + (rank * nloc + j) * 13 + k * 29, 101) / 101d0
        end do
      end do
    end do
  end subroutine

  ! A line transform's cost without an FFT library: PASSES sweeps of a three-point
  ! filter along each local line, and a rotation of its values.
  subroutine transform(x)
    real(8), intent(inout) :: x(:, :)
    real(8) :: prev, cur
    integer :: i, j, p
    do j = 1, size(x, 2)
      do p = 1, npasses
        prev = x(size(x, 1), j)
        do i = 1, size(x, 1) - 1
          cur = x(i, j)
          x(i, j) = 0.5d0 * cur + 0.25d0 * (prev + x(i + 1, j))
          prev = cur
        end do
        x(size(x, 1), j) = 0.5d0 * x(size(x, 1), j) + 0.25d0 * (prev + x(1, j))
      end do
      x(:, j) = cshift(x(:, j), 1) + 1d-3 * j
    end do
  end subroutine

  ! Block k of the send buffer: this rank's lines, values k*nloc+1 .. (k+1)*nloc.
  subroutine pack(x, s)
    real(8), intent(in) :: x(:, :)
    real(8), intent(out) :: s(:, :, :)
    integer :: k
    do k = 1, nprocs
      s(:, :, k) = x((k - 1) * nloc + 1:k * nloc, :)
    end do
  end subroutine

  ! Block k received from rank k holds its lines' values for this rank's columns: line i
  ! of the result takes value i of each of them, transposed.
  subroutine unpack(r, x)
    real(8), intent(in) :: r(:, :, :)
    real(8), intent(out) :: x(:, :)
    integer :: k
    do k = 1, nprocs
      x((k - 1) * nloc + 1:k * nloc, :) = transpose(r(:, :, k))
    end do
  end subroutine

  real(8) function checksum(x)
    real(8), intent(in) :: x(:, :, :)
    integer :: i, j, k
    checksum = 0d0
    do k = 1, size(x, 3)
      do j = 1, size(x, 2)
        do i = 1, size(x, 1)
          checksum = checksum + x(i, j, k) * (1d0 + modulo(i + 3 * j + 5 * k, 17))
        end do
      end do
    end do
  end function

end program fft_transpose
