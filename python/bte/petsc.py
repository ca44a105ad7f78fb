"""The collision Jacobian of a table as a petsc4py matrix (optional: needs petsc4py).

    import bte, bte.petsc
    coll = bte.Collision(bte.Table("gaas.h5"), temperature=300)
    J = bte.petsc.collision_jacobian(coll, f)        # PETSc AIJ Mat, J(f) = dI/df in 1/fs

The values come from bte.Collision (numpy; docs/collision.md's formulas), so the Mat can be used with
any petsc4py solver (KSP, SLEPc's eigensolvers) on tables small enough to assemble."""
import numpy as np

try:
    from petsc4py import PETSc
except ImportError as _e:  # a clear reason instead of a bare ModuleNotFoundError deep in a call
    raise ImportError("bte.petsc needs petsc4py, which this Python cannot import (%s); "
                      "the rest of the bte package works without it" % _e) from None


def _local_rows(n, comm):
    """PETSc's default split of n rows over the ranks of comm (PetscSplitOwnership)."""
    size, rank = comm.getSize(), comm.getRank()
    nloc = n // size + (1 if rank < n % size else 0)
    start = rank * (n // size) + min(rank, n % size)
    return start, start + nloc


def collision_jacobian(coll, f, comm=None):
    """J(f) of coll (a bte.Collision) at occupations f (N,) as an assembled AIJ Mat on comm (default
    PETSc.COMM_SELF); with several ranks each holds its block of rows (PETSc's default split)."""
    comm = PETSc.COMM_SELF if comm is None else comm
    J = coll.jacobian(f).tocsr()
    J.sort_indices()
    n = J.shape[0]
    r0, r1 = _local_rows(n, comm)
    sub = J[r0:r1]
    csr = (sub.indptr.astype(PETSc.IntType), sub.indices.astype(PETSc.IntType), sub.data.astype(PETSc.ScalarType))
    A = PETSc.Mat().createAIJ(size=((r1 - r0, n), (r1 - r0, n)), csr=csr, comm=comm)
    A.assemble()
    return A


def to_vec(a, comm=None):
    """A numpy array (N,) as a PETSc Vec with the rows collision_jacobian gives this rank."""
    comm = PETSc.COMM_SELF if comm is None else comm
    a = np.asarray(a, dtype=PETSc.ScalarType)
    r0, r1 = _local_rows(len(a), comm)
    v = PETSc.Vec().createMPI((r1 - r0, len(a)), comm=comm)
    v.setArray(a[r0:r1])
    return v
