/* Valleys of the band structure, for the valley occupations that bte highfield
   reports (e.g. Gamma -> L transfer in GaAs, the origin of negative differential
   mobility). Generic, from the states alone:
   1. a state is a band minimum if no grid neighbour (the 26 (8 in 2D) nearest points
      of the k grid, same band) in the window has a lower energy; neighbours' energies
      come from a distributed directory Vec over (k point, band) through one VecScatter;
   2. the minima of all ranks (a handful) are gathered and grouped into valley kinds:
      same band, energies within 2 meV (symmetry-equivalent minima);
   3. every state belongs to the valley of its nearest minimum (same band, minimal-image
      distance in k), and a valley kind's occupation sums its valleys.
   The same neighbour lookup marks the states at the window's edge (a grid neighbour outside
   the window): carriers piling up there mean the window is too narrow for the field. */
#include "transportimpl.h"
#include "valleys.h"

typedef struct {
  PetscInt  band, kindex;
  PetscReal e;
} Minimum;

static int CompareMin(const void *a, const void *b)
{
  const Minimum *x = (const Minimum *)a, *y = (const Minimum *)b;
  if (x->band != y->band) return x->band < y->band ? -1 : 1;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  return x->kindex < y->kindex ? -1 : (x->kindex > y->kindex ? 1 : 0);
}

static void KCart(const PetscInt nk[3], const PetscReal rec[9], PetscInt kindex, PetscReal red[3], PetscReal k[3])
{
  PetscInt i0 = kindex / (nk[1] * nk[2]), i1 = (kindex / nk[2]) % nk[1], i2 = kindex % nk[2];
  red[0] = (PetscReal)i0 / nk[0];
  red[1] = (PetscReal)i1 / nk[1];
  red[2] = (PetscReal)i2 / nk[2];
  for (int c = 0; c < 3; c++) k[c] = red[0] * rec[c] + red[1] * rec[3 + c] + red[2] * rec[6 + c];
}

