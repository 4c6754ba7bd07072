! ring_f08.f90 — test program: the ring of ring.c through the Fortran
! bindings (f08): Irecv/Isend/Waitall (STATUSES_IGNORE), Send/Recv
! (STATUS_IGNORE, ANY_SOURCE), Allreduce, 20 iterations.
program ring
  use mpi_f08
  implicit none
  integer, parameter :: n = 1000, iter = 20
  double precision :: sbuf(n), rbuf(n), x, y, s
  integer :: ibuf(10)
  integer :: rank, nproc, right, left, it, ierr
  type(MPI_Request) :: rq(2)
  sbuf = 1.0d0
  ibuf = 0
  s = 0.0d0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  do it = 1, iter
    call MPI_Irecv(rbuf, n, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_Isend(sbuf, n, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, rq(2), ierr)
    call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
    if (rank == 0 .and. nproc > 1) then
      call MPI_Send(ibuf, 10, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, ierr)
    else if (rank == 1) then
      call MPI_Recv(ibuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
    x = rank
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    s = s + y
  end do
  if (rank == 0) print '(a,f8.1)', 'ring done: ', s
  call MPI_Finalize(ierr)
end program ring
