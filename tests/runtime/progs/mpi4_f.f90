! mpi4_f.f90 — MPI-4.0 calls through the Fortran binding (mpif.h): a persistent
! MPI_ALLREDUCE_INIT of 8 doubles started 4 times, and MPI_ISENDRECV of 16
! integers with the other rank twice.  Two ranks; prints FAIL on a wrong result.
! Asserted by numbers_test.py (check mpi4_f).
program mpi4_f
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, req, it, other
  double precision :: x(8), y(8)
  integer :: s(16), r(16)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  call MPI_ALLREDUCE_INIT(x, y, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
  do it = 1, 4
    x = rank + it
    call MPI_START(req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    if (y(8) /= size * it + size * (size - 1) / 2) print *, 'FAIL: allreduce_init', y(8)
  end do
  call MPI_REQUEST_FREE(req, ierr)
  other = 1 - rank
  do it = 1, 2
    s = rank * 100 + it
    call MPI_ISENDRECV(s, 16, MPI_INTEGER, other, 7, r, 16, MPI_INTEGER, other, 7, MPI_COMM_WORLD, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    if (r(16) /= other * 100 + it) print *, 'FAIL: isendrecv', r(16)
  end do
  print '(a,i0,a)', 'rank ', rank, ': done'
  call MPI_FINALIZE(ierr)
end program mpi4_f
