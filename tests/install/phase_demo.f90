! phase_demo.f90 — the Fortran side of tests/install: `use mpi` from the
! installed scalana-fc's own module, and the phase API with an implicit
! interface (trailing blanks of the name do not count).  np = 2.
program phase_demo_f
  use mpi
  implicit none
  integer :: rank, ierr, it
  double precision :: x, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  s = 0
  do it = 1, 10
    call scalana_phase_begin('install_fortran   ')
    x = dble(rank + it)
    call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call scalana_phase_end('install_fortran')
  end do
  if (rank == 0) print '(a,f8.1)', 'phase_demo: sum', s
  call MPI_Finalize(ierr)
end program phase_demo_f
