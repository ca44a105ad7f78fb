/* HDF5 scattering-table reader and validator (layout: docs/format.md).

   Rank 0 opens the file and validates its header (attributes, groups, dataset
   types and shapes) and broadcasts it, so every rank raises the same error.
   Every rank then reads its own block of states, and a contiguous 1/P share of
   the channel rows in steps of -bte_io_chunk rows; each channel goes to the
   owners of its two ends (MPI_Alltoallv per step). A first pass over i and j
   counts what each rank will hold, so the channel arrays are allocated once,
   at their final size, after a memory check. One rank reads straight into its
   arrays. No rank ever holds the whole channel list.

   Counting only (BTESetLoadChannels: PETSC_BOOL3_FALSE, or UNKNOWN when the channels
   do not fit in memory): the states are read, the channel arrays are not; on one
   rank the count is M, on several the first pass gives each rank's count. */
#include <bte/private/validate.h>
#include <bte/private/h5util.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BYTES_PER_CHANNEL ((PetscLogDouble)(3 * sizeof(PetscInt) + 2 * sizeof(PetscReal)))
#define BYTES_PER_STATE   ((PetscLogDouble)(2 * sizeof(PetscInt) + 4 * sizeof(PetscReal)))

/* What rank 0 learns from the file's metadata, broadcast to all ranks. */
typedef struct {
  BTEGrid     grid;
  long long   nbands, nmodes, spin, carrier, N, M;
  double      emin, emax, smearing, g2_cutoff, phonon_min, tol_eta, temperature;
  int         has_g2_cutoff, has_phonon_min, has_tol_eta, has_temperature, has_delta;
  int         delta; /* BTEDelta, when has_delta */
  BTEParams   params;
  char        source[512];
  char        caveat[512], fieldcaveat[2][512]; /* a model's warnings (optional root attributes) */
  double      fieldcaveat_min[2];
  BTEH5Status st;
} Header;

/* ------------------------------------------------------------------------- */
/* Header (rank 0)                                                           */

static int HasHDF5Signature(const char file[], long long size)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char              buf[8];
  FILE                      *fp = fopen(file, "rb");
  int                        found = 0;

  if (!fp) return 0;
  /* the superblock sits at 0, 512, 1024, 2048, ... (after an optional user block) */
  for (long long off = 0; off + 8 <= size && !found; off = off ? 2 * off : 512) {
    if (fseek(fp, (long)off, SEEK_SET) || fread(buf, 1, 8, fp) != 8) break;
    found = !memcmp(buf, sig, 8);
  }
  fclose(fp);
  return found;
}

static int HeaderOpen(const char file[], hid_t *f, BTEH5Status *st)
{
  struct stat sb;
  char        m[256];

  *f = -1;
  if (stat(file, &sb)) return BTEH5Fail(st, "cannot open it: %s. Check the path given to -bte_input", strerror(errno));
  if (S_ISDIR(sb.st_mode)) return BTEH5Fail(st, "it is a directory; -bte_input expects an HDF5 scattering table file (docs/format.md)");
  if (BTEH5CheckRegularFile(file, st)) return -1; /* a FIFO or device: HDF5 would block on it */
  if (access(file, R_OK)) return BTEH5Fail(st, "cannot read it: %s. Check its permissions", strerror(errno));
  *f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*f >= 0) return 0;
  BTEH5StackMessage(m, sizeof(m));
  if (!HasHDF5Signature(file, (long long)sb.st_size))
    return BTEH5Fail(st, "it is not an HDF5 file (no HDF5 signature in its %lld bytes). -bte_input expects a bte scattering table in HDF5 (docs/format.md): make one with 'bte generate' or convert your data", (long long)sb.st_size);
  return BTEH5Fail(st, "HDF5 cannot open it (HDF5: %s). The file is truncated or damaged (an interrupted write or copy?), or in use by another program; copy it again or regenerate it", m);
}

static int CheckFiniteArray(const char what[], const PetscReal *v, int n, BTEH5Status *st)
{
  for (int k = 0; k < n; k++)
    if (PetscIsInfOrNanReal(v[k])) return BTEH5Fail(st, "%s has a non-finite entry (%g); the file is corrupt", what, (double)v[k]);
  return 0;
}

static int ReadGrid(hid_t f, Header *h, BTEH5Status *st)
{
  hsize_t    d[2];
  long long  nk[3], dim;
  double     vol, det;
  PetscReal *a = h->grid.lattice, *b = h->grid.reciprocal, c[3];

  if (!BTEH5Exists(f, "/grid")) return BTEH5Fail(st, "group /grid is missing (required by docs/format.md)");
  if (BTEH5DatasetShape(f, "/grid/lattice", H5T_FLOAT, 2, "[3][3]", d, st)) return -1;
  if (d[0] != 3 || d[1] != 3) return BTEH5Fail(st, "dataset /grid/lattice has shape [%llu][%llu]; expected [3][3] (rows a1, a2, a3 in Angstrom)", (unsigned long long)d[0], (unsigned long long)d[1]);
  if (BTEH5CheckUnits(f, "/grid/lattice", "units", "Angstrom", "multiply bohr by 0.529177210903", st)) return -1;
  if (BTEH5DatasetShape(f, "/grid/reciprocal", H5T_FLOAT, 2, "[3][3]", d, st)) return -1;
  if (d[0] != 3 || d[1] != 3) return BTEH5Fail(st, "dataset /grid/reciprocal has shape [%llu][%llu]; expected [3][3] (rows b1, b2, b3 in 1/Angstrom)", (unsigned long long)d[0], (unsigned long long)d[1]);
  if (BTEH5CheckUnits(f, "/grid/reciprocal", "units", "1/Angstrom", NULL, st)) return -1;
  if (BTEH5DatasetShape(f, "/grid/nk", H5T_INTEGER, 1, "[3]", d, st)) return -1;
  if (d[0] != 3) return BTEH5Fail(st, "dataset /grid/nk has %llu entries; expected 3 (k points along b1, b2, b3)", (unsigned long long)d[0]);
  if (BTEH5ReadRows(f, "/grid/lattice", BTE_H5_NATIVE_REAL, 0, 3, 3, a, st)) return -1;
  if (BTEH5ReadRows(f, "/grid/reciprocal", BTE_H5_NATIVE_REAL, 0, 3, 3, b, st)) return -1;
  if (BTEH5ReadRows(f, "/grid/nk", H5T_NATIVE_LLONG, 0, 3, 0, nk, st)) return -1;
  if (BTEH5ReadAttrInt(f, "/grid", "dim", &dim, st)) return -1;
  if (BTEH5ReadAttrReal(f, "/grid", "volume", &vol, st)) return -1;
  if (dim != 2 && dim != 3) return BTEH5Fail(st, "/grid attribute dim = %lld; expected 2 or 3", dim);
  if (BTEH5CheckUnits(f, "/grid", "volume_units", dim == 2 ? "Angstrom^2" : "Angstrom^3", NULL, st)) return -1;
  for (int k = 0; k < 3; k++) {
    if (nk[k] < 1) return BTEH5Fail(st, "grid dimension /grid/nk[%d] = %lld is less than 1; every direction needs at least one k point", k, nk[k]);
    if (nk[k] > PETSC_MAX_INT) return BTEH5Fail(st, "grid dimension /grid/nk[%d] = %lld is too large", k, nk[k]);
  }
  if (dim == 2 && nk[2] != 1) return BTEH5Fail(st, "a 2D grid (dim = 2) needs /grid/nk[2] = 1, got %lld", nk[2]);
  /* The k-point count nk0 nk1 nk2 normalises every sum over the zone (the collision prefactor 1/Nq,
     densities 1/(V Nk)) and is kept in 64-bit integers: bound it before anything multiplies it out
     (three nk of 2^31-1 overflow 64 bits). 2^53 also keeps it exact in double. */
  if ((double)nk[0] * (double)nk[1] * (double)nk[2] > 9007199254740992.0) return BTEH5Fail(st, "grid /grid/nk = %lld x %lld x %lld has %.4g k points, more than 2^53 (about 9.0e15) that bte can count exactly; the table is corrupt or the grid too large", nk[0], nk[1], nk[2], (double)nk[0] * (double)nk[1] * (double)nk[2]);
  if (CheckFiniteArray("dataset /grid/lattice", a, 9, st) || CheckFiniteArray("dataset /grid/reciprocal", b, 9, st)) return -1;
  if (PetscIsInfOrNanReal((PetscReal)vol) || !(vol > 0)) return BTEH5Fail(st, "/grid attribute volume = %g; expected a positive cell %s", vol, dim == 2 ? "area (Angstrom^2)" : "volume (Angstrom^3)");
  c[0] = a[4] * a[8] - a[5] * a[7];
  c[1] = a[5] * a[6] - a[3] * a[8];
  c[2] = a[3] * a[7] - a[4] * a[6];
  det  = PetscAbsReal(a[0] * c[0] + a[1] * c[1] + a[2] * c[2]);
  if (!(det > 0)) return BTEH5Fail(st, "the lattice vectors in /grid/lattice are linearly dependent");
  if (PetscAbsReal(vol - det) > 1e-6 * det) return BTEH5Fail(st, "/grid attribute volume = %.10g does not match the lattice (|a1.(a2 x a3)| = %.10g); check the units (Angstrom)", vol, det);
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 3; q++) {
      double dot = b[3 * p] * a[3 * q] + b[3 * p + 1] * a[3 * q + 1] + b[3 * p + 2] * a[3 * q + 2], want = p == q ? 2 * PETSC_PI : 0;
      if (PetscAbsReal(dot - want) > 1e-6 * 2 * PETSC_PI) return BTEH5Fail(st, "/grid/reciprocal does not match /grid/lattice: b%d . a%d = %g, expected %g (b_i . a_j = 2 pi delta_ij; reciprocal vectors in 1/Angstrom including the 2 pi)", p + 1, q + 1, dot, want);
    }
  h->grid.dim    = (PetscInt)dim;
  h->grid.volume = (PetscReal)vol;
  for (int k = 0; k < 3; k++) h->grid.nk[k] = (PetscInt)nk[k];
  return 0;
}

