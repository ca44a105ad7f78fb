static const char help[] = "Compares two HDF5 scattering tables object by object: the same groups and datasets,\n"
                           "each dataset with the same file type, shape, chunking and raw bytes, and the same\n"
                           "attributes (type and bytes; strings by value) except the root's 'created' date.\n"
                           "Usage: stream_cmp A.h5 B.h5   (prints 'identical: ...' and exits 0, or names the first difference and exits 1)\n";
/* A plain C program (HDF5 only, no PETSc), so the bit-for-bit comparison does not need Python. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  hid_t a, b;
  int   ndatasets, ngroups, nattrs, bad;
  long long nbytes;
  char  msg[1024];
} Cmp;

static int Fail(Cmp *c, const char *what, const char *path)
{
  if (!c->bad) snprintf(c->msg, sizeof(c->msg), "%s: %s", path, what);
  c->bad = 1;
  return -1;
}

/* Attribute values as bytes; variable-length strings by their text. */
static int AttrBytes(hid_t attr, char **buf, size_t *len, int *isvstr)
{
  hid_t    t = H5Aget_type(attr), sp = H5Aget_space(attr);
  hssize_t n = H5Sget_simple_extent_npoints(sp);
  int      r = 0;

  *isvstr = H5Tis_variable_str(t) > 0;
  if (*isvstr) {
    char **s = calloc((size_t)n, sizeof(char *));
    size_t tot = 0;
    if (H5Aread(attr, t, s) < 0) r = -1;
    for (hssize_t k = 0; k < n && !r; k++) tot += strlen(s[k]) + 1;
    *buf = calloc(tot + 1, 1);
    *len = 0;
    for (hssize_t k = 0; k < n && !r; k++) {
      size_t l = strlen(s[k]) + 1;
      memcpy(*buf + *len, s[k], l);
      *len += l;
    }
    if (!r) H5Dvlen_reclaim(t, sp, H5P_DEFAULT, s);
    free(s);
  } else {
    *len = (size_t)n * H5Tget_size(t);
    *buf = calloc(*len + 1, 1);
    if (H5Aread(attr, t, *buf) < 0) r = -1;
  }
  H5Sclose(sp);
  H5Tclose(t);
  return r;
}

static herr_t AttrVisit(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
  Cmp       *c = (Cmp *)ctx;
  char      *ba = NULL, *bb = NULL, path[512];
  size_t     la = 0, lb = 0;
  int        va = 0, vb = 0;
  hid_t      aa, ab, ta, tb;
  ssize_t    n;
  char       obj[400];

  (void)info;
  n = H5Iget_name(loc, obj, sizeof(obj));
  if (n < 0) strcpy(obj, "?");
  snprintf(path, sizeof(path), "%s@%s", obj, name);
  if (!strcmp(obj, "/") && !strcmp(name, "created")) return 0; /* the date of writing */
  if (H5Aexists(c->b, name) <= 0) return Fail(c, "attribute missing in the second file", path);
  aa = H5Aopen(loc, name, H5P_DEFAULT);
  ab = H5Aopen(c->b, name, H5P_DEFAULT);
  if (aa < 0 || ab < 0) {
    if (aa >= 0) H5Aclose(aa);
    if (ab >= 0) H5Aclose(ab);
    return Fail(c, "attribute missing in the second file", path);
  }
  ta = H5Aget_type(aa);
  tb = H5Aget_type(ab);
  if (H5Tequal(ta, tb) <= 0) Fail(c, "attribute types differ", path);
  else if (AttrBytes(aa, &ba, &la, &va) || AttrBytes(ab, &bb, &lb, &vb)) Fail(c, "cannot read attribute", path);
  else if (la != lb || memcmp(ba, bb, la)) Fail(c, "attribute values differ", path);
  c->nattrs++;
  free(ba);
  free(bb);
  H5Tclose(ta);
  H5Tclose(tb);
  H5Aclose(aa);
  H5Aclose(ab);
  return c->bad ? -1 : 0;
}

