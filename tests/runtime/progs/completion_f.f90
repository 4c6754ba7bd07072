! completion_f.f90 — MPI_ERRORS_RETURN set through the Fortran binding, then a
! truncated receive completed by MPI_Waitall (test_robust.py, case fcompletion):
! rank 1 prints the error class, the truncated status's error class and its
! source, which must be the same with and without the runtime.
program completion_f
  use mpi
  implicit none
  integer :: ierr, rank, req(2), st(MPI_STATUS_SIZE, 2), buf(4, 2), data(8), c, cls
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  data = 1
  if (rank == 0) then
    call MPI_Send(data, 1, MPI_INTEGER, 1, 10, MPI_COMM_WORLD, ierr)
    call MPI_Send(data, 8, MPI_INTEGER, 1, 11, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Irecv(buf(1, 1), 4, MPI_INTEGER, 0, 10, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(buf(1, 2), 4, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, st, ierr)
    call MPI_Error_class(ierr, cls, c)
    call MPI_Error_class(st(MPI_ERROR, 2), c, ierr)
    print '(a,i0,a,i0,a,i0)', 'waitall class ', cls, ' st2 ', c, ' src ', st(MPI_SOURCE, 2)
  end if
  call MPI_Finalize(ierr)
end program