PetscErrorCode BTEValleysCreate(BTE bte, PetscInt nsteps, const PetscInt steps[], BTEValleys *vout)
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)bte);
  BTEValleys       v;
  PetscInt         dim, nk[3], nl, N, nbands = bte->nbands, nn = 0, off[26 + 64][3], nmin = 0, *isidx, nmine, ne_;
  PetscReal        rec[9];
  const PetscReal *e;
  const PetscInt  *kidx, *band;
  Vec              dir, nbr;
  IS               is;
  VecScatter       sct;
  Minimum         *mloc, *mall;
  PetscMPIInt      size, nm, *counts, *displs;
  const PetscScalar *ne;

  PetscFunctionBegin;
  PetscCall(PetscNew(&v));
  PetscCall(BTEGetGrid(bte, &dim, nk, NULL, rec, NULL));
  PetscCall(BTEGetNumStates(bte, &nl, &N));
  PetscCall(BTEGetLocalStates(bte, &e, NULL, &kidx, &band));
  for (PetscInt d0 = -1; d0 <= 1; d0++)
    for (PetscInt d1 = -1; d1 <= 1; d1++)
      for (PetscInt d2 = (nk[2] > 1 ? -1 : 0); d2 <= (nk[2] > 1 ? 1 : 0); d2++) {
        if (!d0 && !d1 && !d2) continue;
        off[nn][0] = d0;
        off[nn][1] = d1;
        off[nn][2] = d2;
        nn++;
      }
  nmine = nn; /* offsets 0..nmine-1: minima test; nmine..nn-1: window-edge test */
  if (nsteps > 0) {
    for (PetscInt k = 0; k < PetscMin(nsteps, 64); k++, nn++)
      for (PetscInt a = 0; a < 3; a++) off[nn][a] = steps[3 * k + a];
  } else {
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt sgn = -1; sgn <= 1; sgn += 2) {
        if (a == 2 && nk[2] == 1) continue;
        off[nn][0] = off[nn][1] = off[nn][2] = 0;
        off[nn][a] = sgn;
        nn++;
      }
  }
  ne_ = nn;
  /* 1. directory of energies over (k point, band); +inf outside the window */
  PetscCheck((PetscReal)nk[0] * nk[1] * nk[2] * nbands < (PetscReal)PETSC_MAX_INT, comm, PETSC_ERR_SUP, "valleys: k grid x bands (%.4g) exceeds 32-bit indices; build PETSc with --with-64-bit-indices", (double)((PetscReal)nk[0] * nk[1] * nk[2] * nbands));
  PetscCall(VecCreateMPI(comm, PETSC_DECIDE, nk[0] * nk[1] * nk[2] * nbands, &dir));
  PetscCall(VecSet(dir, PETSC_MAX_REAL));
  for (PetscInt i = 0; i < nl; i++) PetscCall(VecSetValue(dir, kidx[i] * nbands + band[i], e[i], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(dir));
  PetscCall(VecAssemblyEnd(dir));
  PetscCall(PetscMalloc1(nl * nn + 1, &isidx));
  for (PetscInt i = 0; i < nl; i++) {
    PetscInt a0 = kidx[i] / (nk[1] * nk[2]), a1 = (kidx[i] / nk[2]) % nk[1], a2 = kidx[i] % nk[2];
    for (PetscInt m = 0; m < nn; m++) {
      PetscInt b0 = ((a0 + off[m][0]) % nk[0] + nk[0]) % nk[0], b1 = ((a1 + off[m][1]) % nk[1] + nk[1]) % nk[1], b2 = ((a2 + off[m][2]) % nk[2] + nk[2]) % nk[2];
      isidx[i * nn + m] = ((b0 * nk[1] + b1) * nk[2] + b2) * nbands + band[i];
    }
  }
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nl * nn, isidx, PETSC_OWN_POINTER, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nl * nn, &nbr));
  PetscCall(VecScatterCreate(dir, is, nbr, NULL, &sct));
  PetscCall(VecScatterBegin(sct, dir, nbr, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, dir, nbr, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscMalloc1(nl + 1, &mloc));
  PetscCall(PetscMalloc1(nl + 1, &v->edge));
  PetscCall(VecGetArrayRead(nbr, &ne));
  for (PetscInt i = 0; i < nl; i++) {
    PetscBool ismin = PETSC_TRUE;
    v->edge[i] = PETSC_FALSE;
    for (PetscInt m = nmine; m < ne_; m++)
      if (PetscRealPart(ne[i * nn + m]) >= PETSC_MAX_REAL) v->edge[i] = PETSC_TRUE;
    for (PetscInt m = 0; m < nmine && ismin; m++)
      if (PetscRealPart(ne[i * nn + m]) < e[i]) ismin = PETSC_FALSE;
    if (ismin) {
      mloc[nmin].band   = band[i];
      mloc[nmin].kindex = kidx[i];
      mloc[nmin].e      = e[i];
      nmin++;
    }
  }
  PetscCall(VecRestoreArrayRead(nbr, &ne));
  {
    PetscInt  nedge = 0;
    PetscReal eedge = PETSC_MAX_REAL;
    for (PetscInt i = 0; i < nl; i++)
      if (v->edge[i]) {
        nedge++;
        eedge = PetscMin(eedge, e[i]);
      }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nedge, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &eedge, 1, MPIU_REAL, MPIU_MIN, comm));
    PetscCall(PetscInfo(bte, "valleys: %" PetscInt_FMT " of %" PetscInt_FMT " states at the window's edge, the lowest at %g eV\n", nedge, N, (double)eedge));
  }
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(ISDestroy(&is));
  PetscCall(VecDestroy(&nbr));
  PetscCall(VecDestroy(&dir));
  /* 2. gather the minima and group them */
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCall(PetscMPIIntCast(nmin * (PetscInt)sizeof(Minimum), &nm));
  PetscCallMPI(MPI_Allgather(&nm, 1, MPI_INT, counts, 1, MPI_INT, comm));
  displs[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
  PetscCall(PetscMalloc1(displs[size] / sizeof(Minimum) + 1, &mall));
  PetscCallMPI(MPI_Allgatherv(mloc, nm, MPI_BYTE, mall, counts, displs, MPI_BYTE, comm));
  v->nmin = displs[size] / (PetscMPIInt)sizeof(Minimum);
  PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree(mloc));
  qsort(mall, v->nmin, sizeof(Minimum), CompareMin);
  PetscCall(PetscMalloc3(v->nmin + 1, &v->min_kind, 3 * v->nmin + 1, &v->min_k, v->nmin + 1, &v->min_band));
  v->nkind = 0;
  for (PetscInt m = 0; m < v->nmin; m++) {
    PetscReal red[3];
    if (m == 0 || mall[m].band != mall[m - 1].band || mall[m].e - mall[v->kind_first[v->nkind - 1]].e > 2e-3) {
      PetscCheck(v->nkind < BTE_MAX_VALLEYS, comm, PETSC_ERR_SUP, "More than %d kinds of band minima: the valley analysis is meant for a few valleys", BTE_MAX_VALLEYS);
      v->kind_first[v->nkind] = m;
      v->kind_count[v->nkind] = 0;
      v->kind_band[v->nkind]  = mall[m].band;
      v->kind_e[v->nkind]     = mall[m].e;
      v->nkind++;
    }
    v->min_kind[m] = v->nkind - 1;
    v->min_band[m] = mall[m].band;
    v->kind_count[v->nkind - 1]++;
    KCart(nk, rec, mall[m].kindex, red, &v->min_k[3 * m]);
    if (m == v->kind_first[v->nkind - 1])
      for (int a = 0; a < 3; a++) v->kind_red[v->nkind - 1][a] = red[a];
    if (v->min_kind[m] != (m ? v->min_kind[m - 1] : -1)) {
      /* label from the first minimum of the kind */
      PetscReal k2 = PetscSqr(v->min_k[3 * m]) + PetscSqr(v->min_k[3 * m + 1]) + PetscSqr(v->min_k[3 * m + 2]);
      char      lbl[BTE_VALLEY_LABEL];
      if (k2 < 1e-20) PetscCall(PetscSNPrintf(lbl, sizeof(lbl), "Gamma"));
      else {
        /* cubic-zone names by the Cartesian direction of k: <111> L, <100> X, <110> K */
        PetscReal   c[3], cmax = 0, tol = 1e-6 * PetscSqrtReal(k2);
        PetscInt    nz = 0, neq = 0;
        const char *name = NULL;
        for (int a = 0; a < 3; a++) {
          c[a] = PetscAbsReal(v->min_k[3 * m + a]);
          cmax = PetscMax(cmax, c[a]);
        }
        for (int a = 0; a < 3; a++) {
          if (c[a] > tol) nz++;
          if (PetscAbsReal(c[a] - cmax) < tol) neq++;
        }
        if (dim == 3 && nz == 3 && neq == 3) name = "L";
        else if (dim == 3 && nz == 1) name = "X";
        else if (dim == 3 && nz == 2 && neq == 2) name = "K";
        if (name) PetscCall(PetscSNPrintf(lbl, sizeof(lbl), "%s k=(%.3f,%.3f,%.3f)", name, (double)red[0], (double)red[1], (double)red[2]));
        else PetscCall(PetscSNPrintf(lbl, sizeof(lbl), "k=(%.3f,%.3f,%.3f)", (double)red[0], (double)red[1], (double)red[2]));
      }
      if (bte->nbands > 1) {
        char b[32];
        PetscCall(PetscSNPrintf(b, sizeof(b), " band %" PetscInt_FMT, mall[m].band));
        PetscCall(PetscStrlcat(lbl, b, sizeof(lbl)));
      }
      PetscCall(PetscStrncpy(v->label[v->nkind - 1], lbl, sizeof(v->label[0])));
    }
  }
  for (PetscInt k = 0; k < v->nkind; k++) {
    char c[32];
    if (v->kind_count[k] > 1) {
      PetscCall(PetscSNPrintf(c, sizeof(c), " x%" PetscInt_FMT, v->kind_count[k]));
      PetscCall(PetscStrlcat(v->label[k], c, sizeof(v->label[k])));
    }
    v->labelp[k] = v->label[k];
  }
  /* 3. nearest minimum of each local state */
  PetscCall(PetscMalloc1(nl + 1, &v->state_kind));
  PetscCall(PetscMalloc1(nl + 1, &v->state_min));
  v->nlocal = nl;
  for (PetscInt i = 0; i < nl; i++) {
    PetscReal red[3], k[3], best = PETSC_MAX_REAL;
    PetscInt  bk = -1, bm = -1;
    KCart(nk, rec, kidx[i], red, k);
    for (PetscInt m = 0; m < v->nmin; m++) {
      if (v->min_band[m] != band[i]) continue;
      for (PetscInt t0 = -1; t0 <= 1; t0++)
        for (PetscInt t1 = -1; t1 <= 1; t1++)
          for (PetscInt t2 = (dim == 3 ? -1 : 0); t2 <= (dim == 3 ? 1 : 0); t2++) {
            PetscReal d2 = 0;
            for (int c = 0; c < 3; c++) d2 += PetscSqr(k[c] - v->min_k[3 * m + c] + t0 * rec[c] + t1 * rec[3 + c] + t2 * rec[6 + c]);
            if (d2 < best) {
              best = d2;
              bk   = v->min_kind[m];
              bm   = m;
            }
          }
    }
    v->state_kind[i] = bk;
    v->state_min[i]  = bm;
  }
  PetscCall(PetscFree(mall));
  *vout = v;
  PetscFunctionReturn(0);
}