static int ReadStatesHeader(hid_t f, Header *h, BTEH5Status *st)
{
  static const char *names[] = {"/states/kindex", "/states/band", "/states/energy", "/states/velocity"};
  hsize_t            d[2];
  char               carrier[64];

  if (!BTEH5Exists(f, "/states")) return BTEH5Fail(st, "group /states is missing (required by docs/format.md)");
  if (BTEH5ReadAttrInt(f, "/states", "nbands", &h->nbands, st)) return -1;
  if (h->nbands < 1 || h->nbands > PETSC_MAX_INT) return BTEH5Fail(st, "/states attribute nbands = %lld; expected at least 1", h->nbands);
  if (BTEH5ReadAttrInt(f, "/states", "spin_degeneracy", &h->spin, st)) return -1;
  if (h->spin != 1 && h->spin != 2) return BTEH5Fail(st, "/states attribute spin_degeneracy = %lld; expected 2 (no spin-orbit) or 1 (with spin-orbit)", h->spin);
  if (BTEH5ReadAttrString(f, "/states", "carrier", carrier, sizeof(carrier), st)) return -1;
  if (!strcmp(carrier, "electrons")) h->carrier = -1;
  else if (!strcmp(carrier, "holes")) h->carrier = 1;
  else return BTEH5Fail(st, "/states attribute carrier = '%s'; expected 'electrons' or 'holes'", carrier);
  if (BTEH5ReadAttrReal(f, "/states", "window_min", &h->emin, st)) return -1;
  if (BTEH5ReadAttrReal(f, "/states", "window_max", &h->emax, st)) return -1;
  if (BTEH5CheckUnits(f, "/states", "window_min_units", "eV", NULL, st) || BTEH5CheckUnits(f, "/states", "window_max_units", "eV", NULL, st)) return -1;
  if (!(h->emin < h->emax)) return BTEH5Fail(st, "/states attributes window_min = %g, window_max = %g: expected window_min < window_max (eV)", h->emin, h->emax);
  for (int k = 0; k < 4; k++) {
    if (BTEH5DatasetShape(f, names[k], k < 2 ? H5T_INTEGER : H5T_FLOAT, k == 3 ? 2 : 1, k == 3 ? "[N][3]" : "[N]", d, st)) return -1;
    if (k == 0) h->N = (long long)d[0];
    else if ((long long)d[0] != h->N || (k == 3 && d[1] != 3)) {
      if (k == 3) return BTEH5Fail(st, "dataset /states/velocity has shape [%llu][%llu]; expected [%lld][3] (N = length of /states/kindex)", (unsigned long long)d[0], (unsigned long long)d[1], h->N);
      return BTEH5Fail(st, "dataset %s has length %llu but /states/kindex has %lld; all /states datasets need the same length N", names[k], (unsigned long long)d[0], h->N);
    }
  }
  if (BTEH5CheckUnits(f, "/states/energy", "units", "eV", "multiply Ry by 13.605693123", st)) return -1;
  if (BTEH5CheckUnits(f, "/states/velocity", "units", "Angstrom/fs", NULL, st)) return -1;
  if (h->N < 1) return BTEH5Fail(st, "the table has no states (/states datasets are empty); widen the energy window when making it");
  if (h->N > PETSC_MAX_INT) return BTEH5Fail(st, "the table has %lld states, more than this PETSc's PetscInt can index; use a PETSc configured --with-64-bit-indices", h->N);
  return 0;
}

