c     exchange_1.f -- four MPI_Send calls on their own lines in one
c     subroutine (as NPB LU's exchange_1): LLVM merges identical calls
c     (BranchFolding's tail merge, SimplifyCFG's sinking) and the merged
c     call's location is line 0, unless the pass marks them nomerge
c     (tests/plugin/merged_calls.test).
      subroutine exchange_1(a, n, rank, iex)
      include 'mpif.h'
      integer n, rank, ierr, iex, north, south
      double precision a(n, 4)
      north = -1
      south = -1
      if (rank .eq. 0) north = 1
      if (rank .eq. 0) south = 1
      if (iex .eq. 0) then
        if (north .ne. -1) then
          call MPI_Send(a(1,1), n, MPI_DOUBLE_PRECISION, north, 1,
     &         MPI_COMM_WORLD, ierr)
        end if
        if (south .ne. -1) then
          call MPI_Send(a(1,2), n, MPI_DOUBLE_PRECISION, south, 2,
     &         MPI_COMM_WORLD, ierr)
        end if
      else
        if (north .ne. -1) then
          call MPI_Send(a(1,3), n, MPI_DOUBLE_PRECISION, north, 3,
     &         MPI_COMM_WORLD, ierr)
        end if
        if (south .ne. -1) then
          call MPI_Send(a(1,4), n, MPI_DOUBLE_PRECISION, south, 4,
     &         MPI_COMM_WORLD, ierr)
        end if
      end if
      end

      program exch
      include 'mpif.h'
      integer ierr, rank, nproc, i, j
      double precision a(2000, 4)
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
      a = 1.0d0
      do i = 1, 200
        if (rank .eq. 0) then
          call exchange_1(a, 2000, rank, mod(i, 2))
        else if (rank .eq. 1) then
          do j = 1, 2
            call MPI_Recv(a(1,j), 2000, MPI_DOUBLE_PRECISION, 0,
     &           MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
          end do
        end if
      end do
      if (rank .eq. 0) print *, 'exchanged on', nproc, 'ranks'
      call MPI_Finalize(ierr)
      end
