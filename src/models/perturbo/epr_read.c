/* Reading Perturbo's prefix_epr.h5 (written by qe2pert.x) and regenerating the real-space
   vectors its arrays are stored on (docs/import.md).

   The file stores values only; the lattice vectors of each array are those Perturbo's
   wigner_seitz_cell.f90 makes, in the same order:
   - images: for a grid (n1,n2,n3), every point (i,j,k) (i fastest) and every translate
     (i + m1 n1, j + m2 n2, k + m3 n3), m in [-3,3] (m1 fastest), shorter than the cutoff
     max over the 8 corners of |at^T ((n/2+1)(+-1,+-1,+-1))| (lengths in alat);
   - a pair of centres (ta, tb) (crystal coordinates) keeps, per grid point, the images R with
     |R + tb - ta| minimal (ties within 1e-6 alat all kept), in image order;
   - H(R) of Wannier pair (iw <= jw): grid kc_dim, ta = centre iw, tb = centre jw;
     force constants of atoms (ia <= ja): grid qc_dim, ta = atom ia, tb = atom ja;
     e-ph (iw, jw, ia): electron side grid kc_dim with (centre iw, centre jw), phonon side grid
     qc_dim with (centre iw, atom ia).
   The degeneracy weights 1/ndeg are folded into the stored values.

   Every rank reads the (small) file itself; problems are collected in a status and raised
   collectively with one message that names the file and the dataset. */
#include <bte/private/epr.h>
#include <bte/private/h5util.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WS_RANGE 3
#define WS_EPS   1e-6
#define AMU_RY   911.444 /* Rydberg mass units (2 m_e) per atomic mass unit: the file's masses */

