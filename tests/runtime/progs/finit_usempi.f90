! finit_usempi.f90 — as finit_mpifh.f90 through `use mpi`, starting with
! MPI_INIT_THREAD.  np = 2.
program finit_usempi
  use mpi
  implicit none
  integer :: rank, nproc, ierr, i, idx, rq(2), b(3), g(3, 4), st(MPI_STATUS_SIZE), provided
  integer(8) :: c0, c1, rate
  logical :: done
  call system_clock(c0, rate)
  call MPI_INIT_THREAD(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  b = rank + 1
  g = 0
  if (rank == 0) then
    g(:, 1) = 1
    call MPI_GATHER(MPI_IN_PLACE, 1000, MPI_INTEGER, g, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    do i = 1, nproc
      if (any(g(:, i) /= i)) print *, 'FAIL gather', i, g(:, i)
    end do
    call MPI_IRECV(b(1), 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_IRECV(b(2), 2, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, rq(2), ierr)
    do i = 1, 2
      call MPI_WAITANY(2, rq, idx, st, ierr)
      if (st(MPI_TAG) /= 4 + idx) print *, 'FAIL waitany index', idx, 'tag', st(MPI_TAG)
    end do
    ! a receive completed by MPI_REQUEST_GET_STATUS, then freed
    call MPI_IRECV(b(3), 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, rq(1), ierr)
    done = .false.
    do while (.not. done)
      call MPI_REQUEST_GET_STATUS(rq(1), done, st, ierr)
    end do
    call MPI_REQUEST_FREE(rq(1), ierr)
    if (b(3) /= 2) print *, 'FAIL get_status data', b(3)
  else
    call MPI_GATHER(b(1), 3, MPI_INTEGER, g, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (rank == 1) then
      call MPI_SEND(b(2), 2, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, ierr)
      call MPI_SEND(b(1), 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, ierr)
      call MPI_SEND(b(1), 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
    end if
  end if
  call system_clock(c1)
  call write_elapsed(rank, (c1 - c0) * (1000000000_8 / rate))
  call MPI_FINALIZE(ierr)
end program finit_usempi

subroutine write_elapsed(rank, ns)
  implicit none
  integer :: rank
  integer(8) :: ns
  character(len=32) :: name
  write (name, '(a,i0,a)') 'elapsed-', rank, '.txt'
  open (10, file=trim(name), status='replace')
  write (10, '(i0)') ns
  close (10)
end subroutine write_elapsed
