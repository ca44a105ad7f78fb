# make install into a scratch prefix, then use the install as an application would, with nothing
# of the build tree: the library's SONAME and version links; RUNPATHs on PREFIX/lib and no
# reference to the build directory in the installed binaries (readelf -d); bte.pc alone (no
# PETSc .pc on the path) builds the installed examples, whose headers all come from the prefix
# or PETSc (the compiler's dependency list); the dynamic loader takes libbte from the prefix
# (LD_DEBUG) for the examples and the installed driver. examples/extend.c registers its own
# model and collision type against the installed implementation headers and checks its operator
# against the built-in pair type (on 1 and TEST_NP ranks).
set -e
root=$(cd "$TESTDIR/.." && pwd)
build=$(cd "$BUILD" 2> /dev/null && pwd || echo "$BUILD")
prefix=$(pwd)/prefix
if ! command -v pkg-config > /dev/null; then echo "skip: no pkg-config"; exit 77; fi
# make install relinks the driver from the build's objects against PETSc: a copied build (a
# bundle for a GPU machine: binaries and libraries only) or a machine without PETSc cannot
if [ ! -d "$build/obj/src/cli" ]; then echo "skip: no object files in $BUILD to install from"; exit 77; fi
petsc=0
case " $MAKEFLAGS " in *" PETSC_DIR="*) petsc=1;; esac
for d in "$PETSC_DIR" /usr/lib/petsc /usr/local/petsc /opt/petsc; do [ -n "$d" ] && [ -e "$d/lib/petsc/conf/variables" ] && petsc=1; done
[ $petsc = 1 ] || { echo "skip: no PETSc to build against"; exit 77; }
if ! make -C "$root" --no-print-directory install PREFIX="$prefix" BUILD="$build" > install.log 2>&1; then
  tail -n 20 install.log; echo "make install failed"; exit 1
fi
fail() { echo "FAIL: $*"; exit 1; }

# the library: libbte.so -> libbte.so.MAJOR -> libbte.so.MAJOR.MINOR.PATCH, SONAME libbte.so.MAJOR
ver=$(sed -n 's/^#define BTE_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$prefix/include/bte.h" | paste -sd.)
major=${ver%%.*}
[ "$(readlink "$prefix/lib/libbte.so")" = "libbte.so.$major" ] || fail "libbte.so -> $(readlink "$prefix/lib/libbte.so"), expected libbte.so.$major"
[ "$(readlink "$prefix/lib/libbte.so.$major")" = "libbte.so.$ver" ] || fail "libbte.so.$major -> $(readlink "$prefix/lib/libbte.so.$major"), expected libbte.so.$ver"
[ -f "$prefix/lib/libbte.so.$ver" ] && [ ! -L "$prefix/lib/libbte.so.$ver" ] || fail "no file libbte.so.$ver"
readelf -d "$prefix/lib/libbte.so.$ver" | grep -q "SONAME.*\[libbte.so.$major\]" || fail "SONAME of libbte.so.$ver is not libbte.so.$major"
echo "libbte $ver, SONAME libbte.so.$major"

# RUNPATH on the prefix, nothing of the build tree or the sources
for f in "$prefix/bin/bte" "$prefix/lib/libbte.so.$ver"; do
  readelf -d "$f" > dyn.txt
  ! grep -q -e "$build" -e "$root/" dyn.txt || { cat dyn.txt; fail "$f refers to the build tree"; }
done
readelf -d "$prefix/bin/bte" | grep -E "RUNPATH|RPATH" | grep -q "$prefix/lib" || fail "the installed bte has no RUNPATH on $prefix/lib"
readelf -d "$prefix/bin/bte" | grep -q "NEEDED.*\[libbte.so.$major\]" || fail "the installed bte does not need libbte.so.$major"

# pkg-config alone: only this prefix's pkgconfig directory on the path (no PETSc .pc needed)
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg-config --modversion bte | grep -qx "$ver" || fail "pkg-config --modversion bte: $(pkg-config --modversion bte)"
cc=$(pkg-config --variable=ccompiler bte)
exdir=$(pkg-config --variable=examplesdir bte)
for ex in embed_ts extend; do
  $cc $(pkg-config --cflags bte) -MD -MF $ex.d "$exdir/$ex.c" -o $ex $(pkg-config --libs bte) || fail "building $ex with pkg-config"
  ! grep -q "$root/" $ex.d || { grep "$root/" $ex.d; fail "$ex was compiled with headers of the source tree"; }
  grep -q "$prefix/include/bte.h" $ex.d || fail "$ex did not include the installed bte.h"
  readelf -d $ex | grep -E "RUNPATH|RPATH" | grep -q "$prefix/lib" || fail "$ex has no RUNPATH on $prefix/lib"
done
grep -q "$prefix/include/bte/private/collisionimpl.h" extend.d || fail "extend did not use the installed implementation headers"

# the loader takes libbte from the prefix, never from the build tree
loaded() { # cmd...: the libbte the loader maps (one file of loader output per process: MPI may start other processes)
  rm -f ld.*
  LD_DEBUG=libs LD_DEBUG_OUTPUT="$(pwd)/ld" "$@" > run.out 2> run.err || { cat run.out run.err | tail -n 30; fail "$* failed"; }
  ! grep -q "$build" ld.* || fail "$1 looked into the build tree"
  grep -ho "calling init: [^ ]*libbte[^ ]*" ld.* | sort -u
}
lib=$(loaded ./embed_ts -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -ts_max_time 20 -ts_dt 1 -every 10)
[ "$lib" = "calling init: $prefix/lib/libbte.so.$major" ] || fail "embed_ts loaded '$lib'"
lib=$(loaded ./extend -bte_grid 10)
cat run.out
[ "$lib" = "calling init: $prefix/lib/libbte.so.$major" ] || fail "extend loaded '$lib'"
tail -n 1 run.out | grep -q "all checks passed"
$MPIEXEC -n ${TEST_NP:-2} ./extend -bte_grid 10 | tail -n 1 | grep -q "all checks passed" || fail "extend on ${TEST_NP:-2} ranks"
lib=$(loaded "$prefix/bin/bte" info -bte_model parabolic -bte_grid 6 -bte_parabolic_a 20)
[ "$lib" = "calling init: $prefix/lib/libbte.so.$major" ] || fail "the installed bte loaded '$lib'"
grep -q "states" run.out || { cat run.out; fail "bte info printed no states"; }
echo "installed bte, embed_ts and extend run on $prefix/lib/libbte.so.$major"
