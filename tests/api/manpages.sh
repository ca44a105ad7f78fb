# Every public function (include/bte.h and include/bte/transport.h) has a /*@ ... @*/ manual page
# above its definition naming all its parameters (scripts/check-manpages.py). The checker must also
# catch what it is for: on a copy of the sources with one page removed and one parameter renamed,
# it names both and fails.
set -e
root=$(cd "$TESTDIR/.." && pwd)
py=${PYTHON:-python3}
"$py" "$root/scripts/check-manpages.py" "$root"
mkdir -p copy && cp -r "$root/include" "$root/src" copy/
# drop the page of BTESetUp; rename a parameter in the page of BTESetTemperature
"$py" - copy <<'PY'
import re, sys
f = sys.argv[1] + '/src/bte/bte.c'
t = open(f).read()
t, n1 = re.subn(r'/\*@\n   BTESetUp - .*?@\*/\n(?=PetscErrorCode BTESetUp\()', '', t, flags=re.S)
t, n2 = re.subn(r'(   BTESetTemperature - .*?)\n([.+-]\s+)T(\s+- )', r'\1\n\2Temp\3', t, count=1, flags=re.S)
assert n1 == 1 and n2 == 1, (n1, n2)
open(f, 'w').write(t)
PY
if "$py" "$root/scripts/check-manpages.py" copy > bad.txt; then cat bad.txt; echo "the checker passed sources with a page missing"; exit 1; fi
cat bad.txt
grep -q "BTESetUp: no /\*@" bad.txt
grep -q "BTESetTemperature: the manual page does not describe the parameter T" bad.txt
