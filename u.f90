program u
  use mpi_f08
  implicit none
  integer :: rank
  double precision :: x, y, a(3), b(3)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = rank + 1
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  a = rank; call MPI_Allreduce(a, b, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print *, 'sum', y, b(1)
  call MPI_Finalize()
end program
