/* HDF5 writers of the output files (src/io/output.c): whole datasets with their units and
   description, extendable time series written a row at a time, fixed-length string datasets and
   array attributes. Like the rest of h5util they run on one rank, never print, close every
   handle on every path and report the first failure in a BTEH5Status. */
#include <bte/private/h5util.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bte.h>

static int StackFail(BTEH5Status *st, const char what[], const char name[])
{
  char m[256];

  BTEH5StackMessage(m, sizeof(m));
  return BTEH5Fail(st, "cannot %s %s (HDF5: %s)", what, name, m);
}

/* An attribute holding n values (a scalar when n == 1, as every reader of bte expects). */
static int WriteAttrArray(hid_t obj, const char name[], hid_t ftype, hid_t mtype, hsize_t n, const void *v, BTEH5Status *st)
{
  hid_t sp = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL), a = -1;
  int   ret = 0;

  if (sp < 0) return StackFail(st, "write attribute", name);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0 || H5Awrite(a, mtype, v) < 0) ret = StackFail(st, "write attribute", name);
  if (a >= 0 && H5Aclose(a) < 0) {
    BTEH5MarkCloseFailed();
    if (!ret) ret = StackFail(st, "write attribute", name);
  }
  H5Sclose(sp);
  return ret;
}

int BTEH5WriteAttrReals(hid_t obj, const char name[], hsize_t n, const double v[], const char units[], BTEH5Status *st)
{
  if (WriteAttrArray(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v, st)) return -1;
  if (units) {
    char un[256];
    snprintf(un, sizeof(un), "%s_units", name);
    return BTEH5WriteAttrString(obj, un, units, st);
  }
  return 0;
}

int BTEH5WriteAttrInts(hid_t obj, const char name[], hsize_t n, const long long v[], BTEH5Status *st)
{
  /* always 64-bit: counts such as a run's collision applies outgrow 32 bits */
  return WriteAttrArray(obj, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, n, v, st);
}

int BTEH5DescribeDataset(hid_t loc, const char name[], const char units[], const char desc[], BTEH5Status *st)
{
  hid_t d;
  int   ret = 0;

  if (!units && !desc) return 0;
  d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0) return StackFail(st, "open dataset", name);
  if (units) ret = BTEH5WriteAttrString(d, "units", units, st);
  if (!ret && desc) ret = BTEH5WriteAttrString(d, "description", desc, st);
  if (H5Dclose(d) < 0) {
    BTEH5MarkCloseFailed();
    if (!ret) ret = StackFail(st, "write dataset", name);
  }
  return ret;
}

int BTEH5WriteDataset(hid_t loc, const char name[], hid_t ftype, hid_t memtype, int rank, const hsize_t dims[], const void *data, const char units[], const char desc[], BTEH5Status *st)
{
  hid_t   sp, d;
  hsize_t n = 1;
  int     ret = 0;

  for (int k = 0; k < rank; k++) n *= dims[k];
  sp = H5Screate_simple(rank, dims, NULL);
  if (sp < 0) return StackFail(st, "create dataset", name);
  d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0) ret = StackFail(st, "create dataset", name);
  else if (n && H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) ret = StackFail(st, "write dataset", name);
  /* the data may reach the file only when the dataset is closed (a full disk fails here) */
  if (d >= 0 && H5Dclose(d) < 0) {
    BTEH5MarkCloseFailed();
    if (!ret) ret = StackFail(st, "write dataset", name);
  }
  H5Sclose(sp);
  return ret ? ret : BTEH5DescribeDataset(loc, name, units, desc, st);
}

int BTEH5WriteStrings(hid_t loc, const char name[], hsize_t n, size_t width, const char *data, const char desc[], BTEH5Status *st)
{
  hid_t t = H5Tcopy(H5T_C_S1);
  int   ret;

  /* fixed-length, null-padded: each string's bytes sit in the dataset (h5util.c says why) */
  if (t < 0 || H5Tset_size(t, width) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
    if (t >= 0) H5Tclose(t);
    return StackFail(st, "make the string type of", name);
  }
  ret = BTEH5WriteDataset(loc, name, t, t, 1, &n, data, "", desc, st); /* labels: no unit */
  H5Tclose(t);
  return ret;
}

