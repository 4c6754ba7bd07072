! use_mpi_f08_relax.f90 -- use_mpi_relax.f90 with the Fortran 2008 bindings
! (`use mpi_f08`: typed handles, optional ierror), plus checks of what the
! bindings carry (status fields, requests set to MPI_REQUEST_NULL, handle
! comparison, MPI_IN_PLACE, MPI_STATUSES_IGNORE); a failed check prints FAIL.
! With p > 1, rank 0 relaxes three times the cells of every other rank before
! the MPI_Allreduce of each step.  Test: use_mpi.test.
module relax_mod
  use mpi_f08
  implicit none
contains
  ! Relaxes this rank's cells for `seconds` of CPU time; returns the residual.
  double precision function relax(seconds)
    double precision, intent(in) :: seconds
    double precision :: acc, t0, t
    integer :: i
    acc = 0d0
    call cpu_time(t0)
    t = t0
    do while (t - t0 < seconds)          ! the planted loop
      do i = 1, 20000
        acc = acc * 0.9999999d0 + i * 1d-9
      end do
      call cpu_time(t)
    end do
    relax = acc
  end function relax
end module relax_mod

program use_mpi_f08_relax
  use mpi_f08
  use relax_mod
  implicit none
  integer, parameter :: steps = 20
  double precision, parameter :: unit = 0.04d0
  integer :: ierr, rank, nprocs, it, got, mine
  double precision :: share, r, total, v(3), t0
  type(MPI_Status) :: st
  type(MPI_Request) :: rq(2)
  type(MPI_Comm) :: dup

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  t0 = MPI_Wtime()   ! Open MPI's clock starts at its first reading
  share = unit / (nprocs + merge(2, 0, nprocs > 1))
  if (nprocs > 1 .and. rank == 0) share = 3 * share
  do it = 1, steps
    r = relax(share)
    call MPI_Allreduce(r, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do

  v = rank
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. nint(v(3)) /= nprocs - 1) print *, 'FAIL in place', v, ierr
  if (nprocs > 1 .and. rank == 0) call MPI_Send(42, 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD)
  if (nprocs > 1 .and. rank == 1) then
    call MPI_Recv(got, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
    if (got /= 42 .or. st%MPI_SOURCE /= 0 .or. st%MPI_TAG /= 7) print *, 'FAIL status', got, st%MPI_SOURCE, st%MPI_TAG
  end if
  mine = rank
  call MPI_Irecv(got, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 1, MPI_COMM_WORLD, rq(1))
  call MPI_Isend(mine, 1, MPI_INTEGER, mod(rank + 1, nprocs), 1, MPI_COMM_WORLD, rq(2))
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE)
  if (got /= mod(rank + nprocs - 1, nprocs) .or. any(rq /= MPI_REQUEST_NULL)) print *, 'FAIL ring', got
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  if (dup == MPI_COMM_NULL .or. dup == MPI_COMM_WORLD) print *, 'FAIL dup'
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) print *, 'FAIL free'
  if (rank == 0) print '(a,i0,a,l1)', 'relaxed on ', nprocs, ' ranks, clock ', MPI_Wtime() > t0
  call MPI_Finalize()
end program use_mpi_f08_relax