/* Length of x (crystal) in alat: |sum_i x_i at_i| */
static PetscReal CrystLength(const PetscReal at[9], const PetscReal x[3])
{
  PetscReal c[3];
  for (int d = 0; d < 3; d++) c[d] = x[0] * at[d] + x[1] * at[3 + d] + x[2] * at[6 + d];
  return PetscSqrtReal(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

/* All images of a grid, in Perturbo's order */
typedef struct {
  PetscInt  ngrid, nvec;
  PetscInt *idx, *nim; /* per grid point: first image, number of images */
  PetscInt *vec;       /* 3 per image */
} Images;

static PetscErrorCode ImagesCreate(const PetscReal at[9], const PetscInt n[3], Images *im)
{
  PetscReal cutoff = 0;
  PetscInt  tot    = 0;

  PetscFunctionBegin;
  for (int s0 = -1; s0 <= 1; s0 += 2)
    for (int s1 = -1; s1 <= 1; s1 += 2)
      for (int s2 = -1; s2 <= 1; s2 += 2) {
        PetscReal x[3] = {(PetscReal)(s0 * (n[0] / 2 + 1)), (PetscReal)(s1 * (n[1] / 2 + 1)), (PetscReal)(s2 * (n[2] / 2 + 1))};
        cutoff         = PetscMax(cutoff, CrystLength(at, x));
      }
  im->ngrid = n[0] * n[1] * n[2];
  PetscCall(PetscMalloc2(im->ngrid, &im->idx, im->ngrid, &im->nim));
  for (int pass = 0; pass < 2; pass++) {
    PetscInt ir = 0;
    tot         = 0;
    for (PetscInt k = 0; k < n[2]; k++)
      for (PetscInt j = 0; j < n[1]; j++)
        for (PetscInt i = 0; i < n[0]; i++, ir++) {
          PetscInt nim = 0;
          for (int mk = -WS_RANGE; mk <= WS_RANGE; mk++)
            for (int mj = -WS_RANGE; mj <= WS_RANGE; mj++)
              for (int mi = -WS_RANGE; mi <= WS_RANGE; mi++) {
                PetscInt  r[3] = {mi * n[0] + i, mj * n[1] + j, mk * n[2] + k};
                PetscReal x[3] = {(PetscReal)r[0], (PetscReal)r[1], (PetscReal)r[2]};
                if (CrystLength(at, x) < cutoff) {
                  if (pass) {
                    for (int d = 0; d < 3; d++) im->vec[3 * (tot + nim) + d] = r[d];
                  }
                  nim++;
                }
              }
          PetscCheck(nim >= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Wigner-Seitz search: grid point (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") has no image", i, j, k);
          im->idx[ir] = tot;
          im->nim[ir] = nim;
          tot += nim;
        }
    if (!pass) {
      im->nvec = tot;
      PetscCall(PetscMalloc1(3 * tot, &im->vec));
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ImagesDestroy(Images *im)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(im->idx, im->nim));
  PetscCall(PetscFree(im->vec));
  PetscFunctionReturn(0);
}

/* The images kept for (ta, tb): sel[] = image indices (ascending), ndeg[] their degeneracies. */
static PetscErrorCode WSSelect(const PetscReal at[9], const Images *im, const PetscReal ta[3], const PetscReal tb[3], PetscInt *nr, PetscInt **sel, PetscInt **ndeg)
{
  PetscInt  *deg, tot = 0, maxim = 0;
  PetscReal *dist;

  PetscFunctionBegin;
  for (PetscInt ir = 0; ir < im->ngrid; ir++) maxim = PetscMax(maxim, im->nim[ir]);
  PetscCall(PetscCalloc1(im->nvec, &deg));
  PetscCall(PetscMalloc1(maxim, &dist));
  for (PetscInt ir = 0; ir < im->ngrid; ir++) {
    PetscInt  i0 = im->idx[ir], nim = im->nim[ir], nd = 0;
    PetscReal dmin = PETSC_MAX_REAL;
    for (PetscInt n = 0; n < nim; n++) {
      PetscReal x[3];
      for (int d = 0; d < 3; d++) x[d] = im->vec[3 * (i0 + n) + d] + tb[d] - ta[d];
      dist[n] = CrystLength(at, x);
      dmin    = PetscMin(dmin, dist[n]);
    }
    for (PetscInt n = 0; n < nim; n++)
      if (dist[n] - dmin < WS_EPS) nd++;
    for (PetscInt n = 0; n < nim; n++)
      if (dist[n] - dmin < WS_EPS) deg[i0 + n] = nd;
    tot += nd;
  }
  PetscCall(PetscMalloc1(tot, sel));
  if (ndeg) PetscCall(PetscMalloc1(tot, ndeg));
  *nr = 0;
  for (PetscInt n = 0; n < im->nvec; n++)
    if (deg[n]) {
      (*sel)[*nr] = n;
      if (ndeg) (*ndeg)[*nr] = deg[n];
      (*nr)++;
    }
  PetscCall(PetscFree(deg));
  PetscCall(PetscFree(dist));
  PetscFunctionReturn(0);
}

/* Builds the union set of several selections (relabelled in image order) and maps each
   selection's entries into it. sel[e] has n[e] image indices; out: set->R, idx[e][r]. */
static PetscErrorCode UnionSet(const Images *im, PetscInt ne, PetscInt *const *sel, const PetscInt *n, BTEEprRSet *set, PetscInt *idx)
{
  PetscInt *label, nr = 0, pos = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(im->nvec, &label));
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt r = 0; r < n[e]; r++) label[sel[e][r]] = 1;
  for (PetscInt v = 0; v < im->nvec; v++)
    if (label[v]) label[v] = ++nr; /* 1-based */
  set->nr = nr;
  PetscCall(PetscMalloc1(3 * nr, &set->R));
  for (PetscInt v = 0; v < im->nvec; v++)
    if (label[v])
      for (int d = 0; d < 3; d++) set->R[3 * (label[v] - 1) + d] = im->vec[3 * v + d];
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt r = 0; r < n[e]; r++) idx[pos++] = label[sel[e][r]] - 1;
  PetscCall(PetscFree(label));
  PetscFunctionReturn(0);
}

/* neg[r] = the index in s of -R_r, or -1 where s lacks it. The vectors of a grid n are R = m n + i
   with |m| <= WS_RANGE and 0 <= i < n, so R + (WS_RANGE + 1) n and -R + (WS_RANGE + 1) n both lie in
   [0, w) with w = (2 WS_RANGE + 2) n + 1: a key per vector, sorted, searched. */
static PetscErrorCode NegationMap(const BTEEprRSet *s, const PetscInt n[3], PetscInt *neg)
{
  PetscInt  *key, *perm, w[3], off[3];
  PetscInt64 span = 1;

  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) {
    off[d] = (WS_RANGE + 1) * n[d];
    w[d]   = 2 * off[d] + 1;
    span *= w[d];
  }
  if (span >= PETSC_MAX_INT) { /* grids far beyond any coarse Wannier grid: no check */
    for (PetscInt r = 0; r < s->nr; r++) neg[r] = -1;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc2(s->nr, &key, s->nr, &perm));
  for (PetscInt r = 0; r < s->nr; r++) {
    const PetscInt *R = s->R + 3 * r;
    key[r]            = ((R[0] + off[0]) * w[1] + (R[1] + off[1])) * w[2] + (R[2] + off[2]);
    perm[r]           = r;
  }
  PetscCall(PetscSortIntWithArray(s->nr, key, perm));
  for (PetscInt r = 0; r < s->nr; r++) {
    const PetscInt *R = s->R + 3 * r;
    PetscInt        k = ((off[0] - R[0]) * w[1] + (off[1] - R[1])) * w[2] + (off[2] - R[2]), loc;
    PetscCall(PetscFindInt(k, s->nr, key, &loc));
    neg[r] = loc >= 0 ? perm[loc] : -1;
  }
  PetscCall(PetscFree2(key, perm));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* HDF5 reading with messages that name the file and the dataset */

typedef struct {
  hid_t       f;
  const char *file;
  BTEH5Status st;
} Reader;

/* Reads dataset path (class cls: H5T_FLOAT or H5T_INTEGER) of exactly n elements, shaped as
   described by shape (for the message), into buf (double or long long). rank < 0: any rank
   with n elements total. */
static int ReadData(Reader *r, const char path[], H5T_class_t cls, int rank, const hsize_t *dims, const char shape[], void *buf)
{
  hid_t       d, t, sp;
  H5T_class_t c;
  int         nd, ret = 0;
  hsize_t     dd[H5S_MAX_RANK], tot = 1, want = 1;

  if (r->st.bad) return -1;
  if (!BTEH5Exists(r->f, path)) return BTEH5Fail(&r->st, "%s: dataset %s is missing; is this a Perturbo epr file (qe2pert.x output)?", r->file, path);
  d = H5Dopen2(r->f, path, H5P_DEFAULT);
  if (d < 0) return BTEH5Fail(&r->st, "%s: %s is not a readable dataset; the file is damaged", r->file, path);
  t = H5Dget_type(d);
  c = H5Tget_class(t);
  if (c != cls) {
    H5Tclose(t);
    H5Dclose(d);
    return BTEH5Fail(&r->st, "%s: dataset %s is not of %s type", r->file, path, cls == H5T_FLOAT ? "floating-point" : "integer");
  }
  {
    /* only standard integers and IEEE binary32/64: a damaged type descriptor must not read as
       other numbers (BTEH5CheckNumberType) */
    char what[PETSC_MAX_PATH_LEN + 64];
    snprintf(what, sizeof(what), "%s: dataset %s", r->file, path);
    ret = BTEH5CheckNumberType(t, cls, what, &r->st);
  }
  H5Tclose(t);
  sp = H5Dget_space(d);
  nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (!ret && nd < 0) ret = BTEH5Fail(&r->st, "%s: cannot read the shape of %s; the file is damaged", r->file, path);
  /* a null dataspace has rank 0 like a scalar but holds no value: reading it leaves buf unset */
  if (!ret && H5Sget_simple_extent_type(sp) != H5S_SIMPLE && H5Sget_simple_extent_type(sp) != H5S_SCALAR) ret = BTEH5Fail(&r->st, "%s: dataset %s holds no data (an HDF5 null dataspace); expected %s", r->file, path, shape);
  if (!ret) {
    H5Sget_simple_extent_dims(sp, dd, NULL);
    for (int k = 0; k < nd; k++) tot *= dd[k];
    if (rank >= 0) {
      int ok = (nd == rank) || (rank == 0 && nd == 1 && tot == 1);
      for (int k = 0; ok && k < rank; k++) ok = dd[k] == dims[k];
      if (!ok) {
        char got[128] = "(";
        for (int k = 0; k < nd; k++) snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%llu", k ? "," : "", (unsigned long long)dd[k]);
        strncat(got, ")", sizeof(got) - strlen(got) - 1);
        char want_s[128] = "(";
        for (int k = 0; k < rank; k++) snprintf(want_s + strlen(want_s), sizeof(want_s) - strlen(want_s), "%s%llu", k ? "," : "", (unsigned long long)dims[k]);
        strncat(want_s, ")", sizeof(want_s) - strlen(want_s) - 1);
        if (rank) ret = BTEH5Fail(&r->st, "%s: dataset %s has shape %s; expected %s, %s", r->file, path, got, want_s, shape);
        else ret = BTEH5Fail(&r->st, "%s: dataset %s has shape %s; expected a scalar", r->file, path, got);
      }
      for (int k = 0; k < rank; k++) want *= dims[k];
    } else want = dims[0];
    if (!ret && tot != want) ret = BTEH5Fail(&r->st, "%s: dataset %s has %llu elements; expected %s", r->file, path, (unsigned long long)tot, shape);
  }
  if (!ret && H5Dread(d, cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) ret = BTEH5Fail(&r->st, "%s: reading %s failed; the file is damaged", r->file, path);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  if (!ret && cls == H5T_FLOAT) {
    const double *v = (const double *)buf;
    for (hsize_t k = 0; k < want; k++)
      if (!isfinite(v[k])) return BTEH5Fail(&r->st, "%s: dataset %s has a non-finite entry (%g) at position %llu", r->file, path, v[k], (unsigned long long)k);
  }
  return ret ? -1 : 0;
}

static int ReadScalarReal(Reader *r, const char path[], double *v)
{
  return ReadData(r, path, H5T_FLOAT, 0, NULL, "a scalar", v);
}

static int ReadScalarInt(Reader *r, const char path[], long long *v)
{
  return ReadData(r, path, H5T_INTEGER, 0, NULL, "a scalar", v);
}

/* Real and imaginary parts of one array of n entries: buffers of doubles */
static int ReadComplexPair(Reader *r, const char pre_r[], const char pre_i[], const char suffix[], int rank, const hsize_t *dims, const char shape[], double *re, double *im)
{
  char p[256];
  snprintf(p, sizeof(p), "%s%s", pre_r, suffix);
  if (ReadData(r, p, H5T_FLOAT, rank, dims, shape, re)) return -1;
  snprintf(p, sizeof(p), "%s%s", pre_i, suffix);
  return ReadData(r, p, H5T_FLOAT, rank, dims, shape, im);
}

/* Before the Wigner-Seitz search: every point of grid n (basic_data/name) has at least one vector,
   so the first dimension of dataset path (the array of the first pair on that grid) must be at
   least the number of points; a damaged kc_dim of 1000^3 must not start a search of 3.4e11 images. */
static int CheckGridData(Reader *r, const PetscInt n[3], const char name[], const char path[])
{
  hid_t   d, sp;
  hsize_t dd[H5S_MAX_RANK];
  int     nd;

  if (r->st.bad) return -1;
  if (!BTEH5Exists(r->f, path)) return BTEH5Fail(&r->st, "%s: dataset %s is missing; is this a Perturbo epr file (qe2pert.x output)?", r->file, path);
  d = H5Dopen2(r->f, path, H5P_DEFAULT);
  if (d < 0) return BTEH5Fail(&r->st, "%s: %s is not a readable dataset; the file is damaged", r->file, path);
  sp = H5Dget_space(d);
  nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (nd >= 1) H5Sget_simple_extent_dims(sp, dd, NULL);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  if (nd < 1) return 0; /* ReadData reports the shape */
  if ((double)n[0] * n[1] * n[2] > (double)dd[0]) {
    char got[128] = "(";
    for (int k = 0; k < nd; k++) snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%llu", k ? "," : "", (unsigned long long)dd[k]);
    strncat(got, ")", sizeof(got) - strlen(got) - 1);
    return BTEH5Fail(&r->st, "%s: dataset %s has shape %s; expected at least %.0f Wigner-Seitz vectors, one per point of basic_data/%s = (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT "): the grid and the data do not match", r->file, path, got, (double)n[0] * n[1] * n[2], name, n[0], n[1], n[2]);
  }
  return 0;
}

static PetscErrorCode Raise(MPI_Comm comm, Reader *r)
{
  PetscFunctionBegin;
  PetscCall(BTEH5SyncStatus(comm, &r->st));
  if (r->st.bad) {
    if (r->f >= 0) H5Fclose(r->f);
    r->f = -1;
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s", r->st.msg);
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Laws of the real-space arrays (validate.h): a damaged entry inside the bounds breaks them */

/* H(R) of each Wannier function with itself: H_ii(R) = conj H_ii(-R) (H(k) Hermitian). Refused
   above BTE_EPR_HERMITIAN_TOL of the largest |H(R)|. */
static PetscErrorCode CheckHermitian(BTEEpr e, Reader *rd)
{
  PetscInt *neg, *pos, worst_m = -1, worst_t = -1, worst_u = -1, worst_w = -1;
  PetscReal hmax = 0, dmax = 0;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < e->hoff[e->nw * (e->nw + 1) / 2]; t++) hmax = PetscMax(hmax, PetscSqrtReal(e->hval_re[t] * e->hval_re[t] + e->hval_im[t] * e->hval_im[t]));
  PetscCall(PetscMalloc2(e->hR.nr, &neg, e->hR.nr, &pos));
  PetscCall(NegationMap(&e->hR, e->kc, neg));
  for (PetscInt r = 0; r < e->hR.nr; r++) pos[r] = -1;
  for (PetscInt iw = 0; iw < e->nw; iw++) {
    PetscInt m = iw * (iw + 1) / 2 + iw;
    for (PetscInt t = e->hoff[m]; t < e->hoff[m + 1]; t++) pos[e->hidx[t]] = t;
    for (PetscInt t = e->hoff[m]; t < e->hoff[m + 1]; t++) {
      PetscInt  r = neg[e->hidx[t]], u = r >= 0 ? pos[r] : -1;
      PetscReal dr, di, d;
      if (u < 0) continue; /* a set without -R: nothing to compare */
      dr = e->hval_re[t] - e->hval_re[u];
      di = e->hval_im[t] + e->hval_im[u];
      d  = PetscSqrtReal(dr * dr + di * di);
      if (d > dmax) {
        dmax    = d;
        worst_m = m;
        worst_w = iw;
        worst_t = t;
        worst_u = u;
      }
    }
    for (PetscInt t = e->hoff[m]; t < e->hoff[m + 1]; t++) pos[e->hidx[t]] = -1;
  }
  if (dmax > BTE_EPR_HERMITIAN_TOL * hmax) {
    const PetscInt *R = e->hR.R + 3 * e->hidx[worst_t];
    if (worst_t == worst_u) /* R = 0: H_ii(0) must be real */
      BTEH5Fail(&rd->st, "%s: electron_wannier/hopping_r%" PetscInt_FMT " and hopping_i%" PetscInt_FMT " (Wannier function %" PetscInt_FMT " with itself) are not Hermitian: H(0) = %.6g%+.6gi Ry is not real, its imaginary part %.3g of the largest |H(R)| (at most %g; the file is damaged)", rd->file, worst_m + 1, worst_m + 1, worst_w + 1, (double)e->hval_re[worst_t], (double)e->hval_im[worst_t], (double)(PetscAbsReal(e->hval_im[worst_t]) / hmax), BTE_EPR_HERMITIAN_TOL);
    else BTEH5Fail(&rd->st, "%s: electron_wannier/hopping_r%" PetscInt_FMT " and hopping_i%" PetscInt_FMT " (Wannier function %" PetscInt_FMT " with itself) are not Hermitian: H(R) = %.6g%+.6gi Ry at R = (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") but H(-R) = %.6g%+.6gi Ry, a difference of %.3g of the largest |H(R)| (at most %g; the file is damaged)", rd->file, worst_m + 1, worst_m + 1,
              worst_w + 1, (double)e->hval_re[worst_t], (double)e->hval_im[worst_t], R[0], R[1], R[2], (double)e->hval_re[worst_u], (double)e->hval_im[worst_u], (double)(dmax / hmax), BTE_EPR_HERMITIAN_TOL);
  }
  PetscCall(PetscFree2(neg, pos));
  PetscFunctionReturn(0);
}

/* Force constants: C_aa(R) = C_aa(-R)^T for each atom with itself (D(q) Hermitian), refused above
   BTE_EPR_IFCSYM_TOL of the largest |C| and recorded in e->ifcsym; and the acoustic sum rule
   sum_b sum_R C_ab(R) = 0 (a rigid translation costs no energy), its residual recorded in
   e->asr_res and e->asr_omega for the import's warnings (perturbo.c). The pairs b < a are the
   transposes of the stored a > b ones: sum_R C_ba(R) = (sum_R C_ab(R))^T. */
static PetscErrorCode CheckForceConstants(BTEEpr e, Reader *rd)
{
  PetscInt   na = e->nat, nf = na * (na + 1) / 2, *neg, *pos, worst_m = -1, worst_t = -1;
  PetscReal  fmax = 0, dmax = 0, *S;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < 9 * e->foff[nf]; t++) fmax = PetscMax(fmax, PetscAbsReal(e->fval[t]));
  PetscCall(PetscMalloc2(e->fR.nr, &neg, e->fR.nr, &pos));
  PetscCall(PetscCalloc1(9 * na, &S));
  PetscCall(NegationMap(&e->fR, e->qc, neg));
  for (PetscInt r = 0; r < e->fR.nr; r++) pos[r] = -1;
  for (PetscInt ja = 0, m = 0; ja < na; ja++)
    for (PetscInt ia = 0; ia <= ja; ia++, m++) {
      PetscReal s[9] = {0};
      for (PetscInt t = e->foff[m]; t < e->foff[m + 1]; t++)
        for (int c = 0; c < 9; c++) s[c] += e->fval[9 * t + c];
      for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) {
          S[9 * ia + 3 * x + y] += s[3 * x + y];
          if (ia != ja) S[9 * ja + 3 * y + x] += s[3 * x + y];
        }
      if (ia != ja) continue;
      for (PetscInt t = e->foff[m]; t < e->foff[m + 1]; t++) pos[e->fidx[t]] = t;
      for (PetscInt t = e->foff[m]; t < e->foff[m + 1]; t++) {
        PetscInt r = neg[e->fidx[t]], u = r >= 0 ? pos[r] : -1;
        if (u < 0) continue;
        for (int x = 0; x < 3; x++)
          for (int y = 0; y < 3; y++) {
            PetscReal d = PetscAbsReal(e->fval[9 * t + 3 * x + y] - e->fval[9 * u + 3 * y + x]);
            if (d > dmax) {
              dmax    = d;
              worst_m = m;
              worst_t = t;
            }
          }
      }
      for (PetscInt t = e->foff[m]; t < e->foff[m + 1]; t++) pos[e->fidx[t]] = -1;
    }
  e->ifcsym      = fmax > 0 ? dmax / fmax : 0;
  e->ifcsym_pair = worst_m + 1;
  e->asr_res = e->asr_omega = 0;
  e->asr_atom               = 0;
  for (PetscInt a = 0; a < na; a++) {
    PetscReal res = 0;
    for (int c = 0; c < 9; c++) res = PetscMax(res, PetscAbsReal(S[9 * a + c]));
    if (PetscSqrtReal(res / e->mass[a]) > e->asr_omega) {
      e->asr_omega = PetscSqrtReal(res / e->mass[a]);
      e->asr_res   = res;
      e->asr_atom  = a + 1;
    }
  }
  if (e->ifcsym > BTE_EPR_IFCSYM_TOL) {
    const PetscInt *R = e->fR.R + 3 * e->fidx[worst_t];
    BTEH5Fail(&rd->st, "%s: force_constant/ifc%" PetscInt_FMT " (an atom with itself) is not symmetric: C(R) and C(-R)^T at R = (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") differ by %.3g of the largest force constant (at most %g; the file is damaged)", rd->file, e->ifcsym_pair, R[0], R[1], R[2], (double)e->ifcsym, BTE_EPR_IFCSYM_TOL);
  }
  PetscCall(PetscFree2(neg, pos));
  PetscCall(PetscFree(S));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprRead(MPI_Comm comm, const char file[], BTEEpr *out)
{
  BTEEpr      e;
  Reader      rd = {-1, file, {0, ""}};
  BTEH5Auto   save;
  struct stat sb;
  double      x = 0, buf[9];
  long long   iv = 0, i3[3];
  hsize_t     d1[1], d2[2], d3[3];
  Images      imk, imq;

  PetscFunctionBegin;
  PetscCall(PetscNew(&e));
  PetscCall(PetscStrncpy(e->file, file, sizeof(e->file)));
  BTEH5Silence(&save);
  if (stat(file, &sb)) BTEH5Fail(&rd.st, "%s: cannot open it: %s. Check the path given to -bte_perturbo_epr", file, strerror(errno));
  else if (S_ISDIR(sb.st_mode)) BTEH5Fail(&rd.st, "%s is a directory; -bte_perturbo_epr expects Perturbo's prefix_epr.h5 file", file);
  else if (!S_ISREG(sb.st_mode)) BTEH5Fail(&rd.st, "%s is not a regular file (a FIFO, socket or device); -bte_perturbo_epr expects Perturbo's prefix_epr.h5 file", file);
  else if (access(file, R_OK)) BTEH5Fail(&rd.st, "%s: cannot read it: %s", file, strerror(errno));
  else {
    rd.f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (rd.f < 0) {
      char m[256];
      BTEH5StackMessage(m, sizeof(m));
      BTEH5Fail(&rd.st, "%s is not a readable HDF5 file (HDF5: %s); -bte_perturbo_epr expects Perturbo's prefix_epr.h5", file, m);
    } else if (!BTEH5Exists(rd.f, "basic_data") || !BTEH5Exists(rd.f, "electron_wannier") || !BTEH5Exists(rd.f, "force_constant") || !BTEH5Exists(rd.f, "eph_matrix_wannier"))
      BTEH5Fail(&rd.st, "%s is not a Perturbo epr file: it lacks one of the groups basic_data, electron_wannier, force_constant, eph_matrix_wannier (qe2pert.x writes all four)", file);
  }
  BTEH5Restore(&save);
  PetscCall(Raise(comm, &rd));
  BTEH5Silence(&save);

  /* /basic_data */
  ReadScalarReal(&rd, "basic_data/alat", &x);
  e->alat = x;
  ReadScalarReal(&rd, "basic_data/volume", &x);
  e->volume = x;
  /* counts are checked as read (long long), before they become PetscInts: 2^32 + 1 must not wrap to 1 */
  if (!ReadScalarInt(&rd, "basic_data/nat", &iv) && (iv < 1 || iv > BTE_MAX_MODES / 3)) BTEH5Fail(&rd.st, "%s: basic_data/nat = %lld; bte supports 1..%d atoms", file, iv, BTE_MAX_MODES / 3);
  e->nat = (PetscInt)iv;
  if (!ReadScalarInt(&rd, "basic_data/num_wann", &iv) && (iv < 1 || iv > BTE_MAX_BANDS)) BTEH5Fail(&rd.st, "%s: basic_data/num_wann = %lld; bte supports 1..%d Wannier functions", file, iv, BTE_MAX_BANDS);
  e->nw = (PetscInt)iv;
  d2[0] = d2[1] = 3;
  if (!ReadData(&rd, "basic_data/at", H5T_FLOAT, 2, d2, "the lattice vectors", buf))
    for (int k = 0; k < 9; k++) e->at[k] = buf[k];
  if (!ReadData(&rd, "basic_data/bg", H5T_FLOAT, 2, d2, "the reciprocal vectors", buf))
    for (int k = 0; k < 9; k++) e->bg[k] = buf[k];
  if (!ReadData(&rd, "basic_data/epsil", H5T_FLOAT, 2, d2, "the dielectric tensor", buf))
    for (int k = 0; k < 9; k++) e->epsil[k] = buf[k];
  d1[0] = 3;
  for (int g = 0; g < 2; g++) {
    PetscInt *n = g ? e->qc : e->kc;
    if (ReadData(&rd, g ? "basic_data/qc_dim" : "basic_data/kc_dim", H5T_INTEGER, 1, d1, g ? "the coarse q grid" : "the coarse k grid", i3)) break;
    if (i3[0] < 1 || i3[1] < 1 || i3[2] < 1 || i3[0] > 1000 || i3[1] > 1000 || i3[2] > 1000) BTEH5Fail(&rd.st, "%s: basic_data/%s = (%lld,%lld,%lld); expected a grid of 1..1000 points along each direction", file, g ? "qc_dim" : "kc_dim", i3[0], i3[1], i3[2]);
    for (int k = 0; k < 3; k++) n[k] = (PetscInt)i3[k];
  }
  if (!rd.st.bad) {
    /* alat is the unit of at and tau: a tiny one with a huge at (or the reverse) is no lattice of a crystal */
    if (!(e->alat >= BTE_EPR_LENGTH_MIN && e->alat <= BTE_EPR_LENGTH_MAX)) BTEH5Fail(&rd.st, "%s: basic_data/alat = %g bohr is out of range: expected a lattice parameter of [%g, %g] bohr", file, (double)e->alat, BTE_EPR_LENGTH_MIN, BTE_EPR_LENGTH_MAX);
    /* 1 bohr^3 is far below any crystal's cell (diamond: 76), 1e9 far above; a cell outside makes no k grid */
    if (!(e->volume >= 1 && e->volume <= 1e9)) BTEH5Fail(&rd.st, "%s: basic_data/volume = %g bohr^3 is out of range: expected a cell of [1, 1e9] bohr^3", file, (double)e->volume);
  }
  if (!rd.st.bad) {
    /* at and volume must agree: catches a transposed or damaged lattice */
    const PetscReal *a = e->at;
    PetscReal        det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
    PetscReal        V   = PetscAbsReal(det) * e->alat * e->alat * e->alat;
    if (!(PetscAbsReal(V - e->volume) <= 1e-4 * e->volume)) BTEH5Fail(&rd.st, "%s: basic_data/volume = %g bohr^3 disagrees with |det(at)| alat^3 = %g bohr^3", file, (double)e->volume, (double)V);
    /* bg . at^T = identity */
    for (int i = 0; i < 3 && !rd.st.bad; i++)
      for (int j = 0; j < 3; j++) {
        PetscReal s = e->bg[3 * i] * a[3 * j] + e->bg[3 * i + 1] * a[3 * j + 1] + e->bg[3 * i + 2] * a[3 * j + 2];
        if (PetscAbsReal(s - (i == j)) > 1e-5) {
          BTEH5Fail(&rd.st, "%s: basic_data/bg is not the reciprocal of basic_data/at (b_%d . a_%d = %g)", file, i + 1, j + 1, (double)s);
          break;
        }
      }
  }
  PetscCall(Raise(comm, &rd));
  PetscCall(PetscMalloc5(3 * e->nat, &e->tau, e->nat, &e->mass, 3 * e->nw, &e->wc, 9 * e->nat, &e->zstar, 3 * e->nw, &e->wcc));
  {
    double *t;
    PetscCall(PetscMalloc1(9 * e->nat + 3 * e->nw + 3, &t));
    d2[0] = e->nat;
    d2[1] = 3;
    if (!ReadData(&rd, "basic_data/tau", H5T_FLOAT, 2, d2, "one row per atom", t))
      for (PetscInt k = 0; k < 3 * e->nat; k++) e->tau[k] = t[k];
    d1[0] = e->nat;
    if (!ReadData(&rd, "basic_data/mass", H5T_FLOAT, 1, d1, "one mass per atom", t))
      for (PetscInt k = 0; k < e->nat; k++) e->mass[k] = t[k];
    d2[0] = e->nw;
    if (!ReadData(&rd, "basic_data/wannier_center_cryst", H5T_FLOAT, 2, d2, "one row per Wannier function", t))
      for (PetscInt k = 0; k < 3 * e->nw; k++) e->wcc[k] = t[k];
    if (BTEH5Exists(rd.f, "basic_data/wannier_center")) {
      if (!ReadData(&rd, "basic_data/wannier_center", H5T_FLOAT, 2, d2, "one row per Wannier function", t))
        for (PetscInt k = 0; k < 3 * e->nw; k++) e->wc[k] = t[k];
    } else {
      for (PetscInt w = 0; w < e->nw; w++)
        for (int c = 0; c < 3; c++) e->wc[3 * w + c] = e->wcc[3 * w] * e->at[c] + e->wcc[3 * w + 1] * e->at[3 + c] + e->wcc[3 * w + 2] * e->at[6 + c];
    }
    d3[0] = e->nat;
    d3[1] = d3[2] = 3;
    if (!ReadData(&rd, "basic_data/zstar", H5T_FLOAT, 3, d3, "one tensor per atom", t))
      for (PetscInt k = 0; k < 9 * e->nat; k++) e->zstar[k] = t[k];
    PetscCall(PetscFree(t));
  }
  /* the masses scale every phonon frequency as 1/sqrt(M): masses of 1e300 made them all ~0 and
     still gave a table, and masses written in amu instead of Rydberg mass units one with phonons
     30 times too high */
  for (PetscInt a = 0; a < e->nat && !rd.st.bad; a++)
    if (!(e->mass[a] >= BTE_EPR_MASS_MIN * AMU_RY && e->mass[a] <= BTE_EPR_MASS_MAX * AMU_RY))
      BTEH5Fail(&rd.st, "%s: basic_data/mass of atom %" PetscInt_FMT " is %g Rydberg mass units (%g amu); expected [%g, %g] amu, [%g, %g] in the file's units (%g per amu)", file, a + 1, (double)e->mass[a], (double)(e->mass[a] / AMU_RY), BTE_EPR_MASS_MIN, BTE_EPR_MASS_MAX, BTE_EPR_MASS_MIN * AMU_RY, BTE_EPR_MASS_MAX * AMU_RY, AMU_RY);
  /* flags and polar parameters: optional in older files */
  e->spinor = PETSC_FALSE;
  if (BTEH5Exists(rd.f, "basic_data/spinor") && !ReadScalarInt(&rd, "basic_data/spinor", &iv)) e->spinor = iv ? PETSC_TRUE : PETSC_FALSE;
  e->sys2d = PETSC_FALSE;
  if (BTEH5Exists(rd.f, "basic_data/system_2d") && !ReadScalarInt(&rd, "basic_data/system_2d", &iv)) e->sys2d = iv ? PETSC_TRUE : PETSC_FALSE;
  e->thickness2d = -1;
  if (e->sys2d && BTEH5Exists(rd.f, "basic_data/thickness_2d") && !ReadScalarReal(&rd, "basic_data/thickness_2d", &x)) e->thickness2d = x;
  e->polar_alpha = 1.0;
  if (BTEH5Exists(rd.f, "basic_data/polar_alpha") && !ReadScalarReal(&rd, "basic_data/polar_alpha", &x)) e->polar_alpha = x;
  e->loto_alpha = 1.0;
  if (BTEH5Exists(rd.f, "basic_data/loto_alpha") && !ReadScalarReal(&rd, "basic_data/loto_alpha", &x)) e->loto_alpha = x;
  if (BTEH5Exists(rd.f, "basic_data/lpolar")) {
    if (!ReadScalarInt(&rd, "basic_data/lpolar", &iv)) e->polar = iv > 0 ? PETSC_TRUE : PETSC_FALSE;
  } else {
    PetscReal s = 0;
    for (PetscInt k = 0; k < 9 * e->nat; k++) s += PetscAbsReal(e->zstar[k]);
    e->polar = s > 0.1 ? PETSC_TRUE : PETSC_FALSE; /* Perturbo's rule for files without lpolar */
  }
  if (!rd.st.bad && e->polar) {
    /* the long-range terms scale as Z*^2 / eps: Born charges of 1e100 or an epsilon of 1e300 are no
       material's (unused, and not checked, in a non-polar file) */
    for (PetscInt k = 0; k < 9 * e->nat; k++)
      if (!(PetscAbsReal(e->zstar[k]) <= BTE_EPR_ZSTAR_MAX)) {
        BTEH5Fail(&rd.st, "%s: basic_data/zstar of atom %" PetscInt_FMT " has a component of %g; expected Born effective charges |Z*_ij| <= %g", file, k / 9 + 1, (double)e->zstar[k], BTE_EPR_ZSTAR_MAX);
        break;
      }
    for (int i = 0; i < 3 && !rd.st.bad; i++)
      if (!(e->epsil[4 * i] >= BTE_EPR_EPSIL_MIN && e->epsil[4 * i] <= BTE_EPR_EPSIL_MAX)) BTEH5Fail(&rd.st, "%s: basic_data/epsil has a diagonal element eps_%d%d = %g; expected [%g, %g] for the high-frequency dielectric tensor of a polar material", file, i + 1, i + 1, (double)e->epsil[4 * i], BTE_EPR_EPSIL_MIN, BTE_EPR_EPSIL_MAX);
  }
  if (!rd.st.bad && e->polar && !(e->polar_alpha > 1e-12 && e->loto_alpha > 1e-12)) BTEH5Fail(&rd.st, "%s: polar_alpha (%g) and loto_alpha (%g) must be positive", file, (double)e->polar_alpha, (double)e->loto_alpha);
  if (!rd.st.bad && e->polar) {
    /* the long-range terms need a symmetric, positive-definite epsilon */
    const PetscReal *m = e->epsil;
    PetscReal        d1 = m[0], d2 = m[0] * m[4] - m[1] * m[3], d3 = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    PetscReal        asym = PetscMax(PetscMax(PetscAbsReal(m[1] - m[3]), PetscAbsReal(m[2] - m[6])), PetscAbsReal(m[5] - m[7]));
    if (asym > 1e-6 * PetscMax(PetscAbsReal(m[0]), 1.0) || !(d1 > 0 && d2 > 0 && d3 > 0)) BTEH5Fail(&rd.st, "%s: basic_data/epsil is not a symmetric positive-definite dielectric tensor, which the long-range terms of a polar material need", file);
  }
  if (!rd.st.bad && e->sys2d) {
    /* Perturbo's 2D conventions: the layer in the xy plane, a3 along z; a positive thickness */
    const PetscReal *a = e->at;
    PetscReal        l3 = PetscSqrtReal(a[6] * a[6] + a[7] * a[7] + a[8] * a[8]);
    if (PetscAbsReal(a[2]) > 1e-6 * l3 || PetscAbsReal(a[5]) > 1e-6 * l3 || PetscAbsReal(a[6]) > 1e-6 * l3 || PetscAbsReal(a[7]) > 1e-6 * l3) BTEH5Fail(&rd.st, "%s: a 2D material (system_2d) must have a1, a2 in the xy plane and a3 along z (Perturbo's convention); basic_data/at does not", file);
    else if (BTEH5Exists(rd.f, "basic_data/thickness_2d") && !(e->thickness2d > 0)) BTEH5Fail(&rd.st, "%s: basic_data/thickness_2d = %g bohr must be positive", file, (double)e->thickness2d);
    /* the e-ph screening length has c / thickness: one of 5e-324 overflowed it, and a table was written */
    else if (BTEH5Exists(rd.f, "basic_data/thickness_2d") && !(e->thickness2d >= BTE_EPR_LENGTH_MIN && e->thickness2d <= BTE_EPR_LENGTH_MAX))
      BTEH5Fail(&rd.st, "%s: basic_data/thickness_2d = %g bohr is out of range: expected a layer thickness of [%g, %g] bohr", file, (double)e->thickness2d, BTE_EPR_LENGTH_MIN, BTE_EPR_LENGTH_MAX);
  }
  if (!rd.st.bad && e->polar) {
    /* the long-range sums run over a box of reciprocal vectors that grows as sqrt(alpha / eps)
       (BTEEprGRange); a huge alpha or a tiny eps would take more memory and time than any machine has */
    for (int t = 0; t < 2 && !rd.st.bad; t++) {
      PetscInt  nrx[3];
      PetscReal alpha = t ? e->loto_alpha : e->polar_alpha;
      BTEEprGRange(e, alpha, nrx);
      if (!((2.0 * nrx[0] + 1) * (2.0 * nrx[1] + 1) * (2.0 * nrx[2] + 1) <= 1e6)) BTEH5Fail(&rd.st, "%s: basic_data/%s = %g with this epsil and lattice would make the long-range sums run over more than 1e6 reciprocal vectors (Perturbo's default is 1)", file, t ? "loto_alpha" : "polar_alpha", (double)alpha);
    }
  }
  CheckGridData(&rd, e->kc, "kc_dim", "electron_wannier/hopping_r1");
  CheckGridData(&rd, e->qc, "qc_dim", "force_constant/ifc1");
  PetscCall(Raise(comm, &rd));
  e->lr_eph = e->polar;
  e->lr_ph  = e->polar;
  PetscCall(BTEEprSetUpLR(e));

  /* Images of the two coarse grids; crystal coordinates of the atoms */
  PetscCall(ImagesCreate(e->at, e->kc, &imk));
  PetscCall(ImagesCreate(e->at, e->qc, &imq));
  {
    PetscReal *ct;
    PetscInt   nw = e->nw, na = e->nat, nh = nw * (nw + 1) / 2, nf = na * (na + 1) / 2, ne = na * nw * nw;
    PetscInt **sel, *n, tot;
    PetscCall(PetscMalloc1(3 * na, &ct));
    /* crystal = bg . cart (b_i . a_j = delta_ij) */
    for (PetscInt a = 0; a < na; a++)
      for (int i = 0; i < 3; i++) ct[3 * a + i] = e->bg[3 * i] * e->tau[3 * a] + e->bg[3 * i + 1] * e->tau[3 * a + 1] + e->bg[3 * i + 2] * e->tau[3 * a + 2];
    e->ctau = ct;

    /* H(R): pairs iw <= jw, jw outer */
    PetscCall(PetscMalloc2(nh, &sel, nh + 1, &n));
    {
      PetscInt m = 0;
      for (PetscInt jw = 0; jw < nw; jw++)
        for (PetscInt iw = 0; iw <= jw; iw++, m++) PetscCall(WSSelect(e->at, &imk, &e->wcc[3 * iw], &e->wcc[3 * jw], &n[m], &sel[m], NULL));
    }
    PetscCall(PetscMalloc1(nh + 1, &e->hoff));
    e->hoff[0] = 0;
    for (PetscInt m = 0; m < nh; m++) e->hoff[m + 1] = e->hoff[m] + n[m];
    tot = e->hoff[nh];
    PetscCall(PetscMalloc3(tot, &e->hidx, tot, &e->hval_re, tot, &e->hval_im));
    PetscCall(UnionSet(&imk, nh, sel, n, &e->hR, e->hidx));
    for (PetscInt m = 0; m < nh; m++) {
      char suf[32];
      d1[0] = (hsize_t)n[m];
      snprintf(suf, sizeof(suf), "%" PetscInt_FMT, m + 1);
      ReadComplexPair(&rd, "electron_wannier/hopping_r", "electron_wannier/hopping_i", suf, 1, d1, "one entry per Wigner-Seitz vector of this Wannier pair on kc_dim (a different count means kc_dim or wannier_center_cryst do not match the data)", e->hval_re + e->hoff[m], e->hval_im + e->hoff[m]);
      /* energies of 1e30 Ry would make a window that rounds to a single value: bounded far above any band structure's */
      for (PetscInt t = e->hoff[m]; t < e->hoff[m + 1] && !rd.st.bad; t++)
        if (!(PetscAbsReal(e->hval_re[t]) <= BTE_EPR_HOPPING_MAX && PetscAbsReal(e->hval_im[t]) <= BTE_EPR_HOPPING_MAX))
          BTEH5Fail(&rd.st, "%s: electron_wannier/hopping_%c%s has an entry of %g Ry at position %" PetscInt_FMT "; expected |H(R)| <= %g Ry (13.6 keV)", file, PetscAbsReal(e->hval_re[t]) <= BTE_EPR_HOPPING_MAX ? 'i' : 'r', suf, (double)(PetscAbsReal(e->hval_re[t]) <= BTE_EPR_HOPPING_MAX ? e->hval_im[t] : e->hval_re[t]), t - e->hoff[m], BTE_EPR_HOPPING_MAX);
      PetscCall(PetscFree(sel[m]));
    }
    PetscCall(PetscFree2(sel, n));
    if (!rd.st.bad) PetscCall(CheckHermitian(e, &rd));
    PetscCall(Raise(comm, &rd));

    /* force constants: atom pairs ia <= ja, ja outer; ifc{m} (nr,3,3) */
    PetscCall(PetscMalloc2(nf, &sel, nf + 1, &n));
    {
      PetscInt m = 0;
      for (PetscInt ja = 0; ja < na; ja++)
        for (PetscInt ia = 0; ia <= ja; ia++, m++) PetscCall(WSSelect(e->at, &imq, &ct[3 * ia], &ct[3 * ja], &n[m], &sel[m], NULL));
    }
    PetscCall(PetscMalloc1(nf + 1, &e->foff));
    e->foff[0] = 0;
    for (PetscInt m = 0; m < nf; m++) e->foff[m + 1] = e->foff[m] + n[m];
    tot = e->foff[nf];
    PetscCall(PetscMalloc2(tot, &e->fidx, 9 * tot, &e->fval));
    PetscCall(UnionSet(&imq, nf, sel, n, &e->fR, e->fidx));
    for (PetscInt m = 0; m < nf; m++) {
      char p[64];
      d3[0] = (hsize_t)n[m];
      d3[1] = d3[2] = 3;
      snprintf(p, sizeof(p), "force_constant/ifc%" PetscInt_FMT, m + 1);
      if (!ReadData(&rd, p, H5T_FLOAT, 3, d3, "(nr,3,3) with nr the Wigner-Seitz vectors of this atom pair on qc_dim (a different nr means qc_dim or tau do not match the data)", e->fval + 9 * e->foff[m])) {
        /* one entry with a flipped exponent (x 2^64, x 2^1024) gave a table without complaint */
        const PetscReal *c = e->fval + 9 * e->foff[m];
        for (PetscInt t = 0; t < 9 * n[m]; t++)
          if (!(PetscAbsReal(c[t]) <= BTE_EPR_IFC_MAX)) {
            BTEH5Fail(&rd.st, "%s: %s has an entry of %g Ry/bohr^2 at [%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT "]; expected force constants |C| <= %g Ry/bohr^2", file, p, (double)c[t], t / 9, (t / 3) % 3, t % 3, BTE_EPR_IFC_MAX);
            break;
          }
      }
      PetscCall(PetscFree(sel[m]));
    }
    PetscCall(PetscFree2(sel, n));
    if (!rd.st.bad) PetscCall(CheckForceConstants(e, &rd));
    PetscCall(Raise(comm, &rd));

    /* e-ph: element (ia, jw, iw), iw fastest; electron side on kc_dim, phonon side on qc_dim */
    {
      PetscInt **sele, **selp, *ne_, *np_, tote = 0, totp = 0, totd = 0;
      PetscCall(PetscMalloc4(ne, &sele, ne, &selp, ne, &ne_, ne, &np_));
      for (PetscInt a = 0; a < na; a++)
        for (PetscInt jw = 0; jw < nw; jw++)
          for (PetscInt iw = 0; iw < nw; iw++) {
            PetscInt el = (a * nw + jw) * nw + iw;
            PetscCall(WSSelect(e->at, &imk, &e->wcc[3 * iw], &e->wcc[3 * jw], &ne_[el], &sele[el], NULL));
            PetscCall(WSSelect(e->at, &imq, &e->wcc[3 * iw], &ct[3 * a], &np_[el], &selp[el], NULL));
          }
      PetscCall(PetscMalloc3(ne + 1, &e->eoff, ne + 1, &e->poff, ne + 1, &e->doff));
      e->eoff[0] = e->poff[0] = e->doff[0] = 0;
      for (PetscInt el = 0; el < ne; el++) {
        e->eoff[el + 1] = e->eoff[el] + ne_[el];
        e->poff[el + 1] = e->poff[el] + np_[el];
        e->doff[el + 1] = e->doff[el] + 3 * ne_[el] * np_[el];
      }
      tote = e->eoff[ne];
      totp = e->poff[ne];
      totd = e->doff[ne];
      PetscCall(PetscMalloc4(tote, &e->eidx, totp, &e->pidx, totd, &e->ep_re, totd, &e->ep_im));
      PetscCall(UnionSet(&imk, ne, sele, ne_, &e->eR, e->eidx));
      PetscCall(UnionSet(&imq, ne, selp, np_, &e->pR, e->pidx));
      for (PetscInt a = 0; a < na && !rd.st.bad; a++)
        for (PetscInt jw = 0; jw < nw; jw++)
          for (PetscInt iw = 0; iw < nw; iw++) {
            PetscInt el = (a * nw + jw) * nw + iw;
            char     suf[64];
            d3[0] = (hsize_t)np_[el];
            d3[1] = (hsize_t)ne_[el];
            d3[2] = 3;
            snprintf(suf, sizeof(suf), "%" PetscInt_FMT "_%" PetscInt_FMT "_%" PetscInt_FMT, a + 1, jw + 1, iw + 1);
            if (ReadComplexPair(&rd, "eph_matrix_wannier/ep_hop_r_", "eph_matrix_wannier/ep_hop_i_", suf, 3, d3, "(nrp,nre,3) with the Wigner-Seitz vectors of (centre iw, atom ia) on qc_dim and of (centre iw, centre jw) on kc_dim", e->ep_re + e->doff[el], e->ep_im + e->doff[el])) continue;
            /* a flipped exponent was refused only by the table's |g|^2 bound, without the dataset, or
               (x 2^32 in a 2D file) gave a table */
            for (int part = 0; part < 2 && !rd.st.bad; part++) {
              const PetscReal *g = (part ? e->ep_im : e->ep_re) + e->doff[el];
              for (PetscInt t = 0; t < 3 * ne_[el] * np_[el]; t++)
                if (!(PetscAbsReal(g[t]) <= BTE_EPR_EPH_MAX)) {
                  BTEH5Fail(&rd.st, "%s: eph_matrix_wannier/ep_hop_%c_%s has an entry of %g Ry/bohr at [%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT "]; expected e-ph couplings |g(Re,Rp)| <= %g Ry/bohr", file, part ? 'i' : 'r', suf, (double)g[t], t / (3 * ne_[el]), (t / 3) % ne_[el], t % 3, BTE_EPR_EPH_MAX);
                  break;
                }
            }
          }
      for (PetscInt el = 0; el < ne; el++) {
        PetscCall(PetscFree(sele[el]));
        PetscCall(PetscFree(selp[el]));
      }
      PetscCall(PetscFree4(sele, selp, ne_, np_));
    }
    PetscCall(Raise(comm, &rd));
  }
  PetscCall(ImagesDestroy(&imk));
  PetscCall(ImagesDestroy(&imq));
  H5Fclose(rd.f);
  BTEH5Restore(&save);
  *out = e;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprDestroy(BTEEpr *ep)
{
  BTEEpr e = *ep;

  PetscFunctionBegin;
  if (!e) PetscFunctionReturn(0);
  PetscCall(PetscFree5(e->tau, e->mass, e->wc, e->zstar, e->wcc));
  PetscCall(PetscFree(e->ctau));
  PetscCall(PetscFree(e->onsite));
  PetscCall(PetscFree(e->hoff));
  PetscCall(PetscFree3(e->hidx, e->hval_re, e->hval_im));
  PetscCall(PetscFree(e->hR.R));
  PetscCall(PetscFree(e->foff));
  PetscCall(PetscFree2(e->fidx, e->fval));
  PetscCall(PetscFree(e->fR.R));
  PetscCall(PetscFree3(e->eoff, e->poff, e->doff));
  PetscCall(PetscFree4(e->eidx, e->pidx, e->ep_re, e->ep_im));
  PetscCall(PetscFree(e->eR.R));
  PetscCall(PetscFree(e->pR.R));
  PetscCall(PetscFree(e));
  *ep = NULL;
  PetscFunctionReturn(0);
}
