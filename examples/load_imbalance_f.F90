! load_imbalance_f.F90 -- the Fortran variant of load_imbalance.c (mpif.h bindings):
! load imbalance before a collective.  Strong scaling: 2.4 CPU seconds of relaxation
! (at scale 1) split over the processes; with --defect=on the ranks r with
! mod(r,4) == 3 or r == p-1 (p > 1) own three times their share and the others wait
! for them in MPI_ALLREDUCE.  Same switch and ground-truth lines as the C examples.

module cpu_clock
  use iso_c_binding
  implicit none
  type, bind(C) :: timespec
    integer(c_long) :: tv_sec, tv_nsec
  end type timespec
  interface
    integer(c_int) function clock_gettime(clk, ts) bind(C, name='clock_gettime')
      import :: c_int, timespec
      integer(c_int), value :: clk
      type(timespec) :: ts
    end function clock_gettime
  end interface
contains
  ! CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), in seconds.
  double precision function cpu_seconds()
    type(timespec) :: ts
    integer(c_int) :: rc
    rc = clock_gettime(3_c_int, ts)
    cpu_seconds = dble(ts%tv_sec) + 1d-9 * dble(ts%tv_nsec)
  end function cpu_seconds
end module cpu_clock

module relax_mod
  use cpu_clock
  implicit none
  integer, parameter :: planted_first = __LINE__ + 2, planted_last = planted_first + 9
contains
  double precision function relax_cells(seconds)   ! the planted loop: CPU seconds of work
    double precision, intent(in) :: seconds
    double precision, volatile :: acc
    double precision :: start; integer :: i
    acc = 0d0; start = cpu_seconds()
    do while (cpu_seconds() - start < seconds)
      do i = 1, 100000; acc = acc + i * 1d-9; end do
    end do
    relax_cells = cpu_seconds() - start
  end function relax_cells
end module relax_mod

