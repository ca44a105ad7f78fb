/* Evaluates the interpolation of a Perturbo epr file at given points, for the tests and for the
   comparison with independent interpolations (docs/import.md). Rydberg atomic units throughout.

   epr_eval -epr FILE -what bands   -points K.txt   one line per k: e_1..e_nw, then v (3 per band, Ry bohr)
   epr_eval -epr FILE -what phonons -points Q.txt   one line per q: omega_1..omega_3nat (Ry, signed)
   epr_eval -epr FILE -what lr      -points Q.txt   one line per q: Re, Im of the long-range vertex (atom basis)
   epr_eval -epr FILE -what ephmat  -kpoints K.txt -qpoints Q.txt [-pyeph_conj] [-polar 0|1]
        one line per (q, k) (q outer): omega_nu then S_nu = sum_{m,n} |g_mn,nu|^2 (Ry^2 / (bohr^2 Ry-mass)),
        g = U_{k+q}^dagger [sum_mu g^W_mu u_mu,nu (+ long range)] U_k
   Points files: one point per line, three crystal coordinates. -pyeph_conj conjugates the
   Wannier-gauge elements with iw > jw (the convention of one independent implementation, to
   compare with its reference numbers). -polar sets both long-range terms (default: the file's), -lr_eph the coupling's only. */
#include <bte/private/epr.h>

