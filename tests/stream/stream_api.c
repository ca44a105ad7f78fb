static const char help[] = "Streaming generation and counted channels through the public API (include/bte.h):\n"
                           "BTEGenerateTable writes a model's table while generating (file A); a BTE set up in memory\n"
                           "writes it with BTEWriteTable (file B); BTEGenerateTable on that set-up BTE writes file C;\n"
                           "a BTE reading A with BTESetLoadChannels(PETSC_BOOL3_FALSE) has the same counts and memory\n"
                           "estimate as the loaded one, and refuses state vectors (no run without channels).\n"
                           "Options: the model's (-bte_model NAME -bte_grid N ...), -prefix P (files P_stream.h5,\n"
                           "P_memory.h5, P_again.h5).\n";
#include <bte.h>

static PetscErrorCode Counts(BTE bte, const char what[], PetscInt64 *nglobal, PetscLogDouble mem[2])
{
  PetscCount nlocal;
  PetscBool  loaded;
  PetscInt   nst;

  PetscFunctionBegin;
  PetscCall(BTEGetNumChannels(bte, &nlocal, nglobal));
  PetscCall(BTEGetNumStates(bte, NULL, &nst));
  PetscCall(BTEGetChannelsLoaded(bte, &loaded));
  PetscCall(BTEGetMemoryEstimate(bte, &mem[0], &mem[1]));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mem[1], 1, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)bte)));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)bte), "%-30s states %" PetscInt_FMT ", channels %" PetscInt64_FMT ", loaded %s, memory one rank %.0f, largest rank %.0f\n", what, nst, *nglobal, loaded ? "yes" : "no", mem[0], mem[1]));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  BTE            a, b, c;
  char           prefix[PETSC_MAX_PATH_LEN] = "api", fa[PETSC_MAX_PATH_LEN + 16], fb[PETSC_MAX_PATH_LEN + 16], fc[PETSC_MAX_PATH_LEN + 16];
  PetscInt64     na, nb, nc;
  PetscLogDouble ma[2], mb[2], mc[2];
  PetscBool      loaded;
  Vec            v = NULL;
  PetscErrorCode ierr;
  MPI_Comm       comm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-prefix", prefix, sizeof(prefix), NULL));
  PetscCall(PetscSNPrintf(fa, sizeof(fa), "%s_stream.h5", prefix));
  PetscCall(PetscSNPrintf(fb, sizeof(fb), "%s_memory.h5", prefix));
  PetscCall(PetscSNPrintf(fc, sizeof(fc), "%s_again.h5", prefix));

  /* A: streamed; the BTE keeps its states and counts, not the channels */
  PetscCall(BTECreate(comm, &a));
  PetscCall(BTESetFromOptions(a));
  PetscCall(BTEGenerateTable(a, fa));
  PetscCall(Counts(a, "BTEGenerateTable", &na, ma));
  PetscCall(BTEGetChannelsLoaded(a, &loaded));
  PetscCheck(!loaded, comm, PETSC_ERR_PLIB, "BTEGenerateTable left channel arrays");
  /* a counted BTE must refuse to make state vectors (a run without its channels) */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BTECreateStateVec(a, &v);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr && !v, comm, PETSC_ERR_PLIB, "BTECreateStateVec accepted a BTE whose channels were only counted");
  PetscCall(PetscPrintf(comm, "BTECreateStateVec on a counted BTE: refused (error %d)\n", (int)ierr));

  /* B: in memory, written with BTEWriteTable; C: BTEGenerateTable on the set-up BTE */
  PetscCall(BTECreate(comm, &b));
  PetscCall(BTESetFromOptions(b));
  PetscCall(BTESetUp(b));
  PetscCall(Counts(b, "BTESetUp (model, loaded)", &nb, mb));
  PetscCall(BTEWriteTable(b, fb));
  PetscCall(BTEGenerateTable(b, fc));
  PetscCheck(na == nb && ma[0] == mb[0] && ma[1] == mb[1], comm, PETSC_ERR_PLIB, "streamed and in-memory generation disagree on the counts or memory");
  PetscCall(BTEDestroy(&b));

  /* the streamed file read with counted channels, then loaded */
  for (int load = 0; load < 2; load++) {
    PetscCall(BTECreate(comm, &c));
    PetscCall(BTESetInputFile(c, fa));
    PetscCall(BTESetLoadChannels(c, load ? PETSC_BOOL3_TRUE : PETSC_BOOL3_FALSE));
    PetscCall(BTESetUp(c));
    PetscCall(Counts(c, load ? "file, loaded" : "file, counted", &nc, mc));
    PetscCall(BTEGetChannelsLoaded(c, &loaded));
    PetscCheck(loaded == (load ? PETSC_TRUE : PETSC_FALSE), comm, PETSC_ERR_PLIB, "BTEGetChannelsLoaded disagrees with BTESetLoadChannels");
    PetscCheck(nc == na && mc[0] == ma[0] && mc[1] == ma[1], comm, PETSC_ERR_PLIB, "the file's counts or memory estimate differ from the model's");
    if (load) {
      PetscCall(BTECreateStateVec(c, &v));
      PetscCall(VecDestroy(&v));
    }
    PetscCall(BTEDestroy(&c));
  }
  /* setting the mode after setup is refused */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BTESetLoadChannels(a, PETSC_BOOL3_TRUE);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr, comm, PETSC_ERR_PLIB, "BTESetLoadChannels after BTESetUp was accepted");
  PetscCall(BTEDestroy(&a));
  PetscCall(PetscPrintf(comm, "api: ok\n"));
  PetscCall(PetscFinalize());
  return 0;
}
