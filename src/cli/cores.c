/* A note when a rank's CPU binding leaves it far fewer cores than its share of the node, or when
   the ranks of a node run more OpenMP threads in all than it has cores.

   The host steps of a run (building a model's channels, the collision layout, the diagnostics) run
   on OpenMP threads, as many as the process may use. mpiexec binds each rank to one core by default
   (OpenMPI: --bind-to core for up to two ranks), so `mpiexec -n 1 bte ...` on a 16-core GPU host
   builds GaAs 90^3 on one core: 13.8 s of set-up where the GPU then steps 1 ps in 2.1 s. Nothing
   is wrong, so this is a note, not an error; it is left out when OMP_NUM_THREADS is set (the
   user chose the threads) and where the binding cannot be read. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "commands.h"
#if defined(_OPENMP) && defined(__linux__)
  #include <sched.h>
  #include <stdio.h>
  #include <stdlib.h>
  #include <unistd.h>
  #include <omp.h>

/* CPUs in a list such as "0-15,32-47" (cgroup v2's cpuset.cpus.effective); 0 if unreadable */
static int CountCPUList(const char *path)
{
  FILE *f = fopen(path, "r");
  char  buf[4096], *p;
  int   n = 0;

  if (!f) return 0;
  if (!fgets(buf, sizeof(buf), f)) buf[0] = 0;
  fclose(f);
  for (p = buf; *p && *p != '\n';) {
    char *end;
    long  a = strtol(p, &end, 10), b = a;
    if (end == p) return 0;
    p = end;
    if (*p == '-') {
      b = strtol(p + 1, &end, 10);
      if (end == p + 1 || b < a) return 0;
      p = end;
    }
    n += (int)(b - a + 1);
    if (*p == ',') p++;
    else if (*p && *p != '\n') return 0;
  }
  return n;
}
#endif

PetscErrorCode BTECommandCheckCores(MPI_Comm comm)
{
  PetscFunctionBegin;
#if defined(_OPENMP) && defined(__linux__)
  {
    cpu_set_t   set;
    MPI_Comm    node;
    PetscMPIInt nlocal, rank;
    int         mine = 0, all, threads = omp_get_max_threads(), in[4], out[4];

    /* the cores the node gives this job: its cgroup's cpuset (a container's limit), else all */
    all = CountCPUList("/sys/fs/cgroup/cpuset.cpus.effective");
    if (all <= 0) all = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (!sched_getaffinity(0, sizeof(set), &set)) mine = CPU_COUNT(&set);
    PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    PetscCallMPI(MPI_Comm_size(node, &nlocal));
    PetscCallMPI(MPI_Comm_free(&node));
    /* bound to at most half of this rank's share of the node, the threads following the binding;
       or, unbound or bound to a socket, every rank of the node running as many threads as the
       node has cores (their host steps then compete for them) */
    in[0] = !getenv("OMP_NUM_THREADS") && mine > 0 && all / nlocal >= 2 && 2 * mine <= all / nlocal && threads <= mine;
    in[1] = in[0] ? mine : -1; /* the line reports a bound rank */
    in[2] = in[0] ? threads : -1;
    in[3] = !getenv("OMP_NUM_THREADS") && nlocal > 1 && threads * (int)nlocal > all ? threads : -1;
    PetscCallMPI(MPI_Allreduce(in, out, 4, MPI_INT, MPI_MAX, comm));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (out[0] && !rank) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bte: note: a rank may use %d of the %d cores of its node (its CPU binding; %d rank(s) there), so the host steps of the set-up run on %d thread(s); to use the node's cores give mpiexec --map-by slot:PE=%d (OpenMPI; or --bind-to none) with OMP_NUM_THREADS=%d\n", out[1], all, (int)nlocal, out[2], all / nlocal, all / nlocal));
    else if (out[3] > 0 && !rank) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bte: note: the %d ranks of a node run up to %d OpenMP threads each on its %d cores, so their host steps compete for them; set OMP_NUM_THREADS=%d (OpenMPI: with mpiexec --map-by slot:PE=%d)\n", (int)nlocal, out[3], all, PetscMax(1, all / nlocal), PetscMax(1, all / nlocal)));
  }
#else
  (void)comm;
#endif
  PetscFunctionReturn(0);
}
