! module_sweep_f.F90 -- planted defect: load imbalance in a loop of a Fortran module
! procedure (mpif.h bindings, scalana-fc).  Strong scaling: 1.6 CPU seconds of row
! relaxation (at scale 1) over 32 rows per process count, plus a balanced boundary
! smoothing (0.2 CPU seconds in all) in the same procedure.  With --defect=on rank 0
! (p > 1) owns twice its share of rows; the others wait in MPI_ALLREDUCE.  The
! procedure holds two loops and no MPI: only the row loop is the cause.
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
    double precision, volatile :: acc
    double precision :: start, t0
    integer :: r, i
    acc = 0d0
    start = cpu_seconds()
    do while (cpu_seconds() - start < boundary_seconds)
      do i = 1, ex_inner; acc = acc + i * 3d-9; end do
    end do

    start = cpu_seconds()
    do r = 1, nrows
      t0 = cpu_seconds()
      do while (cpu_seconds() - t0 < row_seconds)
        do i = 1, ex_inner / 10; acc = acc + i * 1d-9; end do
      end do
      rows(r) = acc
    end do
    sweep_block = cpu_seconds() - start
  end function sweep_block

  integer function fair_rows(nprocs)
    integer, intent(in) :: nprocs
    fair_rows = max(1, 32 / nprocs)
  end function fair_rows
end module sweep_mod

program module_sweep_f
  use scalana_example
  use sweep_mod
  implicit none
  include 'mpif.h'
  integer, parameter :: niter = 20
  double precision, parameter :: total_work = 1.6d0, boundary_work = 0.2d0, heavy_factor = 2d0
  integer :: ierr, rank, nprocs, it, stmt, nrows, r
  logical :: defect, heavy
  double precision :: scale, row_seconds, boundary_seconds, spent, residual, wall_start
  double precision :: fair, saving
  double precision, allocatable :: rows(:), w(:)
  character(len=*), parameter :: src = __FILE__

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call parse_switches(rank, 'module_sweep_f', defect, scale)
  wall_start = MPI_WTIME()
  heavy = defect .and. nprocs > 1 .and. rank == 0
  nrows = fair_rows(nprocs)
  if (heavy) nrows = int(heavy_factor * nrows)
  allocate (rows(nrows))
  row_seconds = scale * total_work / (fair_rows(nprocs) * nprocs) / niter
  boundary_seconds = scale * boundary_work / nprocs / niter
  spent = 0d0

  stmt = __LINE__ + 2   ! the statement that runs the procedure, two lines down
  do it = 1, niter
    spent = spent + sweep_block(nrows, row_seconds, boundary_seconds, rows)
    call MPI_ALLREDUCE(spent, residual, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  end do

  ! CPU model of the saving (ex_model_saving() in example.h): one phase per iteration.
  fair = fair_rows(nprocs) * row_seconds
  allocate (w(nprocs))
  w = boundary_seconds + fair
  if (nprocs > 1) w(1) = boundary_seconds + heavy_factor * fair
  saving = phase_seconds(w, nprocs, ex_cores())
  w = boundary_seconds + fair
  saving = niter * (saving - phase_seconds(w, nprocs, ex_cores()))
  call report('module_sweep_f', 'load_imbalance', src, planted_first, planted_last, stmt, &
              'sweep_block', defect, heavy, spent * (1d0 - dble(fair_rows(nprocs)) / nrows), &
              (heavy_factor - 1d0) * fair * niter, saving, wall_start)
  call MPI_FINALIZE(ierr)
end program module_sweep_f