static int ReadChannelsHeader(hid_t f, Header *h, BTEH5Status *st)
{
  static const char *names[] = {"/channels/i", "/channels/j", "/channels/mode", "/channels/phonon_energy", "/channels/g2"};
  hsize_t            d[1];

  if (!BTEH5Exists(f, "/phonons")) return BTEH5Fail(st, "group /phonons is missing (required by docs/format.md)");
  if (BTEH5ReadAttrInt(f, "/phonons", "nmodes", &h->nmodes, st)) return -1;
  if (h->nmodes < 1 || h->nmodes > PETSC_MAX_INT) return BTEH5Fail(st, "/phonons attribute nmodes = %lld; expected at least 1", h->nmodes);
  if (!BTEH5Exists(f, "/channels")) return BTEH5Fail(st, "group /channels is missing (required by docs/format.md)");
  for (int k = 0; k < 5; k++) {
    if (BTEH5DatasetShape(f, names[k], k < 3 ? H5T_INTEGER : H5T_FLOAT, 1, "[M]", d, st)) return -1;
    if (k == 0) h->M = (long long)d[0];
    else if ((long long)d[0] != h->M) return BTEH5Fail(st, "dataset %s has length %llu but /channels/i has %lld; all /channels datasets need the same length M", names[k], (unsigned long long)d[0], h->M);
  }
  if (BTEH5CheckUnits(f, "/channels/phonon_energy", "units", "eV", "multiply Ry by 13.605693123", st)) return -1;
  if (BTEH5CheckUnits(f, "/channels/g2", "units", "eV^2", "multiply Perturbo's eph_g2 (Ry^2) by 13.605693123^2", st)) return -1;
  if (BTEH5ReadAttrReal(f, "/channels", "smearing", &h->smearing, st)) return -1;
  if (BTEH5CheckUnits(f, "/channels", "smearing_units", "eV", NULL, st)) return -1;
  if (PetscIsInfOrNanReal((PetscReal)h->smearing) || !(h->smearing > 0)) return BTEH5Fail(st, "/channels attribute smearing = %g; expected a positive energy (eV)", h->smearing);
  if (!(h->smearing >= BTE_SMEARING_MIN && h->smearing <= BTE_SMEARING_MAX)) return BTEH5Fail(st, "/channels attribute smearing = %g eV is outside [%g, %g] eV", h->smearing, (double)BTE_SMEARING_MIN, (double)BTE_SMEARING_MAX);
  if ((h->has_g2_cutoff = BTEH5AttrExists(f, "/channels", "g2_cutoff"))) {
    if (BTEH5ReadAttrReal(f, "/channels", "g2_cutoff", &h->g2_cutoff, st) || BTEH5CheckUnits(f, "/channels", "g2_cutoff_units", "eV^2", NULL, st)) return -1;
    if (PetscIsInfOrNanReal((PetscReal)h->g2_cutoff) || h->g2_cutoff < 0) return BTEH5Fail(st, "/channels attribute g2_cutoff = %g; expected >= 0 (eV^2)", h->g2_cutoff);
  }
  if ((h->has_phonon_min = BTEH5AttrExists(f, "/channels", "phonon_min"))) {
    if (BTEH5ReadAttrReal(f, "/channels", "phonon_min", &h->phonon_min, st) || BTEH5CheckUnits(f, "/channels", "phonon_min_units", "eV", NULL, st)) return -1;
    if (PetscIsInfOrNanReal((PetscReal)h->phonon_min) || h->phonon_min < 0) return BTEH5Fail(st, "/channels attribute phonon_min = %g; expected >= 0 (eV)", h->phonon_min);
  }
  if ((h->has_tol_eta = BTEH5AttrExists(f, "/channels", "energy_tolerance"))) {
    if (BTEH5ReadAttrReal(f, "/channels", "energy_tolerance", &h->tol_eta, st) || BTEH5CheckUnits(f, "/channels", "energy_tolerance_units", "eta", NULL, st)) return -1;
    if (PetscIsInfOrNanReal((PetscReal)h->tol_eta) || !(h->tol_eta > 0)) return BTEH5Fail(st, "/channels attribute energy_tolerance = %g; expected > 0 (in units of the smearing eta)", h->tol_eta);
  }
  if ((h->has_delta = BTEH5AttrExists(f, "/channels", "delta"))) { /* tables before it: Perturbo's */
    char name[32];
    if (BTEH5ReadAttrString(f, "/channels", "delta", name, sizeof(name), st)) return -1;
    h->delta = -1;
    for (int d = BTE_DELTA_PERTURBO; d <= BTE_DELTA_BALANCED; d++)
      if (!strcmp(name, BTEDeltas[d])) h->delta = d;
    if (h->delta < 0) return BTEH5Fail(st, "/channels attribute delta = '%s'; expected perturbo or balanced", name);
  }
  return 0;
}

typedef struct {
  hid_t        g;
  BTEParams   *p;
  BTEH5Status *st;
} ParamCtx;

static herr_t ParamIter(hid_t g, const char *name, const H5A_info_t *info, void *ctx)
{
  ParamCtx   *c = (ParamCtx *)ctx;
  BTEParams  *p = c->p;
  size_t      n = strlen(name);
  hid_t       a, t;
  H5T_class_t cls;
  char        un[128];
  double      v;

  (void)info;
  if (!strcmp(name, "name") || (n > 6 && !strcmp(name + n - 6, "_units"))) return 0;
  a = H5Aopen(g, name, H5P_DEFAULT);
  if (a < 0) return BTEH5Fail(c->st, "attribute '%s' of /model cannot be opened; the file is damaged", name);
  t   = H5Aget_type(a);
  cls = H5Tget_class(t);
  H5Tclose(t);
  H5Aclose(a);
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) return 0; /* other attributes are documentation */
  if (p->n >= BTE_MAX_PARAMS) return BTEH5Fail(c->st, "/model has more than %d parameters", BTE_MAX_PARAMS);
  if (n >= sizeof(p->name[0])) return BTEH5Fail(c->st, "/model parameter name '%s' is longer than %d characters", name, (int)sizeof(p->name[0]) - 1);
  if (BTEH5ReadAttrReal(g, ".", name, &v, c->st)) return -1;
  snprintf(un, sizeof(un), "%s_units", name);
  p->unit[p->n][0] = 0;
  if (BTEH5AttrExists(g, ".", un)) {
    char u[128];
    if (BTEH5ReadAttrString(g, ".", un, u, sizeof(u), c->st)) return -1;
    if (strlen(u) >= sizeof(p->unit[0])) return BTEH5Fail(c->st, "/model attribute %s = '%s' is longer than %d characters", un, u, (int)sizeof(p->unit[0]) - 1);
    snprintf(p->unit[p->n], sizeof(p->unit[0]), "%s", u);
  }
  snprintf(p->name[p->n], sizeof(p->name[0]), "%s", name);
  p->value[p->n] = (PetscReal)v;
  p->n++;
  return 0;
}

