! mpi.f90 -- the `use mpi` module for flang, compiled once per MPI library at
! build time (plugin/CMakeLists.txt) with that library's own mpif.h.  The
! system's mpi.mod is gfortran's, whose format flang cannot read; this module
! gives `use mpi` code what mpif.h gives: every constant and handle, the
! common blocks (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ...) and the
! typed external functions (MPI_WTIME, MPI_WTICK).  Routines are called
! through implicit interfaces, as with mpif.h: no argument checking, and the
! calls resolve to the library's Fortran symbols (mpi_send_, ...).
module mpi
  implicit none
  include 'mpif.h'
end module mpi
