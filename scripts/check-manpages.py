#!/usr/bin/env python3
"""Every function of the public API (PETSC_EXTERN PetscErrorCode in include/bte.h and the headers it
includes from include/bte/) has a manual page: a /*@ ... @*/ block directly above its one
definition under src/, starting with "NAME - summary", naming every parameter of the definition in
a parameter list ("name - ..."), with a Level: and a .seealso: line.

usage: check-manpages.py [ROOT]   (ROOT: the repository, default the current directory)
Prints one line per problem and exits 1 if there is one."""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
main = os.path.join(root, 'include', 'bte.h')
headers = [main] + [os.path.join(root, 'include', h) for h in re.findall(r'#include\s*<(bte/[^>]+)>', open(main).read())]
names = []
for h in headers:
    names += re.findall(r'PETSC_EXTERN\s+PetscErrorCode\s+(\w+)\s*\(', open(h).read())
sources = {f: open(f).read() for f in sorted(glob.glob(os.path.join(root, 'src', '**', '*.c'), recursive=True))}


def params(sig):
    out, depth, cur = [], 0, ''
    for ch in sig:
        depth += ch == '('
        depth -= ch == ')'
        if ch == ',' and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    out.append(cur)
    res = []
    for p in (p.strip() for p in out):
        if not p or p == 'void':
            continue
        m = re.search(r'\(\s*\*\s*(\w+)\s*\)', p) or re.search(r'(\w+)\s*(?:\[[^\]]*\]\s*)*$', p)
        res.append(m.group(1))
    return res


problems = []
for name in names:
    defs = [(f, m) for f, t in sources.items() for m in re.finditer(r'^PetscErrorCode(?:\s+|\s*\()' + name + r'\)?\s*\((.*?)\)\s*\n\{', t, re.M | re.S)]  # (name): a definition that a macro of the same name must not expand
    if len(defs) != 1:
        problems.append(f'{name}: {len(defs)} definitions under src/ (expected 1)')
        continue
    f, m = defs[0]
    before = sources[f][:m.start()]
    where = f'{os.path.relpath(f, root)}: {name}'
    if not before.endswith('@*/\n'):
        problems.append(f'{where}: no /*@ ... @*/ manual page directly above the definition')
        continue
    block = before[before.rfind('/*@'):]
    lines = block.splitlines()
    if len(lines) < 2 or not re.match(r'\s*' + name + r' - \S', lines[1]):
        problems.append(f'{where}: the manual page does not start with "{name} - summary"')
    for p in params(m.group(1)):
        if not re.search(r'^[.+-]\s+' + p + r'\s+- \S', block, re.M):
            problems.append(f'{where}: the manual page does not describe the parameter {p}')
    for key in ('Level:', '.seealso:'):
        if key not in block:
            problems.append(f'{where}: the manual page has no {key}')
for p in problems:
    print(p)
print(f'{len(names)} public functions, {len(problems)} problems')
sys.exit(1 if problems else 0)
