program hello
  include 'mpif.h'
  integer ierr
  call MPI_INIT(ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
end program
