! use_mpi_relax.f90 -- a `use mpi` program (Fortran 90 bindings) with a planted
! load imbalance in a loop of a module procedure: with p > 1, rank 0 relaxes three
! times the cells of every other rank before the MPI_Allreduce of each step, so
! the others wait there.  Strong scaling: 0.8 CPU seconds of relaxation in all at
! every p (rank 0 owns 3 parts, every other rank 1).  Test: use_mpi.test.
module relax_mod
  use mpi
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

program use_mpi_relax
  use mpi
  use relax_mod
  implicit none
  integer, parameter :: steps = 20
  double precision, parameter :: unit = 0.04d0
  integer :: ierr, rank, nprocs, it
  double precision :: share, r, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  share = unit / (nprocs + merge(2, 0, nprocs > 1))
  if (nprocs > 1 .and. rank == 0) share = 3 * share
  do it = 1, steps
    r = relax(share)
    call MPI_Allreduce(r, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,i0,a)', 'relaxed on ', nprocs, ' ranks'
  call MPI_Finalize(ierr)
end program use_mpi_relax