static int ReadModel(hid_t f, Header *h, BTEH5Status *st)
{
  hid_t    g, gcpl;
  unsigned crt = 0;
  ParamCtx c;
  herr_t   e;

  if (!BTEH5Exists(f, "/model")) return 0; /* optional */
  g = H5Gopen2(f, "/model", H5P_DEFAULT);
  if (g < 0) return BTEH5Fail(st, "/model is not a group");
  gcpl = H5Gget_create_plist(g);
  if (gcpl >= 0) {
    H5Pget_attr_creation_order(gcpl, &crt);
    H5Pclose(gcpl);
  }
  c.g  = g;
  c.p  = &h->params;
  c.st = st;
  e    = H5Aiterate2(g, (crt & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME, H5_ITER_INC, NULL, ParamIter, &c);
  H5Gclose(g);
  if (e < 0 && !st->bad) BTEH5Fail(st, "cannot list the attributes of /model; the file is damaged");
  return st->bad ? -1 : 0;
}

static int ReadHeader(hid_t f, Header *h)
{
  BTEH5Status *st = &h->st;
  char         s[256];
  long long    v;

  if (!BTEH5AttrExists(f, "/", "format")) {
    /* one of bte's outputs given as a table: say which */
    const char *kind[3] = {"dynamics", "transport", "highfield"}, *cmd[3] = {"dynamics", "transport", "highfield"};
    for (int k = 0; k < 3; k++)
      if (BTEH5Exists(f, kind[k]) == 1) return BTEH5Fail(st, "it is the output of 'bte %s' (group /%s), not a scattering table: give the table that run read (its root attribute source or table_source names it), or make one with 'bte generate'", cmd[k], kind[k]);
    return BTEH5Fail(st, "it is an HDF5 file but not a bte scattering table: the root attribute 'format' is missing (expected format = '%s'). Make tables with 'bte generate', or convert data as described in docs/format.md", BTE_FORMAT_NAME);
  }
  if (BTEH5ReadAttrString(f, "/", "format", s, sizeof(s), st)) return -1;
  if (strcmp(s, BTE_FORMAT_NAME)) return BTEH5Fail(st, "it is not a bte scattering table: root attribute format = '%s', expected '%s' (docs/format.md)", s, BTE_FORMAT_NAME);
  if (BTEH5ReadAttrInt(f, "/", "format_version", &v, st)) return -1;
  if (v != BTE_FORMAT_VERSION)
    return BTEH5Fail(st, "unsupported format_version = %lld: this bte (%d.%d.%d) reads format version %d only. Use the bte version that wrote it, or regenerate the table", v, BTE_VERSION_MAJOR, BTE_VERSION_MINOR, BTE_VERSION_PATCH, BTE_FORMAT_VERSION);
  if (!BTEH5AttrExists(f, "/", "complete")) return BTEH5Fail(st, "the file is incomplete: the root attribute 'complete' is missing, so the program writing it was interrupted before it finished. Regenerate the table");
  if (BTEH5ReadAttrInt(f, "/", "complete", &v, st)) return -1;
  if (v != 1) return BTEH5Fail(st, "the file is incomplete (root attribute complete = %lld, not 1): the program writing it was interrupted. Regenerate the table", v);
  if (BTEH5AttrExists(f, "/", "source") && BTEH5ReadAttrString(f, "/", "source", h->source, sizeof(h->source), st)) return -1;
  if (BTEH5AttrExists(f, "/", "caveat") && BTEH5ReadAttrString(f, "/", "caveat", h->caveat, sizeof(h->caveat), st)) return -1;
  for (int k = 0; k < 2; k++) { /* field_caveat, field_caveat_2 */
    char name[32], nmin[40], nunits[48];
    snprintf(name, sizeof(name), "field_caveat%s", k ? "_2" : "");
    snprintf(nmin, sizeof(nmin), "%s_min", name);
    snprintf(nunits, sizeof(nunits), "%s_min_units", name);
    if (!BTEH5AttrExists(f, "/", name)) continue;
    if (BTEH5ReadAttrString(f, "/", name, h->fieldcaveat[k], sizeof(h->fieldcaveat[k]), st)) return -1;
    if (!BTEH5AttrExists(f, "/", nmin)) return BTEH5Fail(st, "root attribute %s without %s (V/cm)", name, nmin);
    if (BTEH5ReadAttrReal(f, "/", nmin, &h->fieldcaveat_min[k], st) || BTEH5CheckUnits(f, "/", nunits, "V/cm", NULL, st)) return -1;
    if (PetscIsInfOrNanReal((PetscReal)h->fieldcaveat_min[k]) || h->fieldcaveat_min[k] < 0) return BTEH5Fail(st, "root attribute %s = %g; expected a field >= 0 (V/cm)", nmin, h->fieldcaveat_min[k]);
  }
  if ((h->has_temperature = BTEH5AttrExists(f, "/", "temperature"))) {
    if (BTEH5ReadAttrReal(f, "/", "temperature", &h->temperature, st) || BTEH5CheckUnits(f, "/", "temperature_units", "K", NULL, st)) return -1;
    if (PetscIsInfOrNanReal((PetscReal)h->temperature) || !(h->temperature > 0)) return BTEH5Fail(st, "root attribute temperature = %g; expected a positive temperature (K)", h->temperature);
    if (!(h->temperature >= BTE_TEMPERATURE_MIN && h->temperature <= BTE_TEMPERATURE_MAX)) return BTEH5Fail(st, "root attribute temperature = %g K is outside [%g, %g] K", h->temperature, (double)BTE_TEMPERATURE_MIN, (double)BTE_TEMPERATURE_MAX);
  }
  if (ReadGrid(f, h, st)) return -1;
  if (ReadStatesHeader(f, h, st)) return -1;
  if (ReadChannelsHeader(f, h, st)) return -1;
  return ReadModel(f, h, st);
}

/* ------------------------------------------------------------------------- */
/* Data (all ranks)                                                          */

typedef struct {
  hid_t      f;
  PetscInt  *ri, *rj, *rm; /* read buffers, C rows */
  PetscReal *rhw, *rg2;
  PetscInt  *si, *sj, *sm; /* send buffers, 2C rows */
  PetscReal *shw, *sg2;
  PetscInt64 *count;       /* channels per destination rank (pass 1) */
  PetscMPIInt *scnt, *sdsp, *rcnt, *rdsp, *dest;
} ReadCtx;

static PetscErrorCode ReadCtxDestroy(ReadCtx *c)
{
  PetscFunctionBegin;
  if (c->f >= 0) H5Fclose(c->f);
  c->f = -1;
  PetscCall(PetscFree5(c->ri, c->rj, c->rm, c->rhw, c->rg2));
  PetscCall(PetscFree5(c->si, c->sj, c->sm, c->shw, c->sg2));
  PetscCall(PetscFree(c->count));
  PetscCall(PetscFree5(c->scnt, c->sdsp, c->rcnt, c->rdsp, c->dest));
  PetscFunctionReturn(0);
}

static PetscErrorCode Check(BTE bte, const char file[], BTEH5Status *st)
{
  PetscFunctionBegin;
  PetscCall(BTEH5SyncStatus(PetscObjectComm((PetscObject)bte), st));
  PetscCheck(!st->bad, PetscObjectComm((PetscObject)bte), PETSC_ERR_FILE_UNEXPECTED, "Scattering table %s: %s", file, st->msg);
  PetscFunctionReturn(0);
}

static const char *Bytes(PetscLogDouble b, char buf[], size_t len)
{
  if (b >= 1e9) snprintf(buf, len, "%.3g GB", b / 1e9);
  else if (b >= 1e6) snprintf(buf, len, "%.3g MB", b / 1e6);
  else snprintf(buf, len, "%.3g kB", b / 1e3);
  return buf;
}

/* Refuses a table that would not fit: nch channels and the local states on this rank,
   plus extra bytes of buffers, against -bte_memory_limit per rank, or else against the
   physical memory of the node shared by the ranks on it. */
static PetscErrorCode CheckMemory(BTE bte, const char file[], PetscInt64 nch, PetscInt64 nst, PetscLogDouble extra, PetscBool estimate, PetscBool *fits)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte), node;
  PetscLogDouble need = (PetscLogDouble)nch * BYTES_PER_CHANNEL + (PetscLogDouble)nst * BYTES_PER_STATE + extra, total = need, limit;
  PetscMPIInt    rank, nnode = 1;
  BTEH5Status    st;
  char           b1[32], b2[32], b3[32];
  const char    *forrun = "";

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&st, sizeof(st)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (bte->runmem && !fits) { /* a run follows: count it all (table, collision operator, work vectors) */
    PetscLogDouble run;
    PetscCall(BTERunMemoryEstimate(bte, (PetscCount)nch, (PetscInt)nst, PETSC_FALSE, (PetscBool)!bte->devlayout, NULL, &run));
    need = total = run + extra;
    forrun       = " for a run (table, collision operator and work vectors)";
  }
  if (bte->mem_limit > 0) {
    limit = bte->mem_limit;
    if (need > limit)
      BTEH5Fail(&st, "it is too large for memory: rank %d would hold %s%lld channels and %lld states, about %s%s, more than the %s per rank set by -bte_memory_limit. Run on more ranks, or raise -bte_memory_limit (GB)%s", rank, estimate ? "at least " : "", (long long)nch, (long long)nst, Bytes(need, b1, sizeof(b1)), forrun, Bytes(limit, b2, sizeof(b2)), forrun[0] ? " or give -bte_memory_check 0 to try anyway" : "");
  } else {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    limit      = pages > 0 && psize > 0 ? (PetscLogDouble)pages * (PetscLogDouble)psize : 0;
    PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    PetscCallMPI(MPI_Allreduce(&need, &total, 1, MPI_DOUBLE, MPI_SUM, node));
    PetscCallMPI(MPI_Comm_size(node, &nnode));
    PetscCallMPI(MPI_Comm_free(&node));
    if (limit > 0 && total > limit)
      BTEH5Fail(&st, "it is too large for memory: rank %d would hold %s%lld channels and %lld states, about %s%s, and the %d rank(s) on its node %s, more than the node's %s of physical memory. Run on more nodes, or set -bte_memory_limit (GB per rank) or -bte_memory_check 0 if this check is wrong", rank, estimate ? "at least " : "", (long long)nch, (long long)nst, Bytes(need, b1, sizeof(b1)), forrun, nnode, Bytes(total, b2, sizeof(b2)), Bytes(limit, b3, sizeof(b3)));
  }
  if (!fits && !bte->memcheck) { /* -bte_memory_check 0: tell, go on */
    PetscCall(BTEH5SyncStatus(comm, &st));
    if (st.bad) PetscCall(PetscPrintf(comm, "WARNING: %s: %s; going on (-bte_memory_check 0)\n", file, st.msg));
    PetscFunctionReturn(0);
  }
  if (fits) { /* tell, do not refuse (collective answer) */
    PetscCall(BTEH5SyncStatus(comm, &st));
    *fits = st.bad ? PETSC_FALSE : PETSC_TRUE;
    if (st.bad) PetscCall(PetscInfo(bte, "%s: channels not loaded: %s\n", file, st.msg));
    PetscFunctionReturn(0);
  }
  PetscCall(Check(bte, file, &st));
  PetscFunctionReturn(0);
}