static int CountAttrs(hid_t f, const char *path)
{
  H5O_info_t oi;
#if H5_VERSION_GE(1, 12, 0)
  if (H5Oget_info_by_name3(f, path, &oi, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) < 0) return -1;
#else
  if (H5Oget_info_by_name(f, path, &oi, H5P_DEFAULT) < 0) return -1;
#endif
  return (int)oi.num_attrs;
}

static int CompareDataset(Cmp *c, const char *path)
{
  hid_t   da = H5Dopen2(c->a, path, H5P_DEFAULT), db = H5Dopen2(c->b, path, H5P_DEFAULT);
  hid_t   ta = -1, tb = -1, sa = -1, sb = -1, pa = -1, pb = -1;
  hsize_t dima[8], dimb[8], cha[8] = {0}, chb[8] = {0};
  int     ra, rb, r = 0;

  if (da < 0 || db < 0) {
    r = Fail(c, "dataset missing in the second file", path);
    goto done;
  }
  ta = H5Dget_type(da);
  tb = H5Dget_type(db);
  if (H5Tequal(ta, tb) <= 0) {
    r = Fail(c, "dataset file types differ", path);
    goto done;
  }
  sa = H5Dget_space(da);
  sb = H5Dget_space(db);
  ra = H5Sget_simple_extent_dims(sa, dima, NULL);
  rb = H5Sget_simple_extent_dims(sb, dimb, NULL);
  if (ra != rb || memcmp(dima, dimb, sizeof(hsize_t) * (size_t)ra)) {
    r = Fail(c, "dataset shapes differ", path);
    goto done;
  }
  pa = H5Dget_create_plist(da);
  pb = H5Dget_create_plist(db);
  if (H5Pget_layout(pa) != H5Pget_layout(pb)) {
    r = Fail(c, "dataset layouts differ (contiguous/chunked)", path);
    goto done;
  }
  if (H5Pget_layout(pa) == H5D_CHUNKED && (H5Pget_chunk(pa, 8, cha) != H5Pget_chunk(pb, 8, chb) || memcmp(cha, chb, sizeof(cha)))) {
    r = Fail(c, "dataset chunk sizes differ", path);
    goto done;
  }
  {
    /* raw bytes in the file's type, a slab of rows at a time (bounded memory) */
    size_t  esize = H5Tget_size(ta), rowbytes = esize;
    hsize_t rows = ra ? dima[0] : 1, step;
    char   *xa, *xb;
    for (int k = 1; k < ra; k++) rowbytes *= dima[k];
    step = rowbytes ? (hsize_t)((64u << 20) / rowbytes) : 1;
    if (step < 1) step = 1;
    if (step > rows) step = rows ? rows : 1;
    xa = malloc(step * rowbytes + 1);
    xb = malloc(step * rowbytes + 1);
    for (hsize_t s = 0; s < rows && !r; s += step) {
      hsize_t n = rows - s < step ? rows - s : step, off[8] = {0}, cnt[8];
      hid_t   ms, fa = H5Scopy(sa), fb = H5Scopy(sb);
      cnt[0] = n;
      for (int k = 1; k < ra; k++) cnt[k] = dima[k];
      off[0] = s;
      ms     = H5Screate_simple(ra ? ra : 1, cnt, NULL);
      if (ra) {
        H5Sselect_hyperslab(fa, H5S_SELECT_SET, off, NULL, cnt, NULL);
        H5Sselect_hyperslab(fb, H5S_SELECT_SET, off, NULL, cnt, NULL);
      }
      if (H5Dread(da, ta, ra ? ms : H5S_ALL, ra ? fa : H5S_ALL, H5P_DEFAULT, xa) < 0 || H5Dread(db, tb, ra ? ms : H5S_ALL, ra ? fb : H5S_ALL, H5P_DEFAULT, xb) < 0) r = Fail(c, "cannot read dataset", path);
      else if (memcmp(xa, xb, n * rowbytes)) {
        char m[128];
        for (hsize_t e = 0; e < n * rowbytes; e++)
          if (xa[e] != xb[e]) {
            snprintf(m, sizeof(m), "dataset values differ (first at row %llu)", (unsigned long long)(s + e / rowbytes));
            break;
          }
        r = Fail(c, m, path);
      }
      c->nbytes += (long long)(n * rowbytes);
      H5Sclose(ms);
      H5Sclose(fa);
      H5Sclose(fb);
    }
    free(xa);
    free(xb);
  }
done:
  if (pa >= 0) H5Pclose(pa);
  if (pb >= 0) H5Pclose(pb);
  if (sa >= 0) H5Sclose(sa);
  if (sb >= 0) H5Sclose(sb);
  if (ta >= 0) H5Tclose(ta);
  if (tb >= 0) H5Tclose(tb);
  if (da >= 0) H5Dclose(da);
  if (db >= 0) H5Dclose(db);
  return r;
}

