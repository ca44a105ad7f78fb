/* Diagnostics at setup (src/bte/diagnostics.c, docs/diagnostics.md): thresholds, the computation
   that can reuse a run's collision operator, and the HDF5 writer the output files share. */
#pragma once
#include <bte/private/bteimpl.h>
#include <hdf5.h>

/* Above these a view prints the line with WARNING and one line of advice */
#define BTE_DIAG_DEFECT_MAX 0.05 /* equilibrium defect */
#define BTE_DIAG_TRELAX_MAX 0.02 /* |relaxation temperature / T - 1| */
#define BTE_DIAG_EDGE_MAX   1e-3 /* share of the carriers within edge_width of the window's top */
#define BTE_DIAG_EDGE_KT    3.0  /* edge_width in kT */
#define BTE_DIAG_VREL_MAX   1e-5 /* |mean velocity of the stationary state| / mean thermal speed (its solve leaves ~1e-7 on coarse grids) */
/* Below this a view warns: the participation number of the thermal distribution (docs/diagnostics.md,
   "Thermal sampling": the models' mobilities were 7 % to 4x off below it, within 3 % above it) */
#define BTE_DIAG_SAMPLING_MIN 100.0

/* As BTEGetDiagnostics, computing them (if not yet) with coll when it is set up at the BTE's
   temperature in double precision (a run's operator: no second one is built), else with a
   temporary operator. coll may be NULL. Collective. */
PETSC_INTERN PetscErrorCode BTEDiagnosticsCompute(BTE, BTECollision, BTEDiagnostics *);
/* The diagnostics' lines of BTEView (computing them if needed; collective) */
PETSC_INTERN PetscErrorCode BTEDiagnosticsView(BTE, PetscViewer);
/* Why they were not computed ("" if they were) */
PETSC_INTERN PetscErrorCode BTEDiagnosticsGetReason(BTE, const char *[]);
/* Writes group /diagnostics of file (or group) loc with the values of d as attributes (units in
   <name>_units). Rank 0 only, no PETSc calls: returns 0, or -1 with a message in err. */
PETSC_INTERN int BTEDiagnosticsWriteH5(hid_t loc, const BTEDiagnostics *d, const char why[], char err[], size_t len);