static PetscErrorCode ReadPoints(const char file[], PetscInt *n, PetscReal **x)
{
  FILE     *fp;
  PetscInt  cap = 64, m = 0;
  double    a, b, c;

  PetscFunctionBegin;
  fp = fopen(file, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", file);
  PetscCall(PetscMalloc1(3 * cap, x));
  while (fscanf(fp, "%lf %lf %lf", &a, &b, &c) == 3) {
    if (m == cap) {
      PetscReal *y;
      PetscCall(PetscMalloc1(6 * cap, &y));
      PetscCall(PetscArraycpy(y, *x, 3 * cap));
      PetscCall(PetscFree(*x));
      *x = y;
      cap *= 2;
    }
    (*x)[3 * m]     = a;
    (*x)[3 * m + 1] = b;
    (*x)[3 * m + 2] = c;
    m++;
  }
  fclose(fp);
  *n = m;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char       file[PETSC_MAX_PATH_LEN] = "", what[32] = "bands", pts[PETSC_MAX_PATH_LEN] = "", kf[PETSC_MAX_PATH_LEN] = "", qf[PETSC_MAX_PATH_LEN] = "";
  BTEEpr     e;
  BTEEprWork w;
  PetscBool  pyconj = PETSC_FALSE, polar, pset, lreph, lreset;
  PetscInt   nw, nm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-epr", file, sizeof(file), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-what", what, sizeof(what), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-points", pts, sizeof(pts), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-kpoints", kf, sizeof(kf), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-qpoints", qf, sizeof(qf), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-pyeph_conj", &pyconj, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-polar", &polar, &pset));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-lr_eph", &lreph, &lreset));
  PetscCall(BTEEprRead(PETSC_COMM_WORLD, file, &e));
  if (pset) {
    e->lr_eph = e->lr_ph = polar;
    PetscCall(BTEEprSetUpLR(e));
  }
  if (lreset) e->lr_eph = lreph;
  PetscCall(BTEEprWorkCreate(e, &w));
  nw = e->nw;
  nm = 3 * e->nat;
  if (!strcmp(what, "bands") || !strcmp(what, "phonons") || !strcmp(what, "lr")) {
    PetscInt   n;
    PetscReal *x, *en, *v, *om, *gl;
    PetscCall(ReadPoints(pts, &n, &x));
    PetscCall(PetscMalloc4(nw, &en, 3 * nw, &v, nm, &om, 2 * nm, &gl));
    for (PetscInt i = 0; i < n; i++) {
      if (!strcmp(what, "bands")) {
        PetscCheck(!BTEEprBands(e, w, x + 3 * i, en, NULL, v), PETSC_COMM_SELF, PETSC_ERR_LIB, "bands failed");
        for (PetscInt b = 0; b < nw; b++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.17g ", (double)en[b]));
        for (PetscInt b = 0; b < 3 * nw; b++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.17g ", (double)v[b]));
      } else if (!strcmp(what, "phonons")) {
        PetscCheck(!BTEEprPhonons(e, w, x + 3 * i, om, NULL), PETSC_COMM_SELF, PETSC_ERR_LIB, "phonons failed");
        for (PetscInt b = 0; b < nm; b++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.17g ", (double)om[b]));
      } else {
        PetscCheck(!BTEEprCouplingLR(e, x + 3 * i, gl), PETSC_COMM_SELF, PETSC_ERR_LIB, "lr failed");
        for (PetscInt b = 0; b < 2 * nm; b++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.17g ", (double)gl[b]));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    }
    PetscCall(PetscFree4(en, v, om, gl));
    PetscCall(PetscFree(x));
  } else if (!strcmp(what, "ephmat")) {
    PetscInt   nk, nq;
    PetscReal *xk, *xq, *gk, *gw, *gl, *om, *u, *Uk, *Ukq, *en, *S, *gm;
    PetscCall(ReadPoints(kf, &nk, &xk));
    PetscCall(ReadPoints(qf, &nq, &xq));
    PetscCall(PetscMalloc6(BTEEprCouplingKSize(e), &gk, 2 * nw * nw * nm, &gw, 2 * nm, &gl, nm, &om, 2 * nm * nm, &u, 2 * nw * nw, &Uk));
    PetscCall(PetscMalloc4(2 * nw * nw, &Ukq, nw, &en, nm, &S, 2 * nm, &gm));
    for (PetscInt iq = 0; iq < nq; iq++) {
      PetscReal *q = xq + 3 * iq;
      PetscCheck(!BTEEprPhonons(e, w, q, om, u), PETSC_COMM_SELF, PETSC_ERR_LIB, "phonons failed");
      PetscCheck(!BTEEprCouplingLR(e, q, gl), PETSC_COMM_SELF, PETSC_ERR_LIB, "lr failed");
      for (PetscInt ik = 0; ik < nk; ik++) {
        PetscReal *k = xk + 3 * ik, kq[3] = {k[0] + q[0], k[1] + q[1], k[2] + q[2]};
        PetscCheck(!BTEEprBands(e, w, k, en, Uk, NULL), PETSC_COMM_SELF, PETSC_ERR_LIB, "bands failed");
        PetscCheck(!BTEEprBands(e, w, kq, en, Ukq, NULL), PETSC_COMM_SELF, PETSC_ERR_LIB, "bands failed");
        PetscCheck(!BTEEprCouplingK(e, w, k, gk), PETSC_COMM_SELF, PETSC_ERR_LIB, "coupling failed");
        PetscCheck(!BTEEprCouplingKQ(e, w, gk, q, gw), PETSC_COMM_SELF, PETSC_ERR_LIB, "coupling failed");
        for (PetscInt iw = 0; iw < nw; iw++)
          for (PetscInt jw = 0; jw < nw; jw++)
            for (PetscInt mu = 0; mu < nm; mu++) {
              PetscReal *g = gw + 2 * ((iw * nw + jw) * nm + mu);
              if (pyconj && iw > jw) g[1] = -g[1];
              if (iw == jw) {
                g[0] += gl[2 * mu];
                g[1] += gl[2 * mu + 1];
              }
            }
        for (PetscInt nu = 0; nu < nm; nu++) S[nu] = 0;
        for (PetscInt m = 0; m < nw; m++)
          for (PetscInt n = 0; n < nw; n++) {
            for (PetscInt mu = 0; mu < nm; mu++) gm[2 * mu] = gm[2 * mu + 1] = 0;
            for (PetscInt iw = 0; iw < nw; iw++)
              for (PetscInt jw = 0; jw < nw; jw++) {
                PetscReal ar = Ukq[2 * (iw + m * nw)], ai = -Ukq[2 * (iw + m * nw) + 1], br = Uk[2 * (jw + n * nw)], bi = Uk[2 * (jw + n * nw) + 1];
                PetscReal cr = ar * br - ai * bi, ci = ar * bi + ai * br;
                for (PetscInt mu = 0; mu < nm; mu++) {
                  PetscReal *g = gw + 2 * ((iw * nw + jw) * nm + mu);
                  gm[2 * mu] += cr * g[0] - ci * g[1];
                  gm[2 * mu + 1] += cr * g[1] + ci * g[0];
                }
              }
            for (PetscInt nu = 0; nu < nm; nu++) {
              PetscReal sr = 0, si = 0;
              for (PetscInt mu = 0; mu < nm; mu++) {
                PetscReal ur = u[2 * (mu + nu * nm)], ui = u[2 * (mu + nu * nm) + 1];
                sr += gm[2 * mu] * ur - gm[2 * mu + 1] * ui;
                si += gm[2 * mu] * ui + gm[2 * mu + 1] * ur;
              }
              S[nu] += sr * sr + si * si;
            }
          }
        for (PetscInt nu = 0; nu < nm; nu++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.17g ", (double)om[nu]));
        for (PetscInt nu = 0; nu < nm; nu++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.17g ", (double)S[nu]));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
      }
    }
    PetscCall(PetscFree6(gk, gw, gl, om, u, Uk));
    PetscCall(PetscFree4(Ukq, en, S, gm));
    PetscCall(PetscFree(xk));
    PetscCall(PetscFree(xq));
  } else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-what bands|phonons|lr|ephmat");
  PetscCall(BTEEprWorkDestroy(&w));
  PetscCall(BTEEprDestroy(&e));
  PetscCall(PetscFinalize());
  return 0;
}