/* occ[k] = sum of f over the states of valley kind k / sum f (global); *edge = the same
   for the states with a grid neighbour outside the window */
PetscErrorCode BTEValleysOccupation(BTE bte, BTEValleys v, Vec f, PetscReal occ[], PetscReal *edge)
{
  const PetscScalar *a;
  PetscReal          s[BTE_MAX_VALLEYS + 2], t[BTE_MAX_VALLEYS + 2];

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(s, BTE_MAX_VALLEYS + 2));
  PetscCall(VecGetArrayRead(f, &a));
  for (PetscInt i = 0; i < v->nlocal; i++) {
    if (v->state_kind[i] >= 0) s[v->state_kind[i]] += PetscRealPart(a[i]);
    if (v->edge[i]) s[BTE_MAX_VALLEYS + 1] += PetscRealPart(a[i]);
    s[BTE_MAX_VALLEYS] += PetscRealPart(a[i]);
  }
  PetscCall(VecRestoreArrayRead(f, &a));
  PetscCall(MPIU_Allreduce(s, t, BTE_MAX_VALLEYS + 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)bte)));
  for (PetscInt k = 0; k < v->nkind; k++) occ[k] = t[BTE_MAX_VALLEYS] > 0 ? t[k] / t[BTE_MAX_VALLEYS] : 0;
  if (edge) *edge = t[BTE_MAX_VALLEYS] > 0 ? t[BTE_MAX_VALLEYS + 1] / t[BTE_MAX_VALLEYS] : 0;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEValleysDestroy(BTEValleys *v)
{
  PetscFunctionBegin;
  if (!*v) PetscFunctionReturn(0);
  PetscCall(PetscFree3((*v)->min_kind, (*v)->min_k, (*v)->min_band));
  PetscCall(PetscFree((*v)->state_kind));
  PetscCall(PetscFree((*v)->state_min));
  PetscCall(PetscFree((*v)->edge));
  PetscCall(PetscFree(*v));
  PetscFunctionReturn(0);
}
