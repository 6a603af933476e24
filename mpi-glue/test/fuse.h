! SPDX-License-Identifier: GPL-2.0
! fuse.h - the binding's module or header, right after the program line.
#if defined(F08)
  use mpi_f08
#elif defined(USEMPI)
  use mpi
#endif
  implicit none
#if defined(MPIFH)
  include 'mpif.h'
#endif