/* Each (k point, band) is one state: two rows with the same pair would be one state counted twice
   (its carriers and channels twice). The keys go to rank 0, which sorts them (8 B per state). */
static PetscErrorCode CheckDistinctStates(BTE bte, const char file[])
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)bte);
  PetscMPIInt  size, rank, n = (PetscMPIInt)bte->nlocal, *cnt = NULL, *off = NULL;
  PetscInt64  *key, *all = NULL, dup[2] = {-1, -1};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(bte->nlocal, &key));
  for (PetscInt k = 0; k < bte->nlocal; k++) key[k] = (PetscInt64)bte->kindex[k] * bte->nbands + bte->band[k];
  if (rank == 0) PetscCall(PetscMalloc3(size, &cnt, size + 1, &off, bte->nstates, &all));
  PetscCallMPI(MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    off[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) off[r + 1] = off[r] + cnt[r];
  }
  PetscCallMPI(MPI_Gatherv(key, n, MPIU_INT64, all, cnt, off, MPIU_INT64, 0, comm));
  if (rank == 0) {
    PetscCall(PetscSortInt64(bte->nstates, all));
    for (PetscInt k = 1; k < bte->nstates; k++)
      if (all[k] == all[k - 1]) {
        dup[0] = all[k] / bte->nbands;
        dup[1] = all[k] % bte->nbands;
        break;
      }
  }
  PetscCallMPI(MPI_Bcast(dup, 2, MPIU_INT64, 0, comm));
  PetscCall(PetscFree(key));
  PetscCall(PetscFree3(cnt, off, all));
  PetscCheck(dup[0] < 0, comm, PETSC_ERR_FILE_UNEXPECTED, "Scattering table %s: two states have k index %" PetscInt64_FMT " and band %" PetscInt64_FMT " (/states/kindex, /states/band): each (k point, band) is one state and may appear once; the table is corrupt", file, dup[0], dup[1]);
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadStates(BTE bte, ReadCtx *c, const char file[], const Header *h)
{
  BTEH5Status st;
  hsize_t     s = (hsize_t)bte->rstart, n = (hsize_t)bte->nlocal;
  PetscInt64  nktot = (PetscInt64)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&st, sizeof(st)));
  if (!BTEH5ReadRows(c->f, "/states/kindex", BTE_H5_NATIVE_INT, s, n, 0, bte->kindex, &st) && !BTEH5ReadRows(c->f, "/states/band", BTE_H5_NATIVE_INT, s, n, 0, bte->band, &st) && !BTEH5ReadRows(c->f, "/states/energy", BTE_H5_NATIVE_REAL, s, n, 0, bte->energy, &st) &&
      !BTEH5ReadRows(c->f, "/states/velocity", BTE_H5_NATIVE_REAL, s, n, 3, bte->velocity, &st)) {
    for (PetscInt k = 0; k < bte->nlocal; k++) {
      long long g = (long long)bte->rstart + k;
      if (bte->kindex[k] < 0 || bte->kindex[k] >= nktot) {
        /* HDF5 clamps a value beyond bte's integers to their limit when it converts: said so */
        const char *clamp = bte->kindex[k] == PETSC_MAX_INT || bte->kindex[k] == PETSC_MIN_INT ? " (or beyond: the value is at the limit of bte's integers, where reading clamps it)" : "";
        BTEH5Fail(&st, "/states/kindex[%lld] = %lld%s is outside the k grid [0, %lld) of nk = %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (ik = (i0*nk1 + i1)*nk2 + i2); the table is corrupt", g, (long long)bte->kindex[k], clamp, (long long)nktot, bte->grid.nk[0], bte->grid.nk[1], bte->grid.nk[2]);
        break;
      }
      if (bte->band[k] < 0 || bte->band[k] >= bte->nbands) {
        const char *clamp = bte->band[k] == PETSC_MAX_INT || bte->band[k] == PETSC_MIN_INT ? " (or beyond: the value is at the limit of bte's integers, where reading clamps it)" : "";
        BTEH5Fail(&st, "/states/band[%lld] = %lld%s is outside [0, nbands = %" PetscInt_FMT "); the table is corrupt", g, (long long)bte->band[k], clamp, bte->nbands);
        break;
      }
      if (PetscIsInfOrNanReal(bte->energy[k])) {
        BTEH5Fail(&st, "/states/energy[%lld] = %g eV is not finite; the table is corrupt, regenerate it", g, (double)bte->energy[k]);
        break;
      }
      if (PetscIsInfOrNanReal(bte->velocity[3 * k]) || PetscIsInfOrNanReal(bte->velocity[3 * k + 1]) || PetscIsInfOrNanReal(bte->velocity[3 * k + 2])) {
        BTEH5Fail(&st, "/states/velocity[%lld] = (%g, %g, %g) Angstrom/fs is not finite; the table is corrupt, regenerate it", g, (double)bte->velocity[3 * k], (double)bte->velocity[3 * k + 1], (double)bte->velocity[3 * k + 2]);
        break;
      }
      /* the window the table declares holds its states (a state outside it would be a band edge,
         a mean energy or an initial state of the wrong size; 1e-6 eV: rounding of a window's edge) */
      if (bte->energy[k] < h->emin - 1e-6 || bte->energy[k] > h->emax + 1e-6) {
        BTEH5Fail(&st, "/states/energy[%lld] = %g eV is outside the table's window [%g, %g] eV (/states attributes window_min, window_max); the table is corrupt", g, (double)bte->energy[k], (double)h->emin, (double)h->emax);
        break;
      }
      /* a sheet's carriers move in its plane (/grid dim 2: a3 is the normal) */
      if (h->grid.dim == 2 && PetscAbsReal(bte->velocity[3 * k + 2]) > 1e-8) {
        BTEH5Fail(&st, "/states/velocity[%lld] = (%g, %g, %g) Angstrom/fs has a component along the normal of a 2D material (/grid dim 2, a3 the normal); in-plane velocities have 0 there; the table is corrupt", g, (double)bte->velocity[3 * k], (double)bte->velocity[3 * k + 1], (double)bte->velocity[3 * k + 2]);
        break;
      }
    }
  }
  PetscCall(Check(bte, file, &st));
  PetscFunctionReturn(0);
}

