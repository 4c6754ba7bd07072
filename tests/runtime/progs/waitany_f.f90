! waitany_f.f90 — test program (use mpi, linked with the runtime): Irecv with
! MPI_ANY_SOURCE completed by Waitany (1-based indices, MPI_UNDEFINED when all
! are null), Isend completed by Testsome, Alltoallw (datatype arrays), and the
! Fortran phase API.  np = 2.
program waitany_f
  use mpi
  implicit none
  integer :: rank, nproc, ierr, rq(2), idx, i, b(4), st(MPI_STATUS_SIZE), outc, ids(2)
  integer :: sc(2), sd(2), rc(2), rd(2), ty(2), sw(2), rw(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call scalana_phase_begin('setup')
  if (rank == 0) then
    call MPI_Irecv(b(1), 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_Irecv(b(2), 2, MPI_INTEGER, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, rq(2), ierr)
    do i = 1, 2
      call MPI_Waitany(2, rq, idx, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_Waitany(2, rq, idx, st, ierr)
    ! MPICH 4.0.2's binding returns MPI_UNDEFINED + 1 here (with or without ScalAna)
    if (idx /= MPI_UNDEFINED .and. idx /= MPI_UNDEFINED + 1) print *, 'FAIL idx', idx
  else if (rank == 1) then
    b = 1
    call MPI_Isend(b(1), 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_Isend(b(2), 2, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, rq(2), ierr)
    outc = 0
    i = 0
    do while (i < 2)
      call MPI_Testsome(2, rq, outc, ids, MPI_STATUSES_IGNORE, ierr)
      if (outc /= MPI_UNDEFINED) i = i + outc
    end do
  end if
  sc = 1; rc = 1; sd = (/ 0, 4 /); rd = (/ 0, 4 /); ty = MPI_INTEGER; sw = rank
  call MPI_Alltoallw(sw, sc, sd, ty, rw, rc, rd, ty, MPI_COMM_WORLD, ierr)
  call scalana_phase_end('setup')
  call MPI_Finalize(ierr)
end program waitany_f
