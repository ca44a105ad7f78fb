# One process started without mpiexec (an OpenMPI singleton) skips OpenMPI's daemon and network
# probing (ess_singleton_isolated, pml ob1, btl self: ~0.3 s of a ~0.4 s small run here, 0.4-0.9 s
# of a GPU mobility run) and says so under -info; a launched run, BTE_MPI_DEFAULTS=1, or a value
# the environment already sets keeps OpenMPI's; the results do not change.
. "$TESTDIR/common.sh"
set -e
m="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 10 -bte_view 0"
env -u OMPI_MCA_pml -u OMPI_MCA_btl -u OMPI_MCA_ess_singleton_isolated "$BTE" transport $m -info :sys > single.txt
grep -q "singleton start-up isolated, pml ob1, btl self" single.txt || { cat single.txt; echo "FAILED: a singleton run did not set OpenMPI's start-up"; exit 1; }
BTE_MPI_DEFAULTS=1 "$BTE" transport $m -info :sys > defaults.txt
grep -q "singleton start-up" defaults.txt && { echo "FAILED: BTE_MPI_DEFAULTS=1 did not keep OpenMPI's defaults"; exit 1; }
env -u OMPI_MCA_pml -u OMPI_MCA_btl -u OMPI_MCA_ess_singleton_isolated BTE_MPI_DEFAULTS=0 "$BTE" transport $m -info :sys > zero.txt
grep -q "singleton start-up isolated" zero.txt || { echo "FAILED: BTE_MPI_DEFAULTS=0 kept OpenMPI's defaults"; exit 1; }
OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader "$BTE" transport $m -info :sys > own.txt
grep -q "pml ob1, btl self,vader" own.txt || { cat own.txt; echo "FAILED: a value set in the environment was overridden"; exit 1; }
run_np 1 "$BTE" transport $m -info :sys > launched.txt
grep -q "singleton start-up" launched.txt && { echo "FAILED: a run under mpiexec changed OpenMPI's start-up"; exit 1; }
# the same mobility either way
for f in single defaults launched; do grep -E "^ *300\.00 " $f.txt | awk '{print $4}' > $f.mu; done
cmp -s single.mu defaults.mu && cmp -s single.mu launched.mu || { cat single.mu defaults.mu launched.mu; echo "FAILED: the mobility depends on the start-up"; exit 1; }
[ -s single.mu ] || { echo "FAILED: no mobility printed"; exit 1; }
echo ok
