! modproc.f90 — a Fortran module procedure with the stencil loop, called
! from the main program's iteration loop next to an MPI_Allreduce; at -O2
! the call may be inlined.  The samples must reach relax's loop
! (inline_attr.py checks report.json).  With the argument "imbalance", the
! ranks other than 0 relax a 230x230 grid instead of 400x400 (a third of the
! points): the root cause is relax's loop, inlined into the program (its
! chain names no frame of flang's C main).
module kernels
  implicit none
  integer, parameter :: nc = 230
contains
  subroutine relax(a, b, n)
    integer, intent(in) :: n
    real(8), intent(inout) :: a(n, n), b(n, n)
    integer :: i, j
    do j = 2, n - 1 ! @relax-loop
      do i = 2, n - 1
        b(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1)) + 1d-3 * b(i, j)
      end do
    end do
    ! every rank copies the same nc x nc block back: the imbalance lies in
    ! the stencil loop alone
    do j = 2, nc - 1 ! @copy-loop
      do i = 2, nc - 1
        a(i, j) = b(i, j)
      end do
    end do
  end subroutine relax
end module kernels

program modproc
  use kernels
  implicit none
  include 'mpif.h'
  integer :: n
  real(8), allocatable :: a(:, :), b(:, :)
  real(8) :: s
  integer :: ierr, rank, it
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  n = 400
  call get_command_argument(1, arg)
  if (arg == 'imbalance' .and. rank /= 0) n = 230
  allocate(a(n, n), b(n, n))
  a = 1d0
  b = 0d0
  s = 0d0
  do it = 1, 2500 ! @main-loop
    call relax(a, b, n) ! @call-relax
    s = b(2, 2)
    call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print *, s
  call MPI_Finalize(ierr)
end program modproc
