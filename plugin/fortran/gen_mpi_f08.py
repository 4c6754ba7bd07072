#!/usr/bin/python3
"""gen_mpi_f08.py OUT_F90 OUT_ROUTINES — writes flang's `use mpi_f08` module for
Open MPI (plugin/CMakeLists.txt) and the list of the routines it declares.

The module holds the handle types (a single INTEGER MPI_VAL, bind(C): the
layout of Open MPI's), MPI_Status with Open MPI's component order, the
constants as typed parameters (their values from Open MPI's own mpif.h through
module scalana_mpif_values), operators == and /= on handles, and explicit
interfaces of the routines in ROUTINES below to Open MPI's own mpi_f08 entry
points (MPI_Send_f08 -> mpi_send_f08_ in libmpi_usempif08): no wrapper of
ours runs, so the call site is the user's, and choice buffers are passed by
address (!dir$ ignore_tkr), as Open MPI's gfortran module does.  ierror is
OPTIONAL (absent: a null pointer, which the entry points test).
A routine outside the list is not offered: scalana-fc stops on a call to one
(it would be an implicit call with the wrong arguments), naming it."""
import sys

# argument kinds -> declaration ("{n}" is the name); "!tkr" marks a choice buffer
KINDS = {
    "buf": "!tkr integer, intent(in) :: {n}(*)",
    "rbuf": "!tkr integer :: {n}(*)",
    "int": "integer, intent(in) :: {n}",
    "int_out": "integer, intent(out) :: {n}",
    "ints": "integer, intent(in) :: {n}(*)",
    "ints_out": "integer, intent(out) :: {n}(*)",
    "ints_inout": "integer, intent(inout) :: {n}(*)",
    "log": "logical, intent(in) :: {n}",
    "log_out": "logical, intent(out) :: {n}",
    "logs": "logical, intent(in) :: {n}(*)",
    "comm": "type(MPI_Comm), intent(in) :: {n}",
    "comm_out": "type(MPI_Comm), intent(out) :: {n}",
    "comm_inout": "type(MPI_Comm), intent(inout) :: {n}",
    "dtype": "type(MPI_Datatype), intent(in) :: {n}",
    "dtype_out": "type(MPI_Datatype), intent(out) :: {n}",
    "dtype_inout": "type(MPI_Datatype), intent(inout) :: {n}",
    "op": "type(MPI_Op), intent(in) :: {n}",
    "req_out": "type(MPI_Request), intent(out) :: {n}",
    "req_inout": "type(MPI_Request), intent(inout) :: {n}",
    "reqs_inout": "type(MPI_Request), intent(inout) :: {n}(*)",
    "status_in": "type(MPI_Status), intent(in) :: {n}",
    "status_out": "type(MPI_Status) :: {n}",
    "statuses_out": "type(MPI_Status) :: {n}(*)",
}