/* Validates n channels read from file rows [row0, row0+n); puts i < j (swapping a
   channel stored the other way round is exact: the pair is unordered). mode, hw and
   g2 may be NULL (first pass). */
static int CheckChannels(PetscInt *ci, PetscInt *cj, const PetscInt *cm, const PetscReal *hw, const PetscReal *g2, PetscInt64 n, PetscInt64 row0, PetscInt N, PetscInt nmodes, PetscInt64 *nswap, BTEH5Status *st)
{
  for (PetscInt64 k = 0; k < n; k++) {
    PetscInt  i = ci[k], j = cj[k];
    long long r = (long long)(row0 + k);
    if (i < 0 || i >= N) return BTEH5Fail(st, "/channels/i[%lld] = %lld is not a state index: it must be in [0, N = %lld) (N = length of /states/energy); the table is corrupt", r, (long long)i, (long long)N);
    if (j < 0 || j >= N) return BTEH5Fail(st, "/channels/j[%lld] = %lld is not a state index: it must be in [0, N = %lld) (N = length of /states/energy); the table is corrupt", r, (long long)j, (long long)N);
    if (i == j) return BTEH5Fail(st, "channel %lld joins state %lld to itself (/channels/i == /channels/j); every channel must join two different states", r, (long long)i);
    if (i > j) {
      ci[k] = j;
      cj[k] = i;
      (*nswap)++;
    }
    if (cm && (cm[k] < 0 || cm[k] >= nmodes)) return BTEH5Fail(st, "/channels/mode[%lld] = %lld is not a phonon mode: it must be in [0, nmodes = %lld) (/phonons attribute nmodes)", r, (long long)cm[k], (long long)nmodes);
    if (hw && !(hw[k] >= BTE_PHONON_FLOOR && hw[k] <= BTE_PHONON_MAX))
      return BTEH5Fail(st, "/channels/phonon_energy[%lld] = %g eV is outside [%g, %g] eV: a channel needs a finite phonon energy above the floor (at 0 the Bose factor is infinite); drop such channels from the table (bte reads every row as given)", r, (double)hw[k], (double)BTE_PHONON_FLOOR, (double)BTE_PHONON_MAX);
    if (g2 && !(g2[k] >= 0 && g2[k] <= BTE_G2_MAX)) return BTEH5Fail(st, "/channels/g2[%lld] = %g eV^2 is outside [0, %g] eV^2: |g|^2 must be finite, >= 0 and bounded (check its units: eV^2)", r, (double)g2[k], (double)BTE_G2_MAX);
  }
  return 0;
}

static int ReadChannelRows(hid_t f, hsize_t s, hsize_t n, PetscInt *i, PetscInt *j, PetscInt *m, PetscReal *hw, PetscReal *g2, BTEH5Status *st)
{
  if (BTEH5ReadRows(f, "/channels/i", BTE_H5_NATIVE_INT, s, n, 0, i, st)) return -1;
  if (BTEH5ReadRows(f, "/channels/j", BTE_H5_NATIVE_INT, s, n, 0, j, st)) return -1;
  if (!m) return 0;
  if (BTEH5ReadRows(f, "/channels/mode", BTE_H5_NATIVE_INT, s, n, 0, m, st)) return -1;
  if (BTEH5ReadRows(f, "/channels/phonon_energy", BTE_H5_NATIVE_REAL, s, n, 0, hw, st)) return -1;
  return BTEH5ReadRows(f, "/channels/g2", BTE_H5_NATIVE_REAL, s, n, 0, g2, st);
}

/* One rank: every field of every channel into ch, each dataset in parallel straight from the file
   when it allows that (BTEH5ReadDirect), else through HDF5 in steps of C rows. */
static PetscErrorCode ReadAllChannels(hid_t f, const char file[], PetscInt64 M, PetscInt64 C, BTEChannels *ch, BTEH5Status *st)
{
  const char *path[5] = {"/channels/i", "/channels/j", "/channels/mode", "/channels/phonon_energy", "/channels/g2"};
  hid_t       type[5] = {BTE_H5_NATIVE_INT, BTE_H5_NATIVE_INT, BTE_H5_NATIVE_INT, BTE_H5_NATIVE_REAL, BTE_H5_NATIVE_REAL};
  void       *buf[5]  = {ch->i, ch->j, ch->mode, ch->hw, ch->g2};
  size_t      esize[5] = {sizeof(PetscInt), sizeof(PetscInt), sizeof(PetscInt), sizeof(PetscReal), sizeof(PetscReal)};

  PetscFunctionBegin;
  for (int k = 0; k < 5 && !st->bad; k++) {
    int r = BTEH5ReadDirect(f, file, path[k], type[k], (hsize_t)M, buf[k], st);
    if (r) continue;
    for (PetscInt64 s = 0; s < M && !st->bad; s += C) BTEH5ReadRows(f, path[k], type[k], (hsize_t)s, (hsize_t)PetscMin(C, M - s), 0, (char *)buf[k] + (size_t)s * esize[k], st);
  }
  PetscFunctionReturn(0);
}

/* CheckChannels over all M channels in parallel blocks; the first bad block is checked again
   alone for its message. */
static PetscErrorCode CheckAllChannels(BTEChannels *ch, PetscInt64 M, PetscInt N, PetscInt nmodes, PetscInt64 *nswap, BTEH5Status *st)
{
  const PetscInt64 B = 1 << 16, nb = (M + B - 1) / B;
  PetscInt64       first = nb, sw = 0;

  PetscFunctionBegin;
#pragma omp parallel for schedule(static) reduction(min : first) reduction(+ : sw)
  for (PetscInt64 b = 0; b < nb; b++) {
    BTEH5Status s;
    PetscInt64  o = b * B, n = PetscMin(B, M - o), w = 0;
    s.bad = 0;
    if (CheckChannels(ch->i + o, ch->j + o, ch->mode + o, ch->hw + o, ch->g2 + o, n, o, N, nmodes, &w, &s)) first = PetscMin(first, b);
    sw += w;
  }
  *nswap += sw;
  if (first < nb) {
    PetscInt64 o = first * B;
    CheckChannels(ch->i + o, ch->j + o, ch->mode + o, ch->hw + o, ch->g2 + o, PetscMin(B, M - o), o, N, nmodes, nswap, st);
  }
  PetscFunctionReturn(0);
}

