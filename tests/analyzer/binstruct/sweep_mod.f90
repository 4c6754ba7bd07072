! sweep_mod.f90 — input of the binstruct test (check_binstruct.py): a
! module procedure with a nested loop, called from the main program's
! iteration loop that also holds an MPI_ALLREDUCE; built with the system
! mpif90 (gfortran) -O2 -g.  Keep line numbers in step with the test.
module sweep_mod
  implicit none
contains
  subroutine sweep_block(a, n, reps, s)
    integer, intent(in) :: n, reps
    double precision, intent(inout) :: a(n)
    double precision, intent(out) :: s
    integer :: r, i
    s = 0.0d0
    do r = 1, reps
      do i = 2, n - 1
        a(i) = 0.5d0 * (a(i - 1) + a(i + 1))
        s = s + a(i)
      end do
    end do
  end subroutine sweep_block
end module sweep_mod

program main
  use sweep_mod
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, it
  double precision :: a(1000), s, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  a = 1.0d0
  do it = 1, 10
    call sweep_block(a, 1000, 100 + rank, s)
    call MPI_ALLREDUCE(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print *, total
  call MPI_FINALIZE(ierr)
end program main
