/* HDF5 writing helpers shared by the transport and high-field writers (io.c).
   The int functions run on rank 0 only, never print, and put a message in err. */
#pragma once
#include <petscsys.h>
#include <hdf5.h>

PETSC_INTERN hid_t BTETrH5Open(const char file[], char tmp[], size_t tmplen, char err[], size_t len);
PETSC_INTERN int   BTETrH5Close(hid_t, const char file[], const char tmp[], int ok, char err[], size_t len);
PETSC_INTERN int   BTETrH5Write(hid_t, const char[], hid_t, int, const hsize_t[], const void *, const char units[], const char desc[], char err[], size_t len);
PETSC_INTERN int   BTETrH5WriteReal(hid_t, const char[], int, const hsize_t[], const PetscReal *, const char units[], const char desc[], char err[], size_t len);
PETSC_INTERN int   BTETrH5WriteInt(hid_t, const char[], int, const hsize_t[], const PetscInt *, const char units[], const char desc[], char err[], size_t len);
PETSC_INTERN int   BTETrH5WriteInt64(hid_t, const char[], int, const hsize_t[], const PetscInt64 *, const char units[], const char desc[], char err[], size_t len);
PETSC_INTERN int   BTETrH5AttrString(hid_t, const char[], const char[], char err[], size_t len);
PETSC_INTERN int   BTETrH5AttrReal(hid_t, const char[], double, char err[], size_t len);
PETSC_INTERN int   BTETrH5AttrInt(hid_t, const char[], long long, char err[], size_t len);
PETSC_INTERN PetscErrorCode BTETrH5Run(MPI_Comm, int (*)(void *, const char[], char[], size_t), void *, const char file[]);