static int CompareObject(Cmp *c, const char *path, H5O_type_t type)
{
  int na = CountAttrs(c->a, path), nb = CountAttrs(c->b, path);
  hid_t oa, ob;

  if (nb < 0) return Fail(c, "object missing in the second file", path);
  if (na != nb) return Fail(c, "numbers of attributes differ", path);
  oa = H5Oopen(c->a, path, H5P_DEFAULT);
  ob = H5Oopen(c->b, path, H5P_DEFAULT);
  if (oa < 0 || ob < 0) {
    if (oa >= 0) H5Oclose(oa);
    if (ob >= 0) H5Oclose(ob);
    return Fail(c, "cannot open object", path);
  }
  {
    hid_t save = c->b;
    c->b       = ob; /* attribute names are looked up on the same object of the second file */
    H5Aiterate2(oa, H5_INDEX_NAME, H5_ITER_INC, NULL, AttrVisit, c);
    c->b = save;
  }
  H5Oclose(oa);
  H5Oclose(ob);
  if (c->bad) return -1;
  if (type == H5O_TYPE_DATASET) {
    c->ndatasets++;
    return CompareDataset(c, path);
  }
  if (type == H5O_TYPE_GROUP) c->ngroups++;
  return 0;
}

typedef struct {
  Cmp *c;
  hid_t other;
  int  count;
  int  check; /* 1: only count objects (the second file) */
} Visit;

static herr_t ObjVisit(hid_t obj, const char *name, const H5O_info_t *info, void *ctx)
{
  Visit *v = (Visit *)ctx;
  char   path[512];
  (void)obj;
  snprintf(path, sizeof(path), "/%s", strcmp(name, ".") ? name : "");
  v->count++;
  if (v->check) return 0;
  return CompareObject(v->c, path, info->type) ? -1 : 0;
}

int main(int argc, char **argv)
{
  Cmp   c;
  Visit va, vb;

  memset(&c, 0, sizeof(c));
  if (argc != 3) {
    fprintf(stderr, "%s", help);
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  c.a = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  c.b = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (c.a < 0 || c.b < 0) {
    fprintf(stderr, "stream_cmp: cannot open %s\n", c.a < 0 ? argv[1] : argv[2]);
    return 1;
  }
  memset(&va, 0, sizeof(va));
  memset(&vb, 0, sizeof(vb));
  va.c = vb.c = &c;
  vb.check    = 1;
#if H5_VERSION_GE(1, 12, 0)
  H5Ovisit3(c.a, H5_INDEX_NAME, H5_ITER_INC, ObjVisit, &va, H5O_INFO_BASIC);
  H5Ovisit3(c.b, H5_INDEX_NAME, H5_ITER_INC, ObjVisit, &vb, H5O_INFO_BASIC);
#else
  H5Ovisit(c.a, H5_INDEX_NAME, H5_ITER_INC, ObjVisit, &va);
  H5Ovisit(c.b, H5_INDEX_NAME, H5_ITER_INC, ObjVisit, &vb);
#endif
  if (!c.bad && va.count != vb.count) Fail(&c, "the files hold different numbers of objects", argv[2]);
  H5Fclose(c.a);
  H5Fclose(c.b);
  if (c.bad) {
    printf("DIFFERENT %s vs %s: %s\n", argv[1], argv[2], c.msg);
    return 1;
  }
  printf("identical: %d groups, %d datasets (%lld bytes), %d attributes\n", c.ngroups, c.ndatasets, c.nbytes, c.nattrs);
  return 0;
}
