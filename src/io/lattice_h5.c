/* The k grid of every file bte writes, tables and outputs (dynamics, transport, high field): one
   writer, so one reader serves them all (docs/format.md "/grid"), with a string attribute that
   states the k-index convention, which an output's reader needs to put its states
   (state_kindex) or valleys in k space. */
#include <bte/private/latticeh5.h>
#include <bte/private/h5util.h>
#include <stdio.h>
#include <string.h>

int BTELatticeWriteH5(hid_t loc, const BTEGrid *grid, char err[], size_t len)
{
  BTEH5Status st;
  hid_t       g;
  hsize_t     d33[2] = {3, 3}, d3[1] = {3};
  int         nk[3];

  memset(&st, 0, sizeof(st));
  /* the grid's sizes as the table stores them (i32): a PetscInt of 64 bits holds no more here,
     since the table reader refuses nk above 2^31 - 1 */
  for (int a = 0; a < 3; a++) nk[a] = (int)grid->nk[a];
  g = H5Gcreate2(loc, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) {
    snprintf(err, len, "cannot create group /grid");
    return -1;
  }
  if (!BTEH5CreateDataset(g, "lattice", H5T_IEEE_F64LE, 2, d33, 0, "Angstrom", &st)) BTEH5WriteRows(g, "lattice", BTE_H5_NATIVE_REAL, 0, 3, 3, grid->lattice, &st);
  if (!st.bad && !BTEH5CreateDataset(g, "reciprocal", H5T_IEEE_F64LE, 2, d33, 0, "1/Angstrom", &st)) BTEH5WriteRows(g, "reciprocal", BTE_H5_NATIVE_REAL, 0, 3, 3, grid->reciprocal, &st);
  if (!st.bad && !BTEH5CreateDataset(g, "nk", H5T_STD_I32LE, 1, d3, 0, NULL, &st)) BTEH5WriteRows(g, "nk", H5T_NATIVE_INT, 0, 3, 0, nk, &st);
  if (!st.bad) BTEH5WriteAttrInt(g, "dim", grid->dim, &st);
  if (!st.bad) BTEH5WriteAttrReal(g, "volume", grid->volume, grid->dim == 2 ? "Angstrom^2" : "Angstrom^3", &st);
  if (!st.bad)
    BTEH5WriteAttrString(g, "description",
                         "k index ik = (i0 * nk[1] + i1) * nk[2] + i2, 0 <= i_a < nk[a], is the point k = sum_a (i_a / nk[a]) b_a, b_a the rows of reciprocal (2 pi included); "
                         "lattice rows a1, a2, a3 (in 2D a3 is the out-of-plane unit normal and nk[2] = 1)",
                         &st);
  H5Gclose(g);
  if (st.bad) {
    snprintf(err, len, "/grid: %s", st.msg);
    return -1;
  }
  return 0;
}
