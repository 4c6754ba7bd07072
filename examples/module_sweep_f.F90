! module_sweep_f.F90 -- planted defect: load imbalance in a loop of a Fortran module
! procedure (mpif.h bindings, scalana-fc).  Strong scaling: 1.6 CPU seconds of row
! relaxation (at scale 1), plus a balanced boundary smoothing (0.2 CPU seconds in
! all) in the same procedure.  With --defect=on rank 0 (p > 1) owns three times the
! rows of every other rank (the excess is extra work); the others wait in
! MPI_ALLREDUCE.  The procedure holds two loops and no MPI: only the row loop is the
! cause.
#include "common/example_f.inc"

module sweep_mod
  use scalana_example
  implicit none
  ! The planted loop is the row loop, lines SWEEP+14 to SWEEP+20 (SWEEP: the
  ! function line).
  integer, parameter :: sweep_line = __LINE__ + 5
  integer, parameter :: planted_first = sweep_line + 14, planted_last = sweep_line + 20
contains
  ! One sweep of this rank's block: the boundary (the same on every rank), then every
  ! row it owns.  Returns the CPU seconds of the row loop.
  double precision function sweep_block(nrows, row_seconds, boundary_seconds, rows)
    integer, intent(in) :: nrows
    double precision, intent(in) :: row_seconds, boundary_seconds
    double precision, intent(inout) :: rows(:)
    double precision :: acc
    double precision :: start, t0
    integer :: r, i
    acc = 0d0
    start = cpu_seconds()
    do while (cpu_seconds() - start < boundary_seconds)
      do i = 1, ex_inner; acc = acc * 0.9999999d0 + i * 3d-9; end do
    end do

    start = cpu_seconds()
    do r = 1, nrows
      t0 = cpu_seconds()
      do while (cpu_seconds() - t0 < row_seconds)
        do i = 1, ex_inner / 10; acc = acc * 0.9999999d0 + i * 1d-9; end do
      end do
      rows(r) = acc
    end do
    sweep_block = cpu_seconds() - start; ex_sink = ex_sink + acc
  end function sweep_block
end module sweep_mod

program module_sweep_f
  use scalana_example
  use sweep_mod
  implicit none
  include 'mpif.h'
  integer, parameter :: niter = 20, row_parts = 4   ! rows per part: a light rank owns 1 part
  double precision, parameter :: total_work = 1.6d0, boundary_work = 0.2d0, heavy_parts = 3d0
  integer :: ierr, rank, nprocs, it, stmt, nrows
  logical :: defect, heavy
  double precision :: scale, row_seconds, boundary_seconds, spent, residual, wall_start
  double precision :: per_iteration, fair, mine, parts
  double precision, allocatable :: rows(:), won(:), woff(:)
  character(len=*), parameter :: src = __FILE__

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call parse_switches(rank, 'module_sweep_f', defect, scale)
  wall_start = MPI_WTIME()
  heavy = defect .and. nprocs > 1 .and. rank == 0
  ! fair shares of the rows: heavy_parts on rank 0 with the defect on, 1 on the others
  allocate (won(nprocs), woff(nprocs))
  won = 1d0
  if (defect .and. nprocs > 1) won(1) = heavy_parts
  parts = nprocs   ! a fair share is 1/p of the rows: rank 0's excess is extra work
  nrows = nint(row_parts * won(rank + 1))
  allocate (rows(nrows))
  per_iteration = scale * total_work / niter
  row_seconds = per_iteration / (row_parts * parts)
  boundary_seconds = scale * boundary_work / nprocs / niter
  won = boundary_seconds + per_iteration * won / parts
  fair = per_iteration / nprocs
  woff = boundary_seconds + fair
  mine = nrows * row_seconds
  spent = 0d0

  stmt = __LINE__ + 2   ! the statement that runs the procedure, two lines down
  do it = 1, niter
    spent = spent + sweep_block(nrows, row_seconds, boundary_seconds, rows)
    call MPI_ALLREDUCE(spent, residual, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  end do

  ! Extra CPU seconds against the defect-off program (the rows split evenly).
  call report('module_sweep_f', 'load_imbalance', src, planted_first, planted_last, stmt, &
              'sweep_block', defect, heavy, merge(spent * (1d0 - fair / mine), 0d0, heavy), &
              (won(1) - woff(1)) * niter, model_saving(won, woff, nprocs, niter, nprocs), &
              model_saving(won, woff, nprocs, niter, ex_cores()), wall_start)
  call MPI_FINALIZE(ierr)
end program module_sweep_f