int BTEH5CreateSeries(hid_t loc, const char name[], hid_t ftype, hsize_t ncols, const char units[], const char desc[], BTEH5Status *st)
{
  hsize_t dims[2] = {0, ncols}, maxd[2] = {H5S_UNLIMITED, ncols}, chunk[2];
  int     rank = ncols > 0 ? 2 : 1, ret = 0;
  hid_t   sp, dcpl, d = -1;

  /* a row of at most 65536 values per chunk (a snapshot of the occupations); scalar series in
     chunks of 256 rows, so that a long run does not make a chunk per snapshot */
  chunk[0] = ncols > 0 ? 1 : 256;
  chunk[1] = ncols > 0 ? (ncols < 65536 ? ncols : 65536) : 1;
  sp       = H5Screate_simple(rank, dims, maxd);
  dcpl     = H5Pcreate(H5P_DATASET_CREATE);
  if (sp < 0 || dcpl < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0) ret = StackFail(st, "create dataset", name);
  else {
    d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) ret = StackFail(st, "create dataset", name);
  }
  if (d >= 0 && H5Dclose(d) < 0) {
    BTEH5MarkCloseFailed();
    if (!ret) ret = StackFail(st, "create dataset", name);
  }
  if (dcpl >= 0) H5Pclose(dcpl);
  if (sp >= 0) H5Sclose(sp);
  return ret ? ret : BTEH5DescribeDataset(loc, name, units, desc, st);
}

int BTEH5WriteSeriesRow(hid_t loc, const char name[], hid_t memtype, hsize_t row, hsize_t c0, hsize_t nc, int extend, const void *buf, BTEH5Status *st)
{
  hid_t   d, fs = -1, ms = -1;
  int     rank, ret = 0;
  hsize_t dims[2] = {0, 0}, start[2] = {row, c0}, count[2] = {1, nc};

  d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0) return StackFail(st, "open dataset", name);
  fs   = H5Dget_space(d);
  rank = fs >= 0 ? H5Sget_simple_extent_ndims(fs) : -1;
  if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(fs, dims, NULL) < 0) ret = BTEH5Fail(st, "dataset %s is not a time series; the file is damaged", name);
  if (fs >= 0) H5Sclose(fs);
  fs = -1;
  if (!ret && extend && dims[0] < row + 1) {
    dims[0] = row + 1;
    if (H5Dset_extent(d, dims) < 0) ret = StackFail(st, "extend dataset", name);
  }
  if (!ret && (rank == 1 || nc > 0)) {
    fs = H5Dget_space(d);
    ms = H5Screate_simple(rank, count, NULL);
    if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 || H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, buf) < 0) ret = StackFail(st, "write a row of dataset", name);
  }
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  /* a chunk of the row is written when the dataset is closed (its cache flushed): a full disk
     fails here, and the row would otherwise be lost without a word */
  if (H5Dclose(d) < 0) {
    BTEH5MarkCloseFailed();
    if (!ret) ret = StackFail(st, "write a row of dataset", name);
  }
  return ret;
}

int BTEH5DatasetExtent(hid_t loc, const char name[], hsize_t dims[2])
{
  hid_t d, fs;
  int   rank = -1;

  dims[0] = dims[1] = 0;
  if (BTEH5Exists(loc, name) != 1) return -1;
  d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0) return -1;
  fs = H5Dget_space(d);
  if (fs >= 0) rank = H5Sget_simple_extent_ndims(fs);
  if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(fs, dims, NULL) < 0) rank = -1;
  if (fs >= 0) H5Sclose(fs);
  H5Dclose(d);
  return rank;
}

int BTEH5WriteCreator(hid_t f, BTEH5Status *st)
{
  char      created[64], creator[64];
  time_t    now = time(NULL);
  struct tm tmv;

  gmtime_r(&now, &tmv);
  strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tmv);
  snprintf(creator, sizeof(creator), "bte %d.%d.%d", BTE_VERSION_MAJOR, BTE_VERSION_MINOR, BTE_VERSION_PATCH);
  if (BTEH5WriteAttrString(f, "creator", creator, st)) return -1;
  return BTEH5WriteAttrString(f, "created", created, st);
}
