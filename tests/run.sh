#!/bin/bash
# bte test runner: every tests/<area>/*.sh is one test: exit 0 pass; exit 77 with a last line
# "skip: <reason>" is a skip (PETSc's PETSC_ERR_PLIB is also 77, so the line is required); else fail.
# Environment from the makefile: BTE (driver), BUILD, MPIEXEC, TEST_NP, BTE_HAVE_CUDA, BTE_SANITIZE.
# BTE_SANITIZE=1 (make check-sanitize): bte is built with ASan + UBSan; a report makes the process
# exit 86, and a test whose log holds a report fails whatever its own exit status.
cd "$(dirname "$0")/.." || exit 1
export TESTDIR=$(pwd)/tests
export PYTHON=${PYTHON:-$(scripts/find-python.sh 2>/dev/null)}
export MPIEXEC=${MPIEXEC:-mpiexec}
case "$MPIEXEC" in *--oversubscribe*) ;; *) MPIEXEC="$MPIEXEC --oversubscribe";; esac
[ "$(id -u)" -eq 0 ] && case "$MPIEXEC" in *--allow-run-as-root*) ;; *) MPIEXEC="$MPIEXEC --allow-run-as-root";; esac
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
if [ "$BTE_SANITIZE" = 1 ]; then
  # Reports go to stderr (log_path is unreliable with GCC 12's runtimes) and exit 86; leaks are not
  # checked: PETSc, OpenMPI and HDF5 keep memory to exit by design.
  export ASAN_OPTIONS="halt_on_error=1:exitcode=86:detect_leaks=0:verify_asan_link_order=0:detect_odr_violation=0:suppressions=$TESTDIR/sanitizers.supp${BTE_ASAN_OPTIONS:+:$BTE_ASAN_OPTIONS}"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86${BTE_UBSAN_OPTIONS:+:$BTE_UBSAN_OPTIONS}"
  export BTE_SANITIZER_REPORT='ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer|ERROR: LeakSanitizer'
fi
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
  if [ "$BTE_SANITIZE" = 1 ] && grep -qE "$BTE_SANITIZER_REPORT" "$d/log"; then
    [ $rc -eq 0 ] || [ $rc -eq 77 ] && echo "a sanitizer reported an error (the test itself exited $rc)" >> "$d/log"
    rep=$(grep -m1 -B2 -A12 -E "$BTE_SANITIZER_REPORT" "$d/log"); echo "$rep" >> "$d/log"; rc=86
  fi
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
