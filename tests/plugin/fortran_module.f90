! Fortran modules and internal procedures: flang's _QM<module>P<proc> and
! _QFP<proc> names are shown as module::proc and proc.
! RUN: rm -rf %t.mods && mkdir -p %t.mods
! RUN: %scalana-fc -O2 -module-dir %t.mods %s -o %t
! RUN: %scalana-dump --psg %t | %FileCheck %s
module halo
  implicit none
contains
  subroutine exchange(x, n)
    include 'mpif.h'
    integer n, ierr, k
    double precision x(n)
    do k = 1, 2
      call MPI_ALLREDUCE(MPI_IN_PLACE, x, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    end do
  end subroutine
end module

program p
  use halo
  include 'mpif.h'
  integer ierr
  double precision x(4)
  call MPI_INIT(ierr)
  x = 1
  call step()
  call MPI_FINALIZE(ierr)
contains
  subroutine step()
    call exchange(x, 4)
  end subroutine
end program

! CHECK:unit {{.*}}/fortran_module.f90 (Fortran, debug info, loop depth limit 10, 16 vertices)
! CHECK-NEXT:FUNCTION halo::exchange fortran_module.f90:9-16
! CHECK-NEXT:  COMPUTE fortran_module.f90:12
! CHECK-NEXT:  LOOP fortran_module.f90:13-14
! CHECK-NEXT:    MPI MPI_Allreduce fortran_module.f90:14:7
! CHECK-NEXT:FUNCTION program p fortran_module.f90:19-32
! CHECK-NEXT:  MPI MPI_Init fortran_module.f90:24:3
! CHECK-NEXT:  COMPUTE fortran_module.f90:25 folded
! CHECK-NEXT:    LOOP fortran_module.f90:25 attribution-only
! CHECK-NEXT:  CALL step fortran_module.f90:26:3
! CHECK-NEXT:  MPI MPI_Finalize fortran_module.f90:27:3
! CHECK-NEXT:FUNCTION step fortran_module.f90:29-31
! CHECK-NEXT:  CALL halo::exchange fortran_module.f90:30:5
! CHECK-NEXT:FUNCTION main fortran_module.f90:31
! CHECK-NEXT:  COMPUTE fortran_module.f90:31 folded
! CHECK-NEXT:  CALL program p fortran_module.f90:31:3
! CHECK-NEXT:  COMPUTE fortran_module.f90:31 folded
! CHECK-NOT:{{.}}
