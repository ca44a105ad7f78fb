/* Parallel reads of whole 1-D datasets straight from the file.

   HDF5 (serial, not thread-safe) reads a dataset on one thread: 3 GB of channels take ~3.5 s even
   from the page cache, most of a GPU run's setup. When a dataset's bytes in the file are exactly
   its values in memory (the file type equals the memory type: no conversion; no filters;
   contiguous storage, or chunked with every chunk allocated; the default sec2 file driver), its
   extent in the file is known from HDF5 (H5Dget_offset, H5Dget_chunk_info) and the bytes can be
   read with pread() from all OpenMP threads. Every extent is checked against the file size, and
   the chunks must tile the dataset exactly; anything else (and any HDF5 older than 1.10.5) leaves
   the dataset to the caller's HDF5 read. */
#include <bte/private/h5util.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  hsize_t row0, nrows; /* rows of the dataset */
  haddr_t addr;        /* their bytes in the file */
} Extent;

#define BTE_H5_DIRECT_PIECE ((size_t)16 << 20) /* bytes per pread task */

/* The extents of the dataset (NULL/0 when it does not qualify). */
static int Extents(hid_t f, hid_t d, hid_t memtype, hsize_t n, Extent **ext, size_t *next)
{
  hid_t   ft = -1, sp = -1, dcpl = -1, fcpl = -1, fapl = -1;
  hsize_t dims[1] = {0}, ub = 0;
  int     ok = 0;

  *ext  = NULL;
  *next = 0;
  ft    = H5Dget_type(d);
  sp    = H5Dget_space(d);
  dcpl  = H5Dget_create_plist(d);
  fcpl  = H5Fget_create_plist(f);
  fapl  = H5Fget_access_plist(f);
  if (ft < 0 || sp < 0 || dcpl < 0 || fcpl < 0 || fapl < 0) goto done;
  if (H5Tequal(ft, memtype) <= 0) goto done;
  if (H5Sget_simple_extent_ndims(sp) != 1 || H5Sget_simple_extent_dims(sp, dims, NULL) != 1 || dims[0] != n) goto done;
  if (H5Pget_nfilters(dcpl) != 0) goto done;
  if (H5Pget_driver(fapl) != H5FD_SEC2) goto done;
  if (H5Pget_userblock(fcpl, &ub) < 0) goto done;
  if (H5Pget_layout(dcpl) == H5D_CONTIGUOUS) {
    haddr_t a = H5Dget_offset(d);
    if (a == HADDR_UNDEF) goto done;
    *ext = (Extent *)malloc(sizeof(Extent));
    if (!*ext) goto done;
    (*ext)[0].row0  = 0;
    (*ext)[0].nrows = n;
    (*ext)[0].addr  = a + ub;
    *next           = 1;
    ok              = 1;
  }
#if H5_VERSION_GE(1, 10, 5)
  else if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t cdim[1] = {0}, nc = 0, covered = 0;
    size_t  esize   = H5Tget_size(memtype);
    if (H5Pget_chunk(dcpl, 1, cdim) != 1 || cdim[0] == 0) goto done;
    if (H5Dget_num_chunks(d, sp, &nc) < 0 || nc != (n + cdim[0] - 1) / cdim[0]) goto done; /* every chunk allocated */
    *ext = (Extent *)malloc((size_t)PetscMax(nc, 1) * sizeof(Extent));
    if (!*ext) goto done;
    for (hsize_t k = 0; k < nc; k++) {
      hsize_t  coord[1] = {0}, size = 0;
      unsigned mask     = 0;
      haddr_t  a        = HADDR_UNDEF;
      if (H5Dget_chunk_info(d, sp, k, coord, &mask, &a, &size) < 0 || a == HADDR_UNDEF || coord[0] % cdim[0] || coord[0] >= n) goto done;
      (*ext)[k].row0  = coord[0];
      (*ext)[k].nrows = PetscMin(cdim[0], n - coord[0]);
      (*ext)[k].addr  = a + ub;
      if (size < (*ext)[k].nrows * esize) goto done;
      covered += (*ext)[k].nrows;
    }
    if (covered != n) goto done; /* with nc chunks at distinct multiples of cdim, this means all */
    *next = (size_t)nc;
    ok    = 1;
  }
#endif
done:
  if (!ok) {
    free(*ext);
    *ext  = NULL;
    *next = 0;
  }
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (fcpl >= 0) H5Pclose(fcpl);
  if (fapl >= 0) H5Pclose(fapl);
  H5Eclear2(H5E_DEFAULT);
  return ok;
}

int BTEH5ReadDirect(hid_t f, const char file[], const char path[], hid_t memtype, hsize_t n, void *buf, BTEH5Status *st)
{
  hid_t       d;
  Extent     *ext = NULL;
  size_t      next = 0, esize = H5Tget_size(memtype), npiece = 0;
  int         fd, bad = 0, ok;
  struct stat sb;

  if (!n) return 1;
  d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  ok = Extents(f, d, memtype, n, &ext, &next);
  H5Dclose(d);
  if (!ok) return 0;
  fd = open(file, O_RDONLY);
  if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
    if (fd >= 0) close(fd);
    free(ext);
    return 0;
  }
  for (size_t k = 0; k < next; k++) {
    if (ext[k].addr + ext[k].nrows * esize > (haddr_t)sb.st_size) {
      close(fd);
      free(ext);
      return BTEH5Fail(st, "dataset %s: its data lie past the end of the file (%lld bytes); the file is truncated or damaged", path, (long long)sb.st_size);
    }
    npiece += (ext[k].nrows * esize + BTE_H5_DIRECT_PIECE - 1) / BTE_H5_DIRECT_PIECE;
  }
  /* pieces of <= 16 MB over all threads (first touch of buf in parallel, too) */
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad)
  for (size_t p = 0; p < npiece; p++) {
    size_t k = 0, q = p, per;
    while (k < next && q >= (per = (ext[k].nrows * esize + BTE_H5_DIRECT_PIECE - 1) / BTE_H5_DIRECT_PIECE)) q -= per, k++;
    if (k >= next) continue;
    {
      size_t bytes = ext[k].nrows * esize, o = q * BTE_H5_DIRECT_PIECE, len = PetscMin(BTE_H5_DIRECT_PIECE, bytes - o);
      char  *dst   = (char *)buf + ext[k].row0 * esize + o;
      off_t  src   = (off_t)(ext[k].addr + o);
      while (len > 0) {
        ssize_t r = pread(fd, dst, len, src);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
          bad = 1;
          break;
        }
        dst += r, src += r, len -= (size_t)r;
      }
    }
  }
  close(fd);
  free(ext);
  if (bad) return BTEH5Fail(st, "dataset %s: reading its data from the file failed (%s)", path, strerror(errno ? errno : EIO));
  return 1;
}
