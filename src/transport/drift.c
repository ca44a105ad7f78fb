/* The high-field solver's view of the drift term (physics.md section 5): an adapter
   to the dynamics module's BTEDrift (b-vector finite differences, its -bte_drift_form). */
#include "transportimpl.h"

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
  PetscCall(BTEDriftSetFromOptions(d));
  PetscCall(BTEDriftSetUp(d));
  PetscCall(BTEDriftGetForm(d, &form));
  hd->positive   = form == BTE_DRIFT_LOG ? PETSC_TRUE : PETSC_FALSE;
  hd->ctx        = d;
  hd->setfield   = HFDriftSetField;
  hd->apply      = HFDriftApply;
  hd->setstate   = HFDriftSetState;
  hd->jacmultadd = HFDriftJacMultAdd;
  hd->diagadd    = HFDriftDiagAdd;
  hd->destroy    = HFDriftDestroy;
  PetscFunctionReturn(0);
}
