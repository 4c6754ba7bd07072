! Fortran through flang-new-19 with mpif.h: Fortran MPI spellings (mpi_send_)
! map to the same operations as C; subroutines, DO loops, IF blocks; the
! unit is named after the source file, not flang's FIRModule.
! RUN: %scalana-fc -O0 %s -o %t.O0
! RUN: %scalana-dump --psg %t.O0 | %FileCheck %s --check-prefixes=CHECK,O0 --allow-unused-prefixes
! RUN: %scalana-fc -O2 %s -o %t.O2
! RUN: %scalana-dump --psg %t.O2 | %FileCheck %s --check-prefixes=CHECK,O2
subroutine exchange(x, n, rank)
  include 'mpif.h'
  integer n, rank, ierr
  double precision x(n)
  if (rank == 0) then
    call MPI_SEND(x, n, MPI_DOUBLE_PRECISION, 1, 7, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_RECV(x, n, MPI_DOUBLE_PRECISION, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
end subroutine

program main
  include 'mpif.h'
  integer ierr, rank, i, j
  double precision x(8)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  x = 1.0d0
  do i = 1, 3
    do j = 1, 8
      x(j) = x(j) * 0.5d0 + j
    end do
    call exchange(x, 8, rank)
    call MPI_ALLREDUCE(MPI_IN_PLACE, x, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_FINALIZE(ierr)
end program

! CHECK:unit {{.*}}/fortran.f90 (Fortran, debug info, loop depth limit 10, {{20|21}} vertices)
! CHECK-NEXT:FUNCTION exchange fortran.f90:8-17
! CHECK-NEXT:  COMPUTE fortran.f90:11
! CHECK-NEXT:  BRANCH fortran.f90:12-15
! CHECK-NEXT:    MPI MPI_Send fortran.f90:13:5
! CHECK-NEXT:    BRANCH fortran.f90:12-15
! CHECK-NEXT:      MPI MPI_Recv fortran.f90:15:5
! CHECK-NEXT:FUNCTION program main fortran.f90:19-34
! CHECK-NEXT:  MPI MPI_Init fortran.f90:23:3
! CHECK-NEXT:  MPI MPI_Comm_rank fortran.f90:24:3
! CHECK-NEXT:  COMPUTE fortran.f90:25 folded
! O2-NEXT:    LOOP fortran.f90:25 attribution-only
! CHECK-NEXT:  LOOP fortran.f90:26-31
! CHECK-NEXT:    COMPUTE fortran.f90:27-28 folded
! CHECK-NEXT:      LOOP fortran.f90:27-28 attribution-only
! CHECK-NEXT:    CALL exchange fortran.f90:30:5
! CHECK-NEXT:    MPI MPI_Allreduce fortran.f90:31:5
! CHECK-NEXT:  MPI MPI_Finalize fortran.f90:33:3
! CHECK-NEXT:FUNCTION main fortran.f90:34
! CHECK-NEXT:  COMPUTE fortran.f90:34 folded
! CHECK-NEXT:  CALL program main fortran.f90:34:1
! CHECK-NEXT:  COMPUTE fortran.f90:34 folded
! CHECK-NOT:{{.}}
