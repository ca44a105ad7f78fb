/* bte: electron-phonon Boltzmann transport equation on PETSc.
   Public API: what an application that embeds bte includes. Units: eV, fs, Angstrom, K. */
#pragma once

#include <petscvec.h>
#include <petscmat.h>
#include <petscts.h>
#include <petscviewer.h>

#define BTE_VERSION_MAJOR 0
#define BTE_VERSION_MINOR 1
#define BTE_VERSION_PATCH 0

/* Physical constants in bte's units */
#define BTE_HBAR   0.6582119569     /* eV fs */
#define BTE_KB     8.617333262e-5   /* eV / K */
#define BTE_RY_EV  13.605693123     /* eV per Rydberg */

/* ------------------------------------------------------------------------- */
/* BTE: the state space (k grid, bands, energy window, states over ranks) and
   the scattering channels each rank owns.                                   */
typedef struct _p_BTE *BTE;
PETSC_EXTERN PetscClassId BTE_CLASSID;

PETSC_EXTERN PetscErrorCode BTEInitializePackage(void);
PETSC_EXTERN PetscErrorCode BTEFinalizePackage(void);

PETSC_EXTERN PetscErrorCode BTECreate(MPI_Comm, BTE *);
PETSC_EXTERN PetscErrorCode BTESetFromOptions(BTE);
PETSC_EXTERN PetscErrorCode BTESetUp(BTE);
PETSC_EXTERN PetscErrorCode BTEView(BTE, PetscViewer);
PETSC_EXTERN PetscErrorCode BTEDestroy(BTE *);

/* Where the table comes from: a file (-bte_input) or a built-in model (-bte_model). */
PETSC_EXTERN PetscErrorCode BTESetInputFile(BTE, const char[]);
PETSC_EXTERN PetscErrorCode BTESetModel(BTE, const char[]);
PETSC_EXTERN PetscErrorCode BTEGetModel(BTE, const char *[]);
PETSC_EXTERN PetscErrorCode BTESetGrid(BTE, PetscInt);
PETSC_EXTERN PetscErrorCode BTESetTemperature(BTE, PetscReal);
PETSC_EXTERN PetscErrorCode BTEGetTemperature(BTE, PetscReal *);
PETSC_EXTERN PetscErrorCode BTESetSmearing(BTE, PetscReal);
PETSC_EXTERN PetscErrorCode BTEGetSmearing(BTE, PetscReal *);

/* Writes the (set up) table to an HDF5 file, docs/format.md. Collective. */
PETSC_EXTERN PetscErrorCode BTEWriteTable(BTE, const char[]);

/* State space. States i = (n,k) inside the window, numbered 0..N-1 globally,
   owned in contiguous blocks by the ranks (a PetscLayout). */
PETSC_EXTERN PetscErrorCode BTEGetStateLayout(BTE, PetscLayout *);
PETSC_EXTERN PetscErrorCode BTEGetNumStates(BTE, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode BTEGetNumChannels(BTE, PetscCount *, PetscInt64 *);
PETSC_EXTERN PetscErrorCode BTEGetLocalStates(BTE, const PetscReal *[], const PetscReal *[], const PetscInt *[], const PetscInt *[]);
PETSC_EXTERN PetscErrorCode BTEGetGrid(BTE, PetscInt *, PetscInt[3], PetscReal[9], PetscReal[9], PetscReal *);
PETSC_EXTERN PetscErrorCode BTEGetSpinDegeneracy(BTE, PetscInt *);
PETSC_EXTERN PetscErrorCode BTECreateStateVec(BTE, Vec *);

/* Estimated memory (bytes) for the whole run and for this rank. */
PETSC_EXTERN PetscErrorCode BTEGetMemoryEstimate(BTE, PetscLogDouble *, PetscLogDouble *);

/* Occupation helpers */
PETSC_EXTERN PetscErrorCode BTEFermiDirac(BTE, PetscReal, PetscReal, Vec);

/* ------------------------------------------------------------------------- */
/* BTECollision: the collision integral I[f] (physics.md eq. 2) and its Jacobian
   (eq. 4) on the states of a BTE. Implementations (-bte_collision_type):
   baseline (Perturbo v2.2, per (k,q) pair records, atomics), tgt (Perturbo v3's
   target layer, two passes), fused (precomputed P/Q, one pass over a
   target-sorted layout; the default). Vectors come from BTECreateStateVec().  */
typedef struct _p_BTECollision *BTECollision;
typedef const char             *BTECollisionType;
#define BTECOLLISIONBASELINE "baseline"
#define BTECOLLISIONTGT      "tgt"
#define BTECOLLISIONFUSED    "fused"
PETSC_EXTERN PetscClassId BTECOLLISION_CLASSID;

PETSC_EXTERN PetscErrorCode BTECollisionCreate(BTE, BTECollision *);
PETSC_EXTERN PetscErrorCode BTECollisionSetType(BTECollision, BTECollisionType);
PETSC_EXTERN PetscErrorCode BTECollisionGetType(BTECollision, BTECollisionType *);
PETSC_EXTERN PetscErrorCode BTECollisionSetFromOptions(BTECollision);
PETSC_EXTERN PetscErrorCode BTECollisionSetUp(BTECollision);
PETSC_EXTERN PetscErrorCode BTECollisionView(BTECollision, PetscViewer);
PETSC_EXTERN PetscErrorCode BTECollisionDestroy(BTECollision *);
PETSC_EXTERN PetscErrorCode BTECollisionRegister(const char[], PetscErrorCode (*)(BTECollision));
/* I = I[f] */
PETSC_EXTERN PetscErrorCode BTECollisionApply(BTECollision, Vec, Vec);
/* y = J(f) x, J = dI/df at f */
PETSC_EXTERN PetscErrorCode BTECollisionJacobianApply(BTECollision, Vec, Vec, Vec);
/* A Mat for J: MATSHELL by default (with MatMult, MatGetDiagonal), AIJ with
   -bte_jacobian_assembled; BTECollisionComputeJacobian sets its state f. */
PETSC_EXTERN PetscErrorCode BTECollisionCreateJacobian(BTECollision, Mat *);
PETSC_EXTERN PetscErrorCode BTECollisionComputeJacobian(BTECollision, Vec, Mat);
/* TS callbacks with the BTECollision as context */
PETSC_EXTERN PetscErrorCode BTECollisionTSRHSFunction(TS, PetscReal, Vec, Vec, void *);
PETSC_EXTERN PetscErrorCode BTECollisionTSRHSJacobian(TS, PetscReal, Vec, Mat, Mat, void *);
