/* The k grid (lattice, reciprocal lattice, points per direction) as the /grid group of every file
   bte writes: tables and outputs (dynamics, transport, high field) alike (docs/format.md), so an
   output alone maps a flat k index to k space. */
#pragma once
#include <bte/private/bteimpl.h>
#include <hdf5.h>

/* Writes group /grid of file (or group) loc from grid. Rank 0 only, no PETSc calls: returns 0,
   or -1 with a message in err. */
PETSC_INTERN int BTELatticeWriteH5(hid_t loc, const BTEGrid *grid, char err[], size_t len);
