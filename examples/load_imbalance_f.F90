! load_imbalance_f.F90 -- the Fortran variant of load_imbalance.c (mpif.h bindings):
! load imbalance before a collective.  Strong scaling: 2.4 CPU seconds of relaxation
! (at scale 1) split over the processes; with --defect=on the ranks r with
! mod(r,4) == 3 or r == p-1 (p > 1) own three times the cells of every other rank
! (the excess is extra work) and the others wait for them in MPI_ALLREDUCE.  Same
! switch and ground-truth lines as the C examples.
#include "common/example_f.inc"

module relax_mod
  use scalana_example
  implicit none
  ! The planted loop is the do while loop, lines FUNC+5 to FUNC+7.
  integer, parameter :: planted_func = __LINE__ + 3
  integer, parameter :: planted_first = planted_func + 5, planted_last = planted_func + 7
contains
  double precision function relax_cells(seconds)   ! CPU seconds of relaxation work
    double precision, intent(in) :: seconds
    double precision :: acc
    double precision :: start; integer :: i
    acc = 0d0; start = cpu_seconds()
    do while (cpu_seconds() - start < seconds)
      do i = 1, ex_inner; acc = acc * 0.9999999d0 + i * 1d-9; end do
    end do
    relax_cells = cpu_seconds() - start; ex_sink = ex_sink + acc
  end function relax_cells

  logical function is_heavy(rank, nprocs)
    integer, intent(in) :: rank, nprocs
    is_heavy = nprocs > 1 .and. (mod(rank, 4) == 3 .or. rank == nprocs - 1)
  end function is_heavy
end module relax_mod

program load_imbalance_f
  use scalana_example
  use relax_mod
  implicit none
  include 'mpif.h'
  integer, parameter :: niter = 20
  double precision, parameter :: total_work = 2.4d0, heavy_parts = 3d0
  integer :: ierr, rank, nprocs, it, stmt, r
  logical :: defect, heavy
  double precision :: scale, per_iteration, fair, mine, spent, residual, wall_start, parts
  double precision, allocatable :: won(:), woff(:)
  character(len=*), parameter :: src = __FILE__

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call parse_switches(rank, 'load_imbalance_f', defect, scale)
  wall_start = MPI_WTIME()
  heavy = defect .and. is_heavy(rank, nprocs)
  ! fair shares: heavy_parts on a heavy rank, 1 on the others
  allocate (won(nprocs), woff(nprocs))
  do r = 1, nprocs
    won(r) = 1d0
    if (defect .and. is_heavy(r - 1, nprocs)) won(r) = heavy_parts
  end do
  parts = nprocs   ! a fair share is 1/p of the work: the heavy ranks' excess is extra work
  per_iteration = scale * total_work / niter
  won = per_iteration * won / parts
  fair = per_iteration / nprocs
  woff = fair
  mine = won(rank + 1)
  spent = 0d0

  stmt = __LINE__ + 2   ! the planted statement, two lines down
  do it = 1, niter
    spent = spent + relax_cells(mine)
    call MPI_ALLREDUCE(spent, residual, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  end do

  ! Extra CPU seconds against the defect-off program, which gives each rank fair.
  call report('load_imbalance_f', 'load_imbalance', src, planted_first, planted_last, stmt, &
              'relax_cells', defect, heavy, merge(spent * (1d0 - fair / mine), 0d0, heavy), &
              (won(nprocs) - fair) * niter, model_saving(won, woff, nprocs, niter, nprocs), &
              model_saving(won, woff, nprocs, niter, ex_cores()), wall_start)
  call MPI_FINALIZE(ierr)
end program load_imbalance_f