COLL = "sendbuf:buf sendcount:int sendtype:dtype recvbuf:rbuf recvcount:int recvtype:dtype"
ROUTINES = [
    ("Init", ""), ("Init_thread", "required:int provided:int_out"), ("Finalize", ""),
    ("Initialized", "flag:log_out"), ("Finalized", "flag:log_out"), ("Abort", "comm:comm errorcode:int"),
    ("Comm_rank", "comm:comm rank:int_out"), ("Comm_size", "comm:comm size:int_out"),
    ("Comm_dup", "comm:comm newcomm:comm_out"),
    ("Comm_split", "comm:comm color:int key:int newcomm:comm_out"), ("Comm_free", "comm:comm_inout"),
    ("Barrier", "comm:comm"), ("Bcast", "buffer:rbuf count:int datatype:dtype root:int comm:comm"),
    ("Reduce", "sendbuf:buf recvbuf:rbuf count:int datatype:dtype op:op root:int comm:comm"),
    ("Allreduce", "sendbuf:buf recvbuf:rbuf count:int datatype:dtype op:op comm:comm"),
    ("Scan", "sendbuf:buf recvbuf:rbuf count:int datatype:dtype op:op comm:comm"),
    ("Exscan", "sendbuf:buf recvbuf:rbuf count:int datatype:dtype op:op comm:comm"),
    ("Reduce_scatter", "sendbuf:buf recvbuf:rbuf recvcounts:ints datatype:dtype op:op comm:comm"),
    ("Gather", COLL + " root:int comm:comm"), ("Scatter", COLL + " root:int comm:comm"),
    ("Allgather", COLL + " comm:comm"), ("Alltoall", COLL + " comm:comm"),
    ("Gatherv", "sendbuf:buf sendcount:int sendtype:dtype recvbuf:rbuf recvcounts:ints displs:ints "
                "recvtype:dtype root:int comm:comm"),
    ("Scatterv", "sendbuf:buf sendcounts:ints displs:ints sendtype:dtype recvbuf:rbuf recvcount:int "
                 "recvtype:dtype root:int comm:comm"),
    ("Allgatherv", "sendbuf:buf sendcount:int sendtype:dtype recvbuf:rbuf recvcounts:ints displs:ints "
                   "recvtype:dtype comm:comm"),
    ("Alltoallv", "sendbuf:buf sendcounts:ints sdispls:ints sendtype:dtype recvbuf:rbuf recvcounts:ints "
                  "rdispls:ints recvtype:dtype comm:comm"),
    ("Send", "buf:buf count:int datatype:dtype dest:int tag:int comm:comm"),
    ("Ssend", "buf:buf count:int datatype:dtype dest:int tag:int comm:comm"),
    ("Recv", "buf:rbuf count:int datatype:dtype source:int tag:int comm:comm status:status_out"),
    ("Isend", "buf:buf count:int datatype:dtype dest:int tag:int comm:comm request:req_out"),
    ("Irecv", "buf:rbuf count:int datatype:dtype source:int tag:int comm:comm request:req_out"),
    ("Sendrecv", "sendbuf:buf sendcount:int sendtype:dtype dest:int sendtag:int recvbuf:rbuf "
                 "recvcount:int recvtype:dtype source:int recvtag:int comm:comm status:status_out"),
    ("Wait", "request:req_inout status:status_out"),
    ("Waitall", "count:int array_of_requests:reqs_inout array_of_statuses:statuses_out"),
    ("Waitany", "count:int array_of_requests:reqs_inout index:int_out status:status_out"),
    ("Test", "request:req_inout flag:log_out status:status_out"),
    ("Testall", "count:int array_of_requests:reqs_inout flag:log_out array_of_statuses:statuses_out"),
    ("Probe", "source:int tag:int comm:comm status:status_out"),
    ("Iprobe", "source:int tag:int comm:comm flag:log_out status:status_out"),
    ("Get_count", "status:status_in datatype:dtype count:int_out"),
    ("Ibarrier", "comm:comm request:req_out"),
    ("Ibcast", "buffer:rbuf count:int datatype:dtype root:int comm:comm request:req_out"),
    ("Iallreduce", "sendbuf:buf recvbuf:rbuf count:int datatype:dtype op:op comm:comm request:req_out"),
    ("Type_size", "datatype:dtype size:int_out"), ("Type_commit", "datatype:dtype_inout"),
    ("Type_free", "datatype:dtype_inout"),
    ("Type_contiguous", "count:int oldtype:dtype newtype:dtype_out"),
    ("Type_vector", "count:int blocklength:int stride:int oldtype:dtype newtype:dtype_out"),
    ("Dims_create", "nnodes:int ndims:int dims:ints_inout"),
    ("Cart_create", "comm_old:comm ndims:int dims:ints periods:logs reorder:log comm_cart:comm_out"),
    ("Cart_coords", "comm:comm rank:int maxdims:int coords:ints_out"),
    ("Cart_rank", "comm:comm coords:ints rank:int_out"),
    ("Cart_shift", "comm:comm direction:int disp:int rank_source:int_out rank_dest:int_out"),
]

HANDLES = {
    "MPI_Comm": ["MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_NULL"],
    "MPI_Datatype": ["MPI_DATATYPE_NULL", "MPI_BYTE", "MPI_PACKED", "MPI_CHARACTER", "MPI_LOGICAL",
                     "MPI_INTEGER", "MPI_INTEGER1", "MPI_INTEGER2", "MPI_INTEGER4", "MPI_INTEGER8",
                     "MPI_REAL", "MPI_REAL4", "MPI_REAL8", "MPI_DOUBLE_PRECISION", "MPI_COMPLEX",
                     "MPI_DOUBLE_COMPLEX", "MPI_2INTEGER", "MPI_2REAL", "MPI_2DOUBLE_PRECISION",
                     "MPI_CHAR", "MPI_INT", "MPI_LONG", "MPI_LONG_LONG", "MPI_UNSIGNED", "MPI_FLOAT",
                     "MPI_DOUBLE", "MPI_INT32_T", "MPI_INT64_T"],
    "MPI_Op": ["MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND",
               "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE"],
    "MPI_Request": ["MPI_REQUEST_NULL"],
    "MPI_Group": ["MPI_GROUP_NULL", "MPI_GROUP_EMPTY"],
    "MPI_Info": ["MPI_INFO_NULL"],
    "MPI_Errhandler": ["MPI_ERRHANDLER_NULL", "MPI_ERRORS_ARE_FATAL", "MPI_ERRORS_RETURN"],
    "MPI_Win": ["MPI_WIN_NULL"], "MPI_File": [], "MPI_Message": [],
}
INTEGERS = ["MPI_SUCCESS", "MPI_ANY_SOURCE", "MPI_ANY_TAG", "MPI_PROC_NULL", "MPI_ROOT", "MPI_UNDEFINED",
            "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE",
            "MPI_MAX_PROCESSOR_NAME", "MPI_MAX_ERROR_STRING", "MPI_ADDRESS_KIND", "MPI_OFFSET_KIND",
            "MPI_VERSION", "MPI_SUBVERSION", "MPI_STATUS_SIZE", "MPI_ERR_OTHER", "MPI_IDENT",
            "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL", "MPI_TAG_UB"]


