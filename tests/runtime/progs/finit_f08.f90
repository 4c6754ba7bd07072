! finit_f08.f90 — as finit_mpifh.f90 through `use mpi_f08`.  np = 2.
program finit_f08
  use mpi_f08
  implicit none
  integer :: rank, nproc, i, idx, b(3), g(3, 4)
  type(MPI_Request) :: rq(2)
  type(MPI_Status) :: st
  integer(8) :: c0, c1, rate
  logical :: done
  call system_clock(c0, rate)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  b = rank + 1
  g = 0
  if (rank == 0) then
    g(:, 1) = 1
    call MPI_Gather(MPI_IN_PLACE, 1000, MPI_INTEGER, g, 3, MPI_INTEGER, 0, MPI_COMM_WORLD)
    do i = 1, nproc
      if (any(g(:, i) /= i)) print *, 'FAIL gather', i, g(:, i)
    end do
    call MPI_Irecv(b(1), 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, rq(1))
    call MPI_Irecv(b(2), 2, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, rq(2))
    do i = 1, 2
      call MPI_Waitany(2, rq, idx, st)
      ! MPICH 4.0.2's mpi_f08 returns 0-based indices here (with or without ScalAna)
      if (st%MPI_TAG /= 4 + idx .and. st%MPI_TAG /= 5 + idx) print *, 'FAIL waitany index', idx, 'tag', st%MPI_TAG
    end do
    ! a receive completed by MPI_Request_get_status, then freed
    call MPI_Irecv(b(3), 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, rq(1))
    done = .false.
    do while (.not. done)
      call MPI_Request_get_status(rq(1), done, st)
    end do
    call MPI_Request_free(rq(1))
    if (b(3) /= 2) print *, 'FAIL get_status data', b(3)
  else
    call MPI_Gather(b, 3, MPI_INTEGER, g, 3, MPI_INTEGER, 0, MPI_COMM_WORLD)
    if (rank == 1) then
      call MPI_Send(b(2), 2, MPI_INTEGER, 0, 6, MPI_COMM_WORLD)
      call MPI_Send(b(1), 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD)
      call MPI_Send(b(1), 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD)
    end if
  end if
  call system_clock(c1)
  call write_elapsed(rank, (c1 - c0) * (1000000000_8 / rate))
  call MPI_Finalize()
end program finit_f08

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
