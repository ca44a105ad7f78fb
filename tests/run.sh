#!/bin/bash
# bte test runner: every tests/<area>/*.sh is one test: exit 0 pass; exit 77 with a last line
# "skip: <reason>" is a skip (PETSc's PETSC_ERR_PLIB is also 77, so the line is required); else fail.
# Environment from the makefile: BTE (driver), BUILD, MPIEXEC, TEST_NP, BTE_HAVE_CUDA.
# Usage: tests/run.sh [pattern ...]   (patterns select tests by path substring)
cd "$(dirname "$0")/.." || exit 1
export TESTDIR=$(pwd)/tests
export PYTHON=${PYTHON:-$(scripts/find-python.sh 2>/dev/null)}
export MPIEXEC=${MPIEXEC:-mpiexec}
case "$MPIEXEC" in *--oversubscribe*) ;; *) MPIEXEC="$MPIEXEC --oversubscribe";; esac
[ "$(id -u)" -eq 0 ] && case "$MPIEXEC" in *--allow-run-as-root*) ;; *) MPIEXEC="$MPIEXEC --allow-run-as-root";; esac
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/bte-tests.XXXXXX")
pass=0; fail=0; skip=0; failed=()
for t in $(find tests -mindepth 2 -name '*.sh' | sort); do
  if [ $# -gt 0 ]; then
    sel=0; for p in "$@"; do case "$t" in *"$p"*) sel=1;; esac; done
    [ $sel -eq 1 ] || continue
  fi
  name=${t#tests/}; name=${name%.sh}
  d="$work/${name//\//_}"; mkdir -p "$d"
  start=$(date +%s)
  (cd "$d" && bash "$TESTDIR/${t#tests/}") > "$d/log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  if [ $rc -eq 0 ]; then pass=$((pass+1)); printf 'ok      %-44s %4ss\n' "$name" "$secs"
  elif [ $rc -eq 77 ] && tail -n 1 "$d/log" | grep -qi '^skip'; then skip=$((skip+1)); printf 'skip    %-44s %s\n' "$name" "$(tail -n 1 "$d/log")"
  else fail=$((fail+1)); failed+=("$name"); printf 'FAIL    %-44s %4ss (rc %d)\n' "$name" "$secs" "$rc"; sed 's/^/    | /' "$d/log" | tail -n 30
  fi
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
[ $skip -gt 0 ] && echo "$skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && rm -rf "$work"
[ $fail -eq 0 ]