static inline PetscMPIInt Owner(const PetscInt ranges[], PetscMPIInt size, PetscInt i)
{
  PetscMPIInt lo = 0, hi = size; /* largest lo with ranges[lo] <= i */
  while (hi - lo > 1) {
    PetscMPIInt mid = (lo + hi) / 2;
    if (i >= ranges[mid]) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* The channels counted, not loaded: this rank would hold nheld of the M. */
static PetscErrorCode SetCounted(BTE bte, PetscInt64 M, PetscInt64 nheld)
{
  PetscFunctionBegin;
  PetscCall(BTEFreeChannels(bte));
  bte->ch.nglobal = M;
  bte->nheld      = (PetscCount)nheld;
  bte->chcounted  = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadChannels(BTE bte, ReadCtx *c, const char file[], PetscInt64 M, PetscInt chunk)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)bte);
  PetscMPIInt     rank, size;
  BTEH5Status     st;
  PetscInt64      C = chunk, lo, hi, nswap = 0, mine = 0, got = 0, nrounds;
  const PetscInt *ranges;
  PetscInt        N = bte->nstates, nmodes = bte->nmodes;
  BTEChannels    *ch = &bte->ch;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&st, sizeof(st)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));

  if (size == 1) { /* straight into the channel arrays, one pass */
    PetscBool fits = PETSC_TRUE;
    if (bte->loadchannels == PETSC_BOOL3_UNKNOWN) PetscCall(CheckMemory(bte, file, M, bte->nlocal, 0, PETSC_FALSE, &fits));
    if (bte->loadchannels == PETSC_BOOL3_FALSE || !fits) {
      PetscCall(SetCounted(bte, M, M));
      PetscFunctionReturn(0);
    }
    PetscCall(CheckMemory(bte, file, M, bte->nlocal, 0, PETSC_FALSE, NULL));
    PetscCall(BTEAllocateChannels(bte, (PetscCount)M));
    PetscCall(ReadAllChannels(c->f, file, M, C, ch, &st));
    PetscCall(Check(bte, file, &st));
    PetscCall(CheckAllChannels(ch, M, N, nmodes, &nswap, &st));
    PetscCall(Check(bte, file, &st));
    ch->nglobal = M;
    if (nswap) PetscCall(PetscInfo(bte, "%s: %" PetscInt64_FMT " channels were stored with i > j and were swapped\n", file, nswap));
    PetscFunctionReturn(0);
  }

  /* counts and displacements of MPI_Alltoallv are ints: a step must not send more */
  C       = PetscMax(1, PetscMin(C, (PetscInt64)(PETSC_MPI_INT_MAX / (2 * (PetscInt64)size))));
  lo      = (PetscInt64)((M * (PetscInt64)rank) / size);
  hi      = (PetscInt64)((M * ((PetscInt64)rank + 1)) / size);
  nrounds = ((M + size - 1) / size + C - 1) / C;
  PetscCall(PetscLayoutGetRanges(bte->states, &ranges));
  PetscCall(PetscMalloc5(C, &c->ri, C, &c->rj, C, &c->rm, C, &c->rhw, C, &c->rg2));
  PetscCall(PetscCalloc1(size, &c->count));
  PetscCall(PetscMalloc5(size, &c->scnt, size, &c->sdsp, size, &c->rcnt, size, &c->rdsp, 2 * C, &c->dest));

  /* Pass 1: i and j of this rank's share; count the channels each rank will hold. */
  for (PetscInt64 s = lo; s < hi && !st.bad; s += C) {
    PetscInt64 n = PetscMin(C, hi - s);
    if (ReadChannelRows(c->f, (hsize_t)s, (hsize_t)n, c->ri, c->rj, NULL, NULL, NULL, &st)) break;
    if (CheckChannels(c->ri, c->rj, NULL, NULL, NULL, n, s, N, nmodes, &nswap, &st)) break;
    for (PetscInt64 k = 0; k < n; k++) {
      PetscMPIInt oi = Owner(ranges, size, c->ri[k]), oj = Owner(ranges, size, c->rj[k]);
      c->count[oi]++;
      if (oj != oi) c->count[oj]++;
    }
  }
  PetscCall(Check(bte, file, &st));
  PetscCallMPI(MPI_Reduce_scatter_block(c->count, &mine, 1, MPI_INT64_T, MPI_SUM, comm));
  {
    PetscBool fits = PETSC_TRUE;
    if (bte->loadchannels == PETSC_BOOL3_UNKNOWN) PetscCall(CheckMemory(bte, file, mine, bte->nlocal, (PetscLogDouble)C * 3 * BYTES_PER_CHANNEL, PETSC_FALSE, &fits));
    if (bte->loadchannels == PETSC_BOOL3_FALSE || !fits) {
      PetscCall(SetCounted(bte, M, mine));
      if (nswap) PetscCall(PetscInfo(bte, "%s: %" PetscInt64_FMT " channels in this rank's share are stored with i > j\n", file, nswap));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(CheckMemory(bte, file, mine, bte->nlocal, (PetscLogDouble)C * 3 * BYTES_PER_CHANNEL, PETSC_FALSE, NULL));
  PetscCall(BTEAllocateChannels(bte, (PetscCount)mine));
  PetscCall(PetscMalloc5(2 * C, &c->si, 2 * C, &c->sj, 2 * C, &c->sm, 2 * C, &c->shw, 2 * C, &c->sg2));

  /* Pass 2: all fields, step by step; every rank takes part in every step. */
  nswap = 0;
  for (PetscInt64 r = 0; r < nrounds; r++) {
    PetscInt64 s = lo + r * C, n = s < hi ? PetscMin(C, hi - s) : 0, total = 0;
    if (n > 0 && !ReadChannelRows(c->f, (hsize_t)s, (hsize_t)n, c->ri, c->rj, c->rm, c->rhw, c->rg2, &st)) CheckChannels(c->ri, c->rj, c->rm, c->rhw, c->rg2, n, s, N, nmodes, &nswap, &st);
    PetscCall(Check(bte, file, &st));
    for (PetscMPIInt p = 0; p < size; p++) c->scnt[p] = 0;
    for (PetscInt64 k = 0; k < n; k++) {
      PetscMPIInt oi = Owner(ranges, size, c->ri[k]), oj = Owner(ranges, size, c->rj[k]);
      c->dest[2 * k]     = oi;
      c->dest[2 * k + 1] = oj != oi ? oj : -1;
      c->scnt[oi]++;
      if (oj != oi) c->scnt[oj]++;
    }
    c->sdsp[0] = 0;
    for (PetscMPIInt p = 1; p < size; p++) c->sdsp[p] = c->sdsp[p - 1] + c->scnt[p - 1];
    for (PetscMPIInt p = 0; p < size; p++) c->rcnt[p] = c->sdsp[p]; /* use rcnt as fill cursor */
    for (PetscInt64 k = 0; k < n; k++) {
      for (int e = 0; e < 2; e++) {
        PetscMPIInt p = c->dest[2 * k + e];
        PetscInt    q;
        if (p < 0) continue;
        q         = c->rcnt[p]++;
        c->si[q]  = c->ri[k];
        c->sj[q]  = c->rj[k];
        c->sm[q]  = c->rm[k];
        c->shw[q] = c->rhw[k];
        c->sg2[q] = c->rg2[k];
      }
    }
    PetscCallMPI(MPI_Alltoall(c->scnt, 1, MPI_INT, c->rcnt, 1, MPI_INT, comm));
    c->rdsp[0] = 0;
    for (PetscMPIInt p = 1; p < size; p++) c->rdsp[p] = c->rdsp[p - 1] + c->rcnt[p - 1];
    total = (PetscInt64)c->rdsp[size - 1] + c->rcnt[size - 1];
    if (got + total > mine) BTEH5Fail(&st, "the file changed while it was being read (rank %d receives more channels than counted)", rank);
    PetscCall(Check(bte, file, &st));
    PetscCallMPI(MPI_Alltoallv(c->si, c->scnt, c->sdsp, MPIU_INT, ch->i + got, c->rcnt, c->rdsp, MPIU_INT, comm));
    PetscCallMPI(MPI_Alltoallv(c->sj, c->scnt, c->sdsp, MPIU_INT, ch->j + got, c->rcnt, c->rdsp, MPIU_INT, comm));
    PetscCallMPI(MPI_Alltoallv(c->sm, c->scnt, c->sdsp, MPIU_INT, ch->mode + got, c->rcnt, c->rdsp, MPIU_INT, comm));
    PetscCallMPI(MPI_Alltoallv(c->shw, c->scnt, c->sdsp, MPIU_REAL, ch->hw + got, c->rcnt, c->rdsp, MPIU_REAL, comm));
    PetscCallMPI(MPI_Alltoallv(c->sg2, c->scnt, c->sdsp, MPIU_REAL, ch->g2 + got, c->rcnt, c->rdsp, MPIU_REAL, comm));
    got += total;
  }
  if (got != mine) BTEH5Fail(&st, "the file changed while it was being read (rank %d received %lld channels, counted %lld)", rank, (long long)got, (long long)mine);
  PetscCall(Check(bte, file, &st));
  ch->nglobal = M;
  if (nswap) PetscCall(PetscInfo(bte, "%s: %" PetscInt64_FMT " channels in this rank's share were stored with i > j and were swapped\n", file, nswap));
  PetscFunctionReturn(0);
}

static PetscErrorCode TableReadData(BTE bte, ReadCtx *c, const char file[], const Header *h)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)bte);
  PetscMPIInt size;
  PetscInt    chunk = bte->iochunk;
  BTEH5Status st;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&st, sizeof(st)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(chunk >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_io_chunk must be >= 1, got %" PetscInt_FMT, chunk);

  /* refuse early what cannot fit: each channel is held at least once (counting only: the states) */
  if (bte->loadchannels == PETSC_BOOL3_TRUE) PetscCall(CheckMemory(bte, file, h->M / size, h->N / size, 0, PETSC_TRUE, NULL));
  else PetscCall(CheckMemory(bte, file, 0, h->N / size, 0, PETSC_TRUE, NULL));
  PetscCall(BTEAllocateStates(bte, (PetscInt)h->N, PETSC_DECIDE));
  c->f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (c->f < 0) {
    char m[256];
    BTEH5StackMessage(m, sizeof(m));
    BTEH5Fail(&st, "HDF5 cannot open it (HDF5: %s)", m);
  }
  PetscCall(Check(bte, file, &st));
  PetscCall(ReadStates(bte, c, file, h));
  PetscCall(CheckDistinctStates(bte, file));
  PetscCall(ReadChannels(bte, c, file, h->M, chunk));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETableRead(BTE bte, const char file[])
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  PetscMPIInt    rank;
  Header        *h;
  ReadCtx        c;
  PetscErrorCode ierr;
  BTEH5Auto      h5auto;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTE_TableRead, bte, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  BTEH5Silence(&h5auto);
  PetscCall(PetscCalloc1(1, &h));
  if (rank == 0) {
    hid_t f;
    if (!HeaderOpen(file, &f, &h->st)) {
      ReadHeader(f, h);
      H5Fclose(f);
    }
  }
  PetscCallMPI(MPI_Bcast(h, (PetscMPIInt)sizeof(*h), MPI_BYTE, 0, comm));
  if (h->st.bad) {
    char msg[BTE_H5_MSGLEN];
    PetscCall(PetscStrncpy(msg, h->st.msg, sizeof(msg)));
    PetscCall(PetscFree(h));
    BTEH5Restore(&h5auto);
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "Scattering table %s: %s", file, msg);
  }

  /* The table defines the state space and how its channels were selected. */
  bte->grid    = h->grid;
  bte->nbands  = (PetscInt)h->nbands;
  bte->nmodes  = (PetscInt)h->nmodes;
  bte->spin    = (PetscInt)h->spin;
  bte->carrier = (PetscInt)h->carrier;
  bte->emin    = (PetscReal)h->emin;
  bte->emax    = (PetscReal)h->emax;
  if (h->has_g2_cutoff) bte->g2_cutoff = (PetscReal)h->g2_cutoff;
  if (h->has_phonon_min) bte->phonon_min = (PetscReal)h->phonon_min;
  if (h->has_tol_eta) bte->tol_eta = (PetscReal)h->tol_eta;
  bte->params = h->params;
  PetscCall(PetscStrncpy(bte->source, h->source, sizeof(bte->source)));
  PetscCall(PetscStrncpy(bte->caveat, h->caveat, sizeof(bte->caveat)));
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscStrncpy(bte->fieldcaveat[k], h->fieldcaveat[k], sizeof(bte->fieldcaveat[k])));
    bte->fieldcaveat_min[k] = (PetscReal)h->fieldcaveat_min[k];
  }
  /* Smearing, temperature and the delta are also run settings: a value set through the API or the
     options (BTESetSmearing, BTESetTemperature, BTESetDelta, BTESetFromOptions) wins over the file's. */
  if (!bte->smearing_set) bte->smearing = (PetscReal)h->smearing;
  else if (bte->smearing != (PetscReal)h->smearing) PetscCall(PetscInfo(bte, "%s: using the smearing set, %g eV, instead of the table's %g eV\n", file, (double)bte->smearing, h->smearing));
  /* a wider smearing than the table's: its channels were selected within tol_eta x its own eta of
     energy conservation, so the run's Gaussians are cut short and the channels it would add are
     not in the table (a narrower one is what the table allows: the channels are a superset) */
  if (bte->smearing_set && bte->smearing > (PetscReal)h->smearing * (1 + 1e-12)) {
    char msg[512]; /* the C library's %g: PETSc's printf writes 3 as "3." */
    snprintf(msg, sizeof(msg), "WARNING: the smearing %g eV (-bte_smearing) is wider than the table's %g eV: its channels were selected within %g x %g eV of energy conservation, so this run's Gaussians are cut at %.2g of its widths and the channels it would add are missing; make the table with this smearing (bte generate -bte_smearing %g)", (double)bte->smearing, h->smearing, (double)bte->tol_eta, h->smearing, (double)(bte->tol_eta * h->smearing / bte->smearing), (double)bte->smearing);
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)bte), "%s\n", msg));
  }
  if (h->has_delta && !bte->delta_set) bte->delta = (BTEDelta)h->delta;
  else if (h->has_delta && (int)bte->delta != h->delta) PetscCall(PetscInfo(bte, "%s: using the delta set, %s, instead of the table's %s\n", file, BTEDeltas[bte->delta], BTEDeltas[h->delta]));
  if (h->has_temperature && !bte->temperature_set) bte->temperature = (PetscReal)h->temperature;
  else if (h->has_temperature && bte->temperature != (PetscReal)h->temperature) PetscCall(PetscInfo(bte, "%s: using the temperature set, %g K, instead of the table's %g K\n", file, (double)bte->temperature, h->temperature));

  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.f  = -1;
  ierr = TableReadData(bte, &c, file, h);
  PetscCall(ReadCtxDestroy(&c));
  PetscCall(PetscFree(h));
  BTEH5Restore(&h5auto);
  PetscCall(ierr);
  PetscCall(PetscInfo(bte, "Read %s: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels (%" PetscCount_FMT " on this rank%s)\n", file, bte->nstates, bte->ch.nglobal, bte->chcounted ? bte->nheld : bte->ch.n, bte->chcounted ? ", counted, not loaded" : ""));
  PetscCall(PetscLogEventEnd(BTE_TableRead, bte, 0, 0, 0));
  PetscFunctionReturn(0);
}
