! A hybrid MPI + OpenMP Fortran program that uses omp_lib; its output is exact.
program omp_sum
  use mpi
  use omp_lib
  implicit none
  integer :: ierr, rank, i
  integer(kind=8) :: s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  s = 0
!$omp parallel do reduction(+:s)
  do i = 1, 100000
    s = s + i
  end do
!$omp end parallel do
  if (rank == 0) print '(I0," threads, sum ",I0)', omp_get_max_threads(), s
  call MPI_Finalize(ierr)
end program omp_sum
