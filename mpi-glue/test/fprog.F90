! SPDX-License-Identifier: GPL-2.0
! fprog - semantics of the calls.def "prog" calls through each Fortran
! binding: Test/Testall/Testany/Testsome/Iprobe flags (LOGICAL),
! 1-based index/indices, MPI_UNDEFINED, STATUS(ES)_IGNORE, Start/Startall
! with persistent requests, Issend/Ibsend/Irsend.  2 ranks; built once
! per binding (-DMPIFH, -DUSEMPI, -DF08), as fcalls.
#include "fbinding.h"
program fprog
#include "fuse.h"
  integer :: ierr, rank, fails, idx, outc, ind(3), b(3), i, n
  integer, volatile :: a(3)
  integer :: bsbuf(1000)
  logical :: flag
  STATUS :: st
#if defined(F08)
  type(MPI_Status) :: sts(3)
#else
  integer :: sts(MPI_STATUS_SIZE, 3)
#endif
  HANDLE(MPI_Request) :: r(3), p(2)

  fails = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call MPI_Irecv(a(1), 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, r(1), ierr)
    r(2) = MPI_REQUEST_NULL
    flag = .true.
    call MPI_Test(r(1), flag, st, ierr)
    call chk(.not. flag .and. ierr == MPI_SUCCESS, 'Test before send: .false.')
    flag = .true.; idx = -7
    call MPI_Testany(2, r, idx, flag, st, ierr)
    call chk(.not. flag .and. idx == MPI_UNDEFINED, 'Testany none done: .false., MPI_UNDEFINED')
    outc = -7
    call MPI_Testsome(2, r, outc, ind, sts, ierr)
    call chk(outc == 0, 'Testsome none done: 0')
    flag = .true.
    call MPI_Testall(2, r, flag, MPI_STATUSES_IGNORE, ierr)
    call chk(.not. flag, 'Testall none done: .false.')
    flag = .true.
    call MPI_Iprobe(1, 2, MPI_COMM_WORLD, flag, st, ierr)
    call chk(.not. flag, 'Iprobe before send: .false.')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    ! rank 1 sends tag 1 (value 11) and tag 2 (value 22)
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(1, 2, MPI_COMM_WORLD, flag, st, ierr)
    end do
    call chk(flag .eqv. .true., 'Iprobe flag .eqv. .true.')
    call chk(TAG(st) == 2 .and. SOURCE(st) == 1, 'Iprobe status tag 2 source 1')
    call MPI_Recv(b(1), 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    r(2) = r(1); r(1) = MPI_REQUEST_NULL
    flag = .false.
    do while (.not. flag)
      call MPI_Testany(2, r, idx, flag, st, ierr)
    end do
    call chk(idx == 2 .and. TAG(st) == 1 .and. a(1) == 11 .and. ISNULL(r(2)), &
             'Testany: index 2 (1-based), tag 1, request null')
    flag = .false.; idx = -7
    call MPI_Testany(2, r, idx, flag, st, ierr)
    call chk(flag .and. idx == MPI_UNDEFINED, 'Testany all null: .true., MPI_UNDEFINED')
    outc = -7
    call MPI_Testsome(2, r, outc, ind, sts, ierr)
    call chk(outc == MPI_UNDEFINED, 'Testsome all null: MPI_UNDEFINED')
    flag = .false.
    call MPI_Testall(2, r, flag, sts, ierr)
    call chk(flag, 'Testall all null: .true.')
    ! persistent receives, started twice
    call MPI_Recv_init(a(1), 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, p(1), ierr)
    call MPI_Recv_init(a(2), 1, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, p(2), ierr)
    do i = 1, 2
      call MPI_Startall(2, p, ierr)
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      n = 0
      do while (n < 2)
        call MPI_Testsome(2, p, outc, ind, sts, ierr)
        if (outc /= MPI_UNDEFINED .and. outc > 0) then
          call chk(all(ind(1:outc) >= 1 .and. ind(1:outc) <= 2), 'Testsome indices 1-based')
          call chk(TAGS(sts, 1) == 2 + ind(1), 'Testsome status matches index')
          n = n + outc
        end if
      end do
      call chk(a(1) == 30 + i .and. a(2) == 40 + i, 'Startall persistent data')
      call chk(.not. ISNULL(p(1)) .and. .not. ISNULL(p(2)), 'persistent requests stay')
    end do
    call MPI_Start(p(1), ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(p(1), flag, MPI_STATUS_IGNORE, ierr)
    end do
    call chk(a(1) == 99, 'Start + Test(STATUS_IGNORE)')
    call MPI_Request_free(p(1), ierr)
    call MPI_Request_free(p(2), ierr)
    ! Irsend needs the receive posted first
    call MPI_Irecv(a(3), 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, r(3), ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Recv(a(1), 1, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, st, ierr)
    call MPI_Recv(a(2), 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, st, ierr)
    call MPI_Wait(r(3), st, ierr)
    call chk(a(1) == 6 .and. a(2) == 7 .and. a(3) == 5, 'Issend/Ibsend/Irsend data')
  else
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Send(11, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
    call MPI_Send(22, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, ierr)
    do i = 1, 2
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call MPI_Send(30 + i, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, ierr)
      call MPI_Send(40 + i, 1, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, ierr)
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Send(99, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    b(1) = 5; b(2) = 6; b(3) = 7
    call MPI_Buffer_attach(bsbuf, 4000, ierr)
    call MPI_Irsend(b(1), 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, r(1), ierr)
    call MPI_Issend(b(2), 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, r(2), ierr)
    call MPI_Ibsend(b(3), 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, r(3), ierr)
    call MPI_Waitall(3, r, MPI_STATUSES_IGNORE, ierr)
#ifndef F08
    call MPI_Buffer_detach(bsbuf, n, ierr)
#endif
  end if
  if (rank == 0) print '(a,i0,a)', 'fprog: ', fails, ' failed'
  call MPI_Finalize(ierr)
  if (fails /= 0) stop 1
contains
  subroutine chk(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,a)', 'FAIL ', what
      fails = fails + 1
    end if
  end subroutine
end program
