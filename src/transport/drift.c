/* The high-field solver's view of the drift term (docs/theory.md section 5): an adapter
   to the dynamics module's BTEDrift (b-vector finite differences, its -bte_drift_form). */
#include "transportimpl.h"
#include <bte/private/dynamicsimpl.h> /* BTEDriftSetOwned */

static PetscErrorCode HFDriftSetField(void *ctx, const PetscReal E[3])
{
  PetscFunctionBegin;
  PetscCall(BTEDriftSetField((BTEDrift)ctx, E));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFDriftApply(void *ctx, Vec f, Vec D)
{
  PetscFunctionBegin;
  PetscCall(BTEDriftApply((BTEDrift)ctx, f, D));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFDriftSetState(void *ctx, Vec f)
{
  PetscFunctionBegin;
  PetscCall(BTEDriftSetJacobianState((BTEDrift)ctx, f));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFDriftJacMultAdd(void *ctx, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(BTEDriftJacobianMultAdd((BTEDrift)ctx, x, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFDriftDiagAdd(void *ctx, Vec d)
{
  PetscFunctionBegin;
  PetscCall(BTEDriftJacobianDiagonalAdd((BTEDrift)ctx, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFDriftDestroy(void *ctx)
{
  BTEDrift d = (BTEDrift)ctx;

  PetscFunctionBegin;
  PetscCall(BTEDriftDestroy(&d));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEHighFieldCreateDefaultDrift(BTEHighField hf, BTEHighFieldDrift *hd)
{
  BTEDrift     d;
  BTEDriftForm form;

  PetscFunctionBegin;
  PetscCall(BTEDriftCreate(hf->bte, &d));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)d, ((PetscObject)hf)->prefix)); /* the solver's prefix: -b_bte_drift_form */
  PetscCall(BTEDriftSetOwned(d, PETSC_TRUE, PETSC_FALSE)); /* each solve sets its field */
  PetscCall(BTEDriftSetFromOptions(d));
  PetscCall(BTEDriftSetUp(d));
  PetscCall(BTEDriftGetForm(d, &form));
  hd->positive   = form == BTE_DRIFT_PLAIN ? PETSC_FALSE : PETSC_TRUE;
  if (form == BTE_DRIFT_MUSCL) {
    BTEDriftLimiter lim;
    PetscCall(BTEDriftGetLimiter(d, &lim));
    PetscCall(PetscSNPrintf(hf->driftname, sizeof(hf->driftname), "%s (limiter %s)", BTEDriftForms[form], BTEDriftLimiters[lim]));
  } else PetscCall(PetscStrncpy(hf->driftname, BTEDriftForms[form], sizeof(hf->driftname)));
  {
    /* the b-vectors as grid steps m_a = b . a_a nk_a / (2 pi) */
    PetscInt         nb, nk[3];
    const PetscReal *b;
    PetscReal        lat[9];
    PetscCall(BTEDriftGetBVectors(d, &nb, &b, NULL));
    PetscCall(BTEGetGrid(hf->bte, NULL, nk, lat, NULL, NULL));
    hd->nsteps = PetscMin(nb, 64);
    for (PetscInt k = 0; k < hd->nsteps; k++)
      for (PetscInt a = 0; a < 3; a++) {
        PetscReal x = (b[3 * k] * lat[3 * a] + b[3 * k + 1] * lat[3 * a + 1] + b[3 * k + 2] * lat[3 * a + 2]) * nk[a] / (2 * PETSC_PI);
        hd->steps[3 * k + a] = (PetscInt)PetscFloorReal(x + 0.5);
      }
  }
  hd->ctx        = d;
  hd->setfield   = HFDriftSetField;
  hd->apply      = HFDriftApply;
  hd->setstate   = HFDriftSetState;
  hd->jacmultadd = HFDriftJacMultAdd;
  hd->diagadd    = HFDriftDiagAdd;
  hd->destroy    = HFDriftDestroy;
  PetscFunctionReturn(0);
}
