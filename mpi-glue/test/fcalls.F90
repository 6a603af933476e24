! SPDX-License-Identifier: GPL-2.0
! fcalls - blocking MPI calls from Fortran, built once per binding:
! -DMPIFH (include 'mpif.h'), -DUSEMPI (use mpi), -DF08 (use mpi_f08).
! Allreduce (and in place), Send/Recv with a status, Probe, Sendrecv,
! Isend/Irecv completed by Waitall with statuses, Waitany, Waitsome,
! Mprobe and Mrecv, Alltoallw, Barrier,
! with checks.  Run on 2 ranks; rank 0 prints one line; exit 1 on a
! wrong result.  Under the glue with COSCHED_MPI_VERBOSE=1 every rank's
! "calls" line shows which of these the glue intercepted.
#include "fbinding.h"
program fcalls
#include "fuse.h"
  integer :: ierr, rank, nproc, other, v, s, k, fails
  integer :: buf(4), sbuf(2), rbuf(2), counts(2), displs(2)
  STATUS :: st
#if defined(F08)
  type(MPI_Status) :: sts(2)
#else
  integer :: sts(MPI_STATUS_SIZE, 2)
#endif
  HANDLE(MPI_Request) :: reqs(2)
  HANDLE(MPI_Datatype) :: types(2)
  HANDLE(MPI_Message) :: msg
  integer :: idx, outcount, indices(2)

  fails = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  if (nproc /= 2) then
    print *, 'fcalls: run on 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  other = 1 - rank

  v = rank + 10
  call MPI_Allreduce(v, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(s == 21 .and. ierr == MPI_SUCCESS, 'allreduce')
  s = rank
  call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call expect(s == 1, 'allreduce in place')

  if (rank == 0) then
    buf = (/ 11, 22, 33, 44 /)
    call MPI_Send(buf, 4, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
    call MPI_Send(buf, 2, MPI_INTEGER, 1, 8, MPI_COMM_WORLD, ierr)
  else
    buf = 0
    call MPI_Recv(buf, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, st, ierr)
    call expect(all(buf == (/ 11, 22, 33, 44 /)) .and. SOURCE(st) == 0 &
                .and. TAG(st) == 7, 'recv')
    call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    call expect(SOURCE(st) == 0 .and. TAG(st) == 8, 'probe')
    call MPI_Recv(buf, 4, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if

  v = 100 + rank
  call MPI_Sendrecv(v, 1, MPI_INTEGER, other, 9, s, 1, MPI_INTEGER, other, 9, &
                    MPI_COMM_WORLD, st, ierr)
  call expect(s == 100 + other .and. SOURCE(st) == other, 'sendrecv')

  sbuf(1) = 200 + rank
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, other, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 1, MPI_INTEGER, other, 5, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, sts, ierr)
  call expect(rbuf(1) == 200 + other .and. SOURCES(sts, 1) == other &
              .and. TAGS(sts, 1) == 5, 'waitall')
  call expect(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, &
              'waitall requests freed')

  ! Waitany and Waitsome give 1-based indices
  sbuf(1) = 300 + rank
  rbuf = -1
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, other, 6, MPI_COMM_WORLD, reqs(1), ierr)
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Send(sbuf, 1, MPI_INTEGER, other, 6, MPI_COMM_WORLD, ierr)
  idx = -1
  call MPI_Waitany(2, reqs, idx, st, ierr)
  call expect(idx == 1 .and. rbuf(1) == 300 + other .and. TAG(st) == 6 &
              .and. reqs(1) == MPI_REQUEST_NULL, 'waitany')
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, other, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(sbuf, 1, MPI_INTEGER, other, 7, MPI_COMM_WORLD, ierr)
  outcount = -1
  indices = -1
  call MPI_Waitsome(2, reqs, outcount, indices, sts, ierr)
  call expect(outcount == 1 .and. indices(1) == 2 .and. rbuf(2) == 300 + other &
              .and. SOURCES(sts, 1) == other, 'waitsome')

  ! a matched probe and its receive: the message handle goes both ways
  if (rank == 0) then
    call MPI_Send(sbuf, 1, MPI_INTEGER, 1, 10, MPI_COMM_WORLD, ierr)
  else
    call MPI_Mprobe(0, 10, MPI_COMM_WORLD, msg, st, ierr)
    call expect(SOURCE(st) == 0 .and. TAG(st) == 10 &
                .and. msg /= MPI_MESSAGE_NULL, 'mprobe')
    rbuf(1) = -1
    call MPI_Mrecv(rbuf, 1, MPI_INTEGER, msg, st, ierr)
    call expect(rbuf(1) == 300 .and. msg == MPI_MESSAGE_NULL .and. &
                TAG(st) == 10, 'mrecv')
  end if

  ! one INTEGER to each rank, byte displacements, a datatype per peer
  do k = 1, 2
    sbuf(k) = 10 * rank + k
    counts(k) = 1
    displs(k) = 4 * (k - 1)
    types(k) = MPI_INTEGER
  end do
  rbuf = -1
  call MPI_Alltoallw(sbuf, counts, displs, types, rbuf, counts, displs, types, &
                     MPI_COMM_WORLD, ierr)
  call expect(rbuf(1) == rank + 1 .and. rbuf(2) == 10 + rank + 1, 'alltoallw')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(fails, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'fcalls: ', s, ' failed checks'
  call MPI_Finalize(ierr)
  if (s /= 0) stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what

    if (.not. ok) then
      fails = fails + 1
      print '(a,i0,2a)', 'FAIL fcalls: rank ', rank, ': ', what
    end if
  end subroutine expect

end program fcalls
