/* Small HDF5 helpers for the scattering-table reader and writer and the output files (src/io).
   The BTEH5* functions that return int never print and never leave an HDF5 handle
   open: on failure they return -1 and put a message for the user in a BTEH5Status
   (the first failure wins). The PETSc layer then raises one collective error. */
#pragma once
#include <petscsys.h>
#include <hdf5.h>

#define BTE_H5_MSGLEN 1024
/* the longest string attribute read (bytes): bte's own are at most a few hundred */
#define BTE_H5_STRING_MAX 65536

typedef struct {
  int  bad;                /* nonzero after the first failure */
  char msg[BTE_H5_MSGLEN]; /* what went wrong, naming the dataset/attribute */
} BTEH5Status;

/* Memory types matching PetscInt and PetscReal */
#if defined(PETSC_USE_64BIT_INDICES)
  #define BTE_H5_NATIVE_INT H5T_NATIVE_INT64
#else
  #define BTE_H5_NATIVE_INT H5T_NATIVE_INT32
#endif
#if defined(PETSC_USE_REAL_SINGLE)
  #define BTE_H5_NATIVE_REAL H5T_NATIVE_FLOAT
#else
  #define BTE_H5_NATIVE_REAL H5T_NATIVE_DOUBLE
#endif

/* HDF5's automatic error printing, switched off while bte reads or writes (bte reports
   errors itself) and restored afterwards. */
typedef struct {
  H5E_auto2_t func;
  void       *data;
} BTEH5Auto;
PETSC_INTERN void BTEH5Silence(BTEH5Auto *);
PETSC_INTERN void BTEH5Restore(const BTEH5Auto *);
PETSC_INTERN int  BTEH5Fail(BTEH5Status *, const char *, ...) PETSC_ATTRIBUTE_FORMAT(2, 3);
/* H5Fclose, remembering a failure (the process must then end without HDF5's clean-up, which
   crashes on such a file); BTEH5CloseFailed: whether one failed in this process */
PETSC_INTERN herr_t BTEH5FileClose(hid_t);
PETSC_EXTERN int    BTEH5CloseFailed(void);
PETSC_INTERN void   BTEH5MarkCloseFailed(void); /* a dataset's or attribute's close failed */
/* The innermost message of HDF5's error stack (call right after the failing call). */
PETSC_INTERN void BTEH5StackMessage(char[], size_t);
/* after a failed H5Fopen: the reason in one line for the user, NULL if none is known (a file
   another process holds open for writing: HDF5's file lock) */
PETSC_INTERN const char *BTEH5OpenFailReason(void);
/* 1 if every component of path exists under loc (0 if one is missing, -1 if HDF5 cannot tell:
   damaged metadata; opening it then fails) */
PETSC_INTERN int BTEH5Exists(hid_t, const char[]);
/* 1 if the attribute exists, 0 if not, -1 if HDF5 cannot tell (damaged storage: reading it then fails) */
PETSC_INTERN int BTEH5AttrExists(hid_t, const char obj[], const char name[]);

/* Scalar attributes of the object at path obj (relative to loc). A one-element array is accepted. */
PETSC_INTERN int BTEH5ReadAttrString(hid_t, const char obj[], const char name[], char buf[], size_t len, BTEH5Status *);
PETSC_INTERN int BTEH5ReadAttrInt(hid_t, const char obj[], const char name[], long long *, BTEH5Status *);
PETSC_INTERN int BTEH5ReadAttrReal(hid_t, const char obj[], const char name[], double *, BTEH5Status *);
/* the 3 reals of attribute name of obj into v: 1, or 0 if it is missing or not 3 numbers (no error) */
PETSC_INTERN int BTEH5ReadAttrReal3(hid_t, const char obj[], const char name[], double v[3]);
/* If obj has a string attribute uname ("units" or "<attr>_units"), it must equal expect. */
PETSC_INTERN int BTEH5CheckUnits(hid_t, const char obj[], const char uname[], const char expect[], const char hint[], BTEH5Status *);

/* The type of a number (class H5T_INTEGER or H5T_FLOAT) must be a standard integer or IEEE
   float (what: "dataset /x", for the message). */
PETSC_INTERN int BTEH5CheckNumberType(hid_t, H5T_class_t, const char what[], BTEH5Status *);
/* A variable-length string attribute (open attribute, its file type) into buf[len], reading at
   most BTE_H5_STRING_MAX bytes of it; -1 with the reason in why[wlen] if it cannot be read safely. */
PETSC_INTERN int BTEH5ReadVarString(hid_t attr, hid_t ftype, char buf[], size_t len, char why[], size_t wlen);
/* file must be a regular file (not a FIFO, device, socket or directory): HDF5 would block on one. */
PETSC_INTERN int BTEH5CheckRegularFile(const char file[], BTEH5Status *);
/* Creates (truncates) file in the newest HDF5 1.10 format; growing: a file that grows while a run
   may be killed, written in the 1.8 format (see h5util.c). Returns the file id or -1. */