def interface(name, sig):
    args = [a.split(":") for a in sig.split()]
    names = [a for a, _ in args] + ["ierror"]
    o = [f"  interface MPI_{name}", f"    subroutine MPI_{name}_f08({', '.join(names)})", "      import"]
    tkr = [a for a, k in args if KINDS[k].startswith("!tkr")]
    if tkr:
        o.append(f"      !dir$ ignore_tkr {', '.join(tkr)}")
    for a, k in args:
        o.append("      " + KINDS[k].replace("!tkr ", "").format(n=a))
    o += ["      integer, optional, intent(out) :: ierror", "    end subroutine", "  end interface"]
    return o


def main():
    out, routines = sys.argv[1:3]
    o = ["! Generated by plugin/fortran/gen_mpi_f08.py: flang's `use mpi_f08` for Open MPI.",
         "! Handle values from Open MPI's mpif.h.",
         "module scalana_mpif_values", "  implicit none", "  include 'mpif.h'", "end module scalana_mpif_values",
         "", "module mpi_f08", "  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_double",
         "  use scalana_mpif_values, only: " + ", ".join(INTEGERS) + ", MPI_IN_PLACE, MPI_BOTTOM"]
    consts = [c for cs in HANDLES.values() for c in cs]
    for k in range(0, len(consts), 6):
        part = consts[k:k + 6]
        o.append("  use scalana_mpif_values, only: " + ", ".join(f"f_{c.lower()} => {c}" for c in part))
    o += ["  implicit none", "  private :: c_int, c_size_t, c_double"]
    for t in HANDLES:
        o += [f"  type, bind(C) :: {t}", "    integer :: MPI_VAL", f"  end type {t}"]
    # Open MPI 4's MPI_Status (mpif.h: MPI_STATUS_SIZE 6 integers)
    o += ["  type, bind(C) :: MPI_Status", "    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
          "    integer(c_int), private :: c_cancelled", "    integer(c_size_t), private :: c_count",
          "  end type MPI_Status"]
    for t, cs in HANDLES.items():
        for c in cs:
            o.append(f"  type({t}), parameter :: {c} = {t}(f_{c.lower()})")
        for c in cs:
            o.append(f"  private :: f_{c.lower()}")
    # the sentinels are Open MPI's own objects (its mpif.h common blocks)
    o += ["  type(MPI_Status) :: MPI_STATUS_IGNORE", "  common /mpi_fortran_status_ignore/ MPI_STATUS_IGNORE",
          "  type(MPI_Status) :: MPI_STATUSES_IGNORE(1)",
          "  common /mpi_fortran_statuses_ignore/ MPI_STATUSES_IGNORE"]
    o += ["  interface MPI_Wtime", "    function scalana_mpi_wtime() bind(C, name='MPI_Wtime')",
          "      import :: c_double", "      real(c_double) :: scalana_mpi_wtime", "    end function",
          "  end interface",
          "  interface MPI_Wtick", "    function scalana_mpi_wtick() bind(C, name='MPI_Wtick')",
          "      import :: c_double", "      real(c_double) :: scalana_mpi_wtick", "    end function",
          "  end interface"]
    eq = ", ".join(f"scalana_eq_{t[4:].lower()}" for t in HANDLES)
    ne = ", ".join(f"scalana_ne_{t[4:].lower()}" for t in HANDLES)
    o += [f"  interface operator(==)", f"    module procedure {eq}", "  end interface",
          f"  interface operator(/=)", f"    module procedure {ne}", "  end interface",
          f"  private :: {eq}, {ne}"]
    for name, sig in ROUTINES:
        o += interface(name, sig)
    o.append("contains")
    for t in HANDLES:
        s = t[4:].lower()
        for op, fn in (("==", "eq"), ("/=", "ne")):
            o += [f"  elemental logical function scalana_{fn}_{s}(a, b)", f"    type({t}), intent(in) :: a, b",
                  f"    scalana_{fn}_{s} = a%MPI_VAL {op} b%MPI_VAL", "  end function"]
    o.append("end module mpi_f08")
    with open(out, "w") as f:
        f.write("\n".join(o) + "\n")
    with open(routines, "w") as f:
        f.write("".join(f"mpi_{n.lower()}\n" for n, _ in ROUTINES) + "mpi_wtime\nmpi_wtick\n")


if __name__ == "__main__":
    main()
