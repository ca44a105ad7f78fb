/* Outputs never clobber inputs (src/io/outfile.c). */
#pragma once
#include <bte/private/bteimpl.h>

/* 1 if a and b name the same file: the same name, or the same device and inode (links) */
PETSC_INTERN int BTESameFile(const char a[], const char b[]);
/* BTECheckOutputFile, also refusing an output (or its FILE.tmp) that is other (option otheropt) */
PETSC_INTERN PetscErrorCode BTECheckOutputFileWith(BTE, const char file[], const char opt[], const char other[], const char otheropt[]);
/* the same for a file opened where it is to be appended to (no FILE.tmp; a symbolic link to it is followed) */
PETSC_INTERN PetscErrorCode BTECheckAppendFileWith(BTE, const char file[], const char opt[], const char other[], const char otheropt[]);
