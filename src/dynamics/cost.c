/* Cost accounting of bte dynamics (docs/dynamics.md, "Cost and error against a reference").

   Counts over one BTEDynamicsSolve: accepted steps (TSGetStepNumber, less the restart's step),
   rejected steps (TSGetStepRejections), nonlinear and linear iterations (TSGetSNESIterations,
   TSGetKSPIterations: 0 for explicit methods), collision applies and collision Jacobian applies
   (counters of the BTECollision, the same calls as the BTECollApply / BTECollJacApply log events).
   A run that switches method (-bte_switch_time) counts both TS objects: the first's rejections and
   iterations are kept at the switch (cost.leg_*), the step number continues across it.
   Wall time: setup (BTEDynamicsCreate to the first step, the output's share excepted), stepping
   (TSSolve less the snapshots taken inside it) and output (snapshots: HDF5 writes, monitor lines,
   reference comparisons; opening and closing the file). */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/collisionimpl.h>
#include <stdio.h>

PetscErrorCode BTEDynamicsCostBegin(BTEDynamics dyn)
{
  PetscFunctionBegin;
  dyn->cost.coll0 = dyn->coll ? dyn->coll->napplies : 0;
  dyn->cost.jac0  = dyn->coll ? dyn->coll->njacapplies : 0;
  PetscFunctionReturn(0);
}

/* The counts; w0, w1: PetscTime before and after TSSolve, s0 the snapshot time (cost.tsnap) at w0.
   The wall times: setup and stepping are final, output and total grow until the end of the solve. */
PetscErrorCode BTEDynamicsCostEnd(BTEDynamics dyn, PetscLogDouble w0, PetscLogDouble w1, PetscLogDouble s0)
{
  BTEDynamicsCost *c = &dyn->cost;
  PetscInt         step;

  PetscFunctionBegin;
  PetscCall(TSGetStepNumber(dyn->ts, &step));
  c->steps = step - dyn->step0;
  PetscCall(TSGetStepRejections(dyn->ts, &c->rejects));
  c->rejects += dyn->src.npositivity + dyn->src.nguardstep + c->leg_rejects; /* rolled back after the TS accepted them (sources.c); the first method's, after a switch */
  PetscCall(TSGetSNESIterations(dyn->ts, &c->snes_its));
  PetscCall(TSGetKSPIterations(dyn->ts, &c->ksp_its));
  c->snes_its += c->leg_snes_its;
  c->ksp_its += c->leg_ksp_its;
  c->coll_applies = dyn->coll ? dyn->coll->napplies - c->coll0 : 0;
  c->jac_applies  = dyn->coll ? dyn->coll->njacapplies - c->jac0 : 0;
  c->setup    = w0 - c->tcreate - s0;
  c->stepping = (w1 - w0) - (c->tsnap - s0);
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsCostView(BTEDynamics dyn)
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)dyn);
  BTEDynamicsCost *c    = &dyn->cost;

  PetscFunctionBegin;
  PetscCall(PetscPrintf(comm, "dynamics: cost: %" PetscInt_FMT " steps, %" PetscInt_FMT " rejected, %" PetscInt64_FMT " collision applies, %" PetscInt64_FMT " Jacobian applies, %" PetscInt_FMT " nonlinear and %" PetscInt_FMT " linear iterations\n", c->steps, c->rejects, c->coll_applies, c->jac_applies, c->snes_its, c->ksp_its));
  if (dyn->src.positivity || dyn->src.nguard || dyn->src.nguardstep) {
    /* positivity's count only when it was on: "0 steps outside [0, 1]" read as "none left it" on a
       run whose occupations went to -0.26 unchecked */
    char pos[96] = "";
    if (dyn->src.positivity) PetscCall(PetscSNPrintf(pos, sizeof(pos), "%" PetscInt_FMT " steps outside [0, 1] (-bte_positivity), ", dyn->src.npositivity));
    PetscCall(PetscPrintf(comm, "dynamics: range rejections: %s%" PetscInt_FMT " stages and %" PetscInt_FMT " steps outside the finite-state guard (-bte_state_check %s)\n", pos, dyn->src.nguard, dyn->src.nguardstep, BTEStateCheckTypes[dyn->scheckuse]));
  }
  PetscCall(PetscPrintf(comm, "dynamics: wall time: setup %.3f s, stepping %.3f s, output %.3f s, total %.3f s\n", (double)c->setup, (double)c->stepping, (double)c->output, (double)c->total));
  /* the step rate from bte's own clock (PetscTime around TSSolve, output excluded): on the GPU the
     guard's reduction synchronises every step (-bte_state_check step) or every stage (stage), so
     the device cannot run ahead of this clock by more than a step */
  if (c->steps > 0 && c->stepping > 0) PetscCall(PetscPrintf(comm, "dynamics: step rate: %.4g steps/s, %.4g ms per step, %.4g ms per apply (stepping time / collision and Jacobian applies)\n", (double)(c->steps / c->stepping), (double)(1e3 * c->stepping / c->steps), c->coll_applies + c->jac_applies > 0 ? (double)(1e3 * c->stepping / (PetscReal)(c->coll_applies + c->jac_applies)) : 0.0));
  PetscFunctionReturn(0);
}