program load_imbalance_f
  use relax_mod
  implicit none
  include 'mpif.h'
  integer, parameter :: niter = 20
  double precision, parameter :: total_work = 2.4d0, heavy_factor = 3d0
  integer :: ierr, rank, nprocs, it, stmt
  logical :: defect, heavy
  double precision :: scale, share, mine, spent, residual, wall_start

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call parse_switches(rank, defect, scale)
  wall_start = MPI_WTIME()
  heavy = defect .and. nprocs > 1 .and. (mod(rank, 4) == 3 .or. rank == nprocs - 1)
  share = scale * total_work / nprocs / niter
  mine = share
  if (heavy) mine = heavy_factor * share
  spent = 0d0

  stmt = __LINE__ + 2   ! the planted statement, two lines down
  do it = 1, niter
    spent = spent + relax_cells(mine)
    call MPI_ALLREDUCE(spent, residual, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  end do

  call report(heavy, spent - share * niter, (heavy_factor - 1d0) * share * niter)
  call MPI_FINALIZE(ierr)

contains

  ! The --defect=on|off / --no-defect / --scale=F switches (and SCALANA_EXAMPLE_DEFECT,
  ! SCALANA_EXAMPLE_SCALE); a bad one stops the run with status 2.
  subroutine parse_switches(rank, defect, scale)
    integer, intent(in) :: rank
    logical, intent(out) :: defect
    double precision, intent(out) :: scale
    character(len=256) :: arg
    integer :: i, n, st, ios
    defect = .true.
    scale = 1d0
    call get_environment_variable('SCALANA_EXAMPLE_DEFECT', arg, status=st)
    if (st == 0) call set_defect(trim(arg))
    call get_environment_variable('SCALANA_EXAMPLE_SCALE', arg, status=st)
    if (st == 0) read (arg, *, iostat=ios) scale
    n = command_argument_count()
    do i = 1, n
      call get_command_argument(i, arg)
      if (arg(1:9) == '--defect=') then
        call set_defect(trim(arg(10:)))
      else if (trim(arg) == '--no-defect') then
        defect = .false.
      else if (trim(arg) == '--defect') then
        defect = .true.
      else if (arg(1:8) == '--scale=') then
        read (arg(9:), *, iostat=ios) scale
        if (ios /= 0 .or. .not. scale > 0d0) call usage()
      else
        call usage()
      end if
    end do
  contains
    subroutine set_defect(v)
      character(len=*), intent(in) :: v
      if (v == 'on' .or. v == '1' .or. v == 'yes') then
        defect = .true.
      else if (v == 'off' .or. v == '0' .or. v == 'no') then
        defect = .false.
      else
        call usage()
      end if
    end subroutine set_defect
    subroutine usage()
      integer :: ierr2
      if (rank == 0) write (0, '(a)') 'usage: load_imbalance_f [--defect=on|off] [--scale=FACTOR]'
      call MPI_FINALIZE(ierr2)
      stop 2
    end subroutine usage
  end subroutine parse_switches

  ! Gathers every rank's planted flag and extra CPU seconds on rank 0 and prints the
  ! ground truth there, in the same two forms as examples/common/example.h.
  subroutine report(planted, extra, cost)
    logical, intent(in) :: planted
    double precision, intent(in) :: extra, cost
    double precision :: mine2(2)
    double precision, allocatable :: all(:, :)
    character(len=4096) :: ranks, extras, human
    character(len=*), parameter :: src = __FILE__
    double precision :: wall
    integer :: r, n

    mine2(1) = merge(1d0, 0d0, planted)
    mine2(2) = extra
    allocate (all(2, 0:nprocs - 1))
    call MPI_GATHER(mine2, 2, MPI_DOUBLE_PRECISION, all, 2, MPI_DOUBLE_PRECISION, 0, &
                    MPI_COMM_WORLD, ierr)
    if (rank /= 0) return
    wall = MPI_WTIME() - wall_start
    ranks = ''
    extras = ''
    human = ''
    n = 0
    do r = 0, nprocs - 1
      if (all(1, r) /= 0d0) then
        if (n == 0) then
          ranks = itoa(r)
          extras = ftoa(all(2, r))
        else
          ranks = trim(ranks)//', '//itoa(r)
          extras = trim(extras)//', '//ftoa(all(2, r))
        end if
        human = trim(human)//' '//itoa(r)//' (+'//ftoa(all(2, r))//' s)'
        n = n + 1
      end if
    end do
    write (*, '(6a)') 'ground truth: load_imbalance_f, ', itoa(nprocs), ' processes, defect ', &
      trim(merge('on ', 'off', defect)), ', run ', ftoa(wall)//' s'
    if (n > 0) then
      write (*, '(10a)') 'ground truth: planted load_imbalance at load_imbalance_f.F90:', &
        itoa(planted_first), '-', itoa(planted_last), ' (run from load_imbalance_f.F90:', itoa(stmt), &
        '), on rank(s)', trim(human), '; expected cost ', ftoa(cost)//' s'
    else
      write (*, '(a)') 'ground truth: nothing planted in this run; expected: no root cause above 1% of run time'
    end if
    write (*, '(25a)') 'SCALANA_GROUND_TRUTH {"example": "load_imbalance_f", "processes": ', itoa(nprocs), &
      ', "defect": ', trim(merge('true ', 'false', defect)), ', "run_seconds": ', ftoa(wall), &
      ', "category": ', trim(merge('"load_imbalance"', 'null            ', n > 0)), &
      ', "file": "', src, '", "loop": [', itoa(planted_first), ', ', itoa(planted_last), &
      '], "statement": [', itoa(stmt), ', ', itoa(stmt), '], "ranks": [', trim(ranks), &
      '], "extra_cpu_seconds": [', trim(extras), '], "cost_seconds": ', &
      ftoa(merge(cost, 0d0, n > 0)), '}'
    flush (6)
  end subroutine report

  ! An integer as text, no blanks.
  function itoa(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function itoa

  ! A double as JSON text with six decimals (f0.6 drops the leading zero).
  function ftoa(x) result(s)
    double precision, intent(in) :: x
    character(len=:), allocatable :: s
    character(len=48) :: buf
    write (buf, '(f0.6)') x
    s = trim(buf)
    if (s(1:1) == '.') s = '0'//s
    if (len(s) > 1) then
      if (s(1:2) == '-.') s = '-0'//s(2:)
    end if
  end function ftoa
end program load_imbalance_f
