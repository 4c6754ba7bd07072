! pcontrol_f.f90 — MPI_PCONTROL levels from Fortran (`use mpi`): levels 1,
! 2, 0 around two MPI_ALLREDUCE calls, then MPI_FINALIZE.  Each call is
! recorded once, marked Fortran (MPICH's Fortran MPI_PCONTROL calls the C
! MPI_Pcontrol).  Rank 0 prints the sums.
program pcontrol_f
  use mpi
  implicit none
  integer :: rank, ierr, v, s1, s2
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  v = rank + 1
  call MPI_PCONTROL(1)
  call MPI_ALLREDUCE(v, s1, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(2)
  call MPI_ALLREDUCE(v, s2, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(0)
  if (rank == 0) print '(a,i0,a,i0)', 'sum ', s1, ' max ', s2
  call MPI_FINALIZE(ierr)
end program pcontrol_f