void BTEJSONString(FILE *fp, const char s[])
{
  fputc('"', fp);
  for (const char *p = s; p && *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(fp, "\\%c", *p);
    else if ((unsigned char)*p < 0x20) fprintf(fp, "\\u%04x", (unsigned)(unsigned char)*p);
    else fputc(*p, fp);
  }
  fputc('"', fp);
}

/* a real as JSON (no NaN/Inf in JSON: null) */
static void BTEJSONReal(FILE *fp, double v)
{
  if (PetscIsInfOrNanReal((PetscReal)v)) fprintf(fp, "null");
  else fprintf(fp, "%.17g", v);
}

static PetscReal BTEMaxOf(PetscInt n, const PetscReal *v)
{
  PetscReal m = 0;
  for (PetscInt i = 0; i < n; i++) {
    if (PetscIsInfOrNanReal(v[i])) return v[i];
    m = PetscMax(m, v[i]);
  }
  return m;
}

/* -bte_summary FILE.json: the cost (and the reference errors) of the run; rank 0 writes */
PetscErrorCode BTEDynamicsCostWriteJSON(BTEDynamics dyn)
{
  MPI_Comm          comm = PetscObjectComm((PetscObject)dyn);
  BTEDynamicsCost  *c    = &dyn->cost;
  PetscMPIInt       rank;
  int               ok = 1;
  TSType            tstype, t1 = NULL;
  TSAdapt           adapt;
  TSAdaptType       a1 = NULL;
  TSAdaptType       atype;
  TSConvergedReason reason;
  PetscReal         t;

  PetscFunctionBegin;
  if (!c->summary[0]) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(TSGetType(dyn->ts, &tstype));
  PetscCall(TSGetAdapt(dyn->ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &atype));
  PetscCall(TSGetConvergedReason(dyn->ts, &reason));
  PetscCall(TSGetTime(dyn->ts, &t));
  if (dyn->tswitch >= 0) {
    TSAdapt ad1;
    TS      first = dyn->switched ? dyn->tssw : dyn->ts; /* the method before the switch */
    PetscCall(TSGetType(first, &t1));
    PetscCall(TSGetAdapt(first, &ad1));
    PetscCall(TSAdaptGetType(ad1, &a1));
  }
  if (rank == 0) {
    FILE *fp = fopen(c->summary, "w");
    if (!fp) ok = 0;
    else {
      const BTEDynamicsReference *r = &dyn->ref;
      fprintf(fp, "{\n  \"format\": \"bte-dynamics-summary\",\n  \"version\": 1,\n");
      fprintf(fp, "  \"ts_type\": ");
      BTEJSONString(fp, tstype ? tstype : "");
      fprintf(fp, ",\n  \"ts_adapt_type\": ");
      BTEJSONString(fp, atype ? atype : "");
      if (dyn->tswitch >= 0) {
        /* -bte_switch_time: ts_type and ts_adapt_type above are the second method's (the TS at the end) */
        fprintf(fp, ",\n  \"switch_time\": ");
        BTEJSONReal(fp, dyn->tswitch);
        fprintf(fp, ",\n  \"switched\": %s,\n  \"first_ts_type\": ", dyn->switched ? "true" : "false");
        BTEJSONString(fp, t1 ? t1 : "");
        fprintf(fp, ",\n  \"first_ts_adapt_type\": ");
        BTEJSONString(fp, a1 ? a1 : "");
      }
      fprintf(fp, ",\n  \"converged_reason\": ");
      BTEJSONString(fp, TSConvergedReasons[reason]);
      fprintf(fp, ",\n  \"initial_time\": ");
      BTEJSONReal(fp, dyn->t0);
      fprintf(fp, ",\n  \"final_time\": ");
      BTEJSONReal(fp, t);
      /* the final time asked for: final_time falls short of it when the run stopped early
         (-ts_max_steps; complete false) or at a steady state */
      fprintf(fp, ",\n  \"requested_final_time\": ");
      BTEJSONReal(fp, dyn->tend);
      fprintf(fp, ",\n  \"complete\": %s", dyn->stopped ? "false" : "true");
      fprintf(fp, ",\n  \"time_units\": \"fs\",\n  \"snapshots_written\": %lld,\n  \"snapshots_in_file\": %lld,\n", (long long)(dyn->out.nt - dyn->out.nt0), (long long)dyn->out.nt);
      fprintf(fp, "  \"steps\": %lld,\n  \"rejected_steps\": %lld,\n  \"collision_applies\": %lld,\n  \"jacobian_applies\": %lld,\n  \"nonlinear_iterations\": %lld,\n  \"linear_iterations\": %lld,\n", (long long)c->steps, (long long)c->rejects, (long long)c->coll_applies, (long long)c->jac_applies, (long long)c->snes_its, (long long)c->ksp_its);
      fprintf(fp, "  \"positivity_rejections\": %lld,\n  \"guard_rejections\": %lld,\n  \"state_check\": \"%s\",\n", (long long)dyn->src.npositivity, (long long)(dyn->src.nguard + dyn->src.nguardstep), BTEStateCheckTypes[dyn->scheckuse]);
      if (dyn->src.sthr > 0) {
        fprintf(fp, "  \"steady_state\": {\"reached\": %s, \"threshold\": ", dyn->src.steady ? "true" : "false");
        BTEJSONReal(fp, dyn->src.sthr);
        fprintf(fp, ", \"time\": ");
        BTEJSONReal(fp, dyn->src.steady ? dyn->src.steadyt : t);
        fprintf(fp, ", \"drift_velocity\": ");
        BTEJSONReal(fp, dyn->src.steady ? dyn->src.steadyv : dyn->src.vprev);
        fprintf(fp, ", \"acceleration\": ");
        BTEJSONReal(fp, dyn->src.steady ? dyn->src.steadyacc : dyn->src.lastacc);
        fprintf(fp, ", \"units\": {\"time\": \"fs\", \"drift_velocity\": \"cm/s\", \"acceleration\": \"cm/s^2\"}},\n");
      }
      if (dyn->src.pdensity > 0) {
        fprintf(fp, "  \"pump\": {\"density\": ");
        BTEJSONReal(fp, dyn->src.pdensity);
        fprintf(fp, ", \"injected_fraction\": ");
        BTEJSONReal(fp, dyn->src.psum > 0 ? BTEDynamicsPumpInjected(dyn, dyn->t0, t) / dyn->src.psum : 0.0);
        fprintf(fp, "},\n");
      }
      fprintf(fp, "  \"wall_time\": {\"setup\": ");
      BTEJSONReal(fp, c->setup);
      fprintf(fp, ", \"stepping\": ");
      BTEJSONReal(fp, c->stepping);
      fprintf(fp, ", \"output\": ");
      BTEJSONReal(fp, c->output);
      fprintf(fp, ", \"total\": ");
      BTEJSONReal(fp, c->total);
      fprintf(fp, ", \"steps_per_second\": ");
      BTEJSONReal(fp, c->steps > 0 && c->stepping > 0 ? c->steps / c->stepping : 0.0);
      fprintf(fp, ", \"units\": \"s\"}");
      if (r->file[0]) {
        const char      *names[9] = {"time", "f_max", "f_l2", "f_l2_relative", "carriers", "carrier_density", "mean_energy", "drift_velocity", "population_max"};
        const PetscReal *vals[9]  = {r->t, r->fmax, r->f2, r->f2rel, r->carriers, r->density, r->emean, r->vdrift, r->popmax};
        fprintf(fp, ",\n  \"reference\": ");
        BTEJSONString(fp, r->file);
        fprintf(fp, ",\n  \"reference_error\": {\n    \"snapshots\": %lld,\n    \"max\": {", (long long)r->n);
        for (int q = 1; q < 9; q++) {
          fprintf(fp, "%s\"%s\": ", q > 1 ? ", " : "", names[q]);
          BTEJSONReal(fp, BTEMaxOf(r->n, vals[q]));
        }
        fprintf(fp, "},\n    \"final\": {");
        for (int q = 1; q < 9; q++) {
          fprintf(fp, "%s\"%s\": ", q > 1 ? ", " : "", names[q]);
          BTEJSONReal(fp, r->n ? vals[q][r->n - 1] : 0.0);
        }
        fprintf(fp, "}");
        for (int q = 0; q < 9; q++) {
          fprintf(fp, ",\n    \"%s\": [", names[q]);
          for (PetscInt i = 0; i < r->n; i++) {
            if (i) fprintf(fp, ", ");
            BTEJSONReal(fp, vals[q][i]);
          }
          fprintf(fp, "]");
        }
        fprintf(fp, "\n  }");
      }
      fprintf(fp, "\n}\n");
      if (fclose(fp)) ok = 0;
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_WRITE, "Cannot write the run summary %s (-bte_summary): check the directory exists and is writable", c->summary);
  PetscCall(PetscPrintf(comm, "dynamics: wrote the run summary to %s\n", c->summary));
  PetscFunctionReturn(0);
}