PETSC_INTERN const char *BTEH5TmpProblem(const char tmp[]);
PETSC_INTERN hid_t BTEH5FileCreate(const char file[], PetscBool growing);
/* A fixed-length UTF-8 string type holding value (close it with H5Tclose). */
PETSC_INTERN hid_t BTEH5StringType(const char value[]);

/* Attributes written on an open object; with units, also "<name>_units" = units. */
PETSC_INTERN int BTEH5WriteAttrString(hid_t, const char name[], const char value[], BTEH5Status *);
PETSC_INTERN int BTEH5WriteAttrInt(hid_t, const char name[], long long, BTEH5Status *);
PETSC_INTERN int BTEH5WriteAttrReal(hid_t, const char name[], double, const char units[], BTEH5Status *);

/* Dataset at path must exist, have type class cls and rank dimensions (shape: the expected
   shape, for messages); returns its dims. */
PETSC_INTERN int BTEH5DatasetShape(hid_t, const char path[], H5T_class_t cls, int rank, const char shape[], hsize_t dims[], BTEH5Status *);
/* Creates dataset name in loc (chunk > 0: chunked along the first dimension), with a "units" attribute if units. */
PETSC_INTERN int BTEH5CreateDataset(hid_t, const char name[], hid_t ftype, int rank, const hsize_t dims[], hsize_t chunk, const char units[], BTEH5Status *);
/* All n values of the 1-D dataset at path, read with pread() from all OpenMP threads when its
   bytes in the file are its values in memory (src/io/h5direct.c says when): 1 when read, 0 when
   the dataset does not qualify (read it through HDF5), -1 on error (st set). file: its name. */
PETSC_INTERN int BTEH5ReadDirect(hid_t, const char file[], const char path[], hid_t memtype, hsize_t n, void *buf, BTEH5Status *);
/* Rows [start, start+count) of a 1D (ncols = 0) or 2D (ncols columns) dataset. */
PETSC_INTERN int BTEH5WriteRows(hid_t, const char path[], hid_t memtype, hsize_t start, hsize_t count, hsize_t ncols, const void *, BTEH5Status *);
PETSC_INTERN int BTEH5ReadRows(hid_t, const char path[], hid_t memtype, hsize_t start, hsize_t count, hsize_t ncols, void *, BTEH5Status *);

/* Collective: if any rank's status is bad, every rank gets the message of the lowest such rank. */
PETSC_INTERN PetscErrorCode BTEH5SyncStatus(MPI_Comm, BTEH5Status *);

/* Writers of the output files (src/io/h5write.c). Attributes of n values (a scalar if n == 1);
   integers always as i64. With units, also "<name>_units" = units. */
PETSC_INTERN int BTEH5WriteAttrReals(hid_t, const char name[], hsize_t n, const double[], const char units[], BTEH5Status *);
PETSC_INTERN int BTEH5WriteAttrInts(hid_t, const char name[], hsize_t n, const long long[], BTEH5Status *);
/* The string attributes "units" and "description" of dataset name (either may be NULL: not written) */
PETSC_INTERN int BTEH5DescribeDataset(hid_t, const char name[], const char units[], const char desc[], BTEH5Status *);
/* Creates dataset name of file type ftype and writes all of it from data (memory type memtype) */
PETSC_INTERN int BTEH5WriteDataset(hid_t, const char name[], hid_t ftype, hid_t memtype, int rank, const hsize_t dims[], const void *data, const char units[], const char desc[], BTEH5Status *);
/* n fixed-length strings of width bytes each (null-padded), one after the other in data */
PETSC_INTERN int BTEH5WriteStrings(hid_t, const char name[], hsize_t n, size_t width, const char *data, const char desc[], BTEH5Status *);
/* An extendable time series: [0] (ncols = 0) or [0][ncols], chunked along time */
PETSC_INTERN int BTEH5CreateSeries(hid_t, const char name[], hid_t ftype, hsize_t ncols, const char units[], const char desc[], BTEH5Status *);
/* Row row of a series (columns [c0, c0 + nc) of a 2-D one), extending it to row + 1 rows if extend */
PETSC_INTERN int BTEH5WriteSeriesRow(hid_t, const char name[], hid_t memtype, hsize_t row, hsize_t c0, hsize_t nc, int extend, const void *, BTEH5Status *);
/* The rank (1 or 2) and dims of dataset name; -1 if it is missing or of another rank */
PETSC_INTERN int BTEH5DatasetExtent(hid_t, const char name[], hsize_t dims[2]);
/* Root attributes creator ("bte MAJOR.MINOR.PATCH") and created (UTC, ISO 8601) of tables and outputs */
PETSC_INTERN int BTEH5WriteCreator(hid_t, BTEH5Status *);
