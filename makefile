# bte: electron-phonon Boltzmann transport on PETSc.
# The user's PETSc (>= 3.18, with or without CUDA) decides compilers and flags:
#   make PETSC_DIR=/path/to/petsc [PETSC_ARCH=arch]
# With no PETSC_DIR and none found, `make deps` installs Debian's petsc-dev first.

PETSC_DIR ?= $(firstword $(foreach d,/usr/lib/petsc /usr/local/petsc /opt/petsc,$(if $(wildcard $(d)/lib/petsc/conf/variables)$(wildcard $(d)/$(PETSC_ARCH)/lib/petsc/conf/petscvariables),$(d))))
PREFIX    ?= /usr/local
TEST_NP   ?= 2
# SANITIZE=1 builds bte (library, driver, tests, examples; not PETSc) with AddressSanitizer and
# UndefinedBehaviorSanitizer, in build-san unless BUILD says otherwise; `make check-sanitize`
# does so and runs SANITIZE_TESTS (docs/dev/sanitizers.md).
SANITIZE  ?=
SAN_BUILD ?= build-san
BUILD     ?= $(if $(filter 1,$(SANITIZE)),$(SAN_BUILD),build)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g
# The subset run under the sanitizers (tests/run.sh patterns); SANITIZE_TESTS=all runs every test.
SANITIZE_TESTS ?= io/roundtrip io/bad_inputs guards/fuzz models/parabolic_rates collision/misc collision/check collision/tgt dynamics/restart dynamics/integrators transport/methods guards/table_values guards/huge_grid guards/options guards/outputs api/setters perturbo/fuzz_epr

.PHONY: all lib driver tests check check-sanitize run bench deps install clean info help
.DEFAULT_GOAL := all

ifeq ($(PETSC_DIR),)
# No PETSc: install the Debian packages, then build with them.
all lib driver tests check check-sanitize run bench install info: deps
	$(MAKE) PETSC_DIR=/usr/lib/petsc $@
clean:
	rm -rf $(BUILD) $(SAN_BUILD)
else
include $(PETSC_DIR)/lib/petsc/conf/variables
include $(PETSC_DIR)/lib/petsc/conf/rules

BTE_HAVE_CUDA := $(if $(CUDAC),1,)
V ?= 0
Q := $(if $(filter 1,$(V)),,@)
LIBDIR   := $(BUILD)/lib
BINDIR   := $(BUILD)/bin
OBJDIR   := $(BUILD)/obj
LIBBTE   := $(LIBDIR)/libbte.$(SL_LINKER_SUFFIX)
BTE      := $(BINDIR)/bte
# The version is bte.h's; on ELF systems libbte.so -> libbte.so.MAJOR (the SONAME, what programs
# record) -> libbte.so.MAJOR.MINOR.PATCH (the file), so that a new MAJOR can sit beside the old.
BTE_VERSION := $(shell sed -n 's/^\#define BTE_VERSION_MAJOR *//p' include/bte.h).$(shell sed -n 's/^\#define BTE_VERSION_MINOR *//p' include/bte.h).$(shell sed -n 's/^\#define BTE_VERSION_PATCH *//p' include/bte.h)
ifeq ($(SL_LINKER_SUFFIX),so)
LIBBTE_SONAME := libbte.so.$(firstword $(subst ., ,$(BTE_VERSION)))
LIBBTE_FILE   := libbte.so.$(BTE_VERSION)
LIBBTE_LDFLAGS := -Wl,-soname,$(LIBBTE_SONAME)
else
LIBBTE_FILE   := $(notdir $(LIBBTE))
endif

LIB_C    := $(shell find src -name '*.c' -not -path 'src/cli/*' | sort)
LIB_CU   := $(if $(BTE_HAVE_CUDA),$(shell find src -name '*.cu' | sort))
CLI_C    := $(shell find src/cli -name '*.c' | sort)
TEST_C   := $(shell find tests -name '*.c' | sort)
EX_C     := $(shell find examples -name '*.c' | sort)
LIB_O    := $(LIB_C:%.c=$(OBJDIR)/%.o) $(LIB_CU:%.cu=$(OBJDIR)/%.o)
CLI_O    := $(CLI_C:%.c=$(OBJDIR)/%.o)
TEST_BIN := $(foreach t,$(TEST_C),$(BUILD)/tests/$(notdir $(basename $(t))))
EX_BIN   := $(foreach t,$(EX_C),$(BUILD)/examples/$(notdir $(basename $(t))))

BTE_CFLAGS  := -Iinclude $(PETSC_CC_INCLUDES) $(PCC_FLAGS) $(CCPPFLAGS) -fopenmp -O3 -std=gnu11 -Wall -Wno-unknown-pragmas $(if $(BTE_HAVE_CUDA),-DBTE_HAVE_CUDA)
BTE_CUFLAGS := -Iinclude $(PETSC_CC_INCLUDES) $(CUDAC_FLAGS) $(CUDA_INCLUDE) -O3 -Xcompiler -fPIC -Xcompiler -fopenmp -DBTE_HAVE_CUDA
BTE_LIBS    := -Wl,-rpath,$(abspath $(LIBDIR)) -L$(LIBDIR) -lbte $(PETSC_WITH_EXTERNAL_LIB) -lhdf5 -fopenmp -lm
ifeq ($(SANITIZE),1)
# -O1 keeps the reports' stacks readable and the runs fast enough; the link lines get the same flags.
BTE_CFLAGS  := $(filter-out -O3,$(BTE_CFLAGS)) $(SAN_FLAGS) -O1
BTE_LIBS    += $(SAN_FLAGS)
BTE_LDSAN   := $(SAN_FLAGS)
endif

all: lib driver tests examples
lib: $(LIBBTE)
driver: $(BTE)
tests: $(TEST_BIN)
examples: $(EX_BIN)

# the private headers beside the sources (src/**/*.h, *.cuh) as well: a change there rebuilds
SRC_H := $(wildcard src/*.h src/*/*.h src/*/*/*.h src/*.cuh src/*/*.cuh src/*/*/*.cuh)

$(OBJDIR)/%.o: %.c $(wildcard include/*.h include/*/*.h include/*/*/*.h) $(SRC_H)
	@mkdir -p $(dir $@)
	@echo '  CC   $<'
	$(Q)$(PCC) $(BTE_CFLAGS) -Isrc -c $< -o $@

$(OBJDIR)/%.o: %.cu $(wildcard include/*.h include/*/*.h include/*/*/*.h) $(SRC_H)
	@mkdir -p $(dir $@)
	@echo '  NVCC $<'
	$(Q)$(CUDAC) $(BTE_CUFLAGS) -Isrc -c $< -o $@

$(LIBDIR)/$(LIBBTE_FILE): $(LIB_O)
	@mkdir -p $(LIBDIR)
	@echo '  LD   $@'
	$(Q)$(PCC_LINKER) -shared $(LIBBTE_LDFLAGS) -o $@ $(LIB_O) $(C_SH_LIB_PATH) $(PETSC_WITH_EXTERNAL_LIB) -lhdf5 -fopenmp -lm $(BTE_LDSAN)
ifdef LIBBTE_SONAME
$(LIBBTE): $(LIBDIR)/$(LIBBTE_FILE)
	$(Q)ln -sf $(LIBBTE_FILE) $(LIBDIR)/$(LIBBTE_SONAME) && ln -sf $(LIBBTE_SONAME) $@
endif

$(BTE): $(CLI_O) $(LIBBTE)
	@mkdir -p $(BINDIR)
	@echo '  LD   $@'
	$(Q)$(PCC_LINKER) -o $@ $(CLI_O) $(BTE_LIBS)

# Each test and example binary depends on its own source (and the headers next to it).
$(foreach t,$(TEST_C),$(eval $(BUILD)/tests/$(notdir $(basename $(t))): $(t) $(wildcard $(dir $(t))*.h)))
$(foreach t,$(EX_C),$(eval $(BUILD)/examples/$(notdir $(basename $(t))): $(t)))

$(BUILD)/tests/%: $(LIBBTE) $(wildcard include/*.h include/*/*.h include/*/*/*.h)
	@mkdir -p $(dir $@)
	@echo '  LD   $@'
	$(Q)$(PCC) $(BTE_CFLAGS) -Isrc -o $@ $(filter %/$*.c,$(TEST_C)) $(BTE_LIBS)

$(BUILD)/examples/%: $(LIBBTE) $(wildcard include/*.h include/*/*.h include/*/*/*.h)
	@mkdir -p $(dir $@)
	@echo '  LD   $@'
	$(Q)$(PCC) $(BTE_CFLAGS) -o $@ $(filter %/$*.c,$(EX_C)) $(BTE_LIBS)

# The test runner: every tests/**/*.sh is a test; it ends with "N passed, N failed".
# With SANITIZE=1 the runner fails a test on any sanitizer report (see docs/dev/sanitizers.md).
# Then, unless CHECK_SANITIZE=0 (the default on CUDA builds) or TESTS picks tests, the sanitizer
# mode below (about 2-3 more minutes on 2 cores).
CHECK_SANITIZE ?= $(if $(BTE_HAVE_CUDA)$(TESTS),0,1)
check: all
	@BTE=$(abspath $(BTE)) BUILD=$(abspath $(BUILD)) MPIEXEC="$(MPIEXEC)" TEST_NP=$(TEST_NP) \
	  BTE_HAVE_CUDA=$(BTE_HAVE_CUDA) BTE_SANITIZE=$(SANITIZE) tests/run.sh $(TESTS)
ifneq ($(SANITIZE),1)
ifeq ($(CHECK_SANITIZE),1)
	@echo "make check: the sanitizer mode (make check-sanitize; CHECK_SANITIZE=0 leaves it out)"
	@$(MAKE) --no-print-directory check-sanitize
endif
endif

# The sanitizer mode: bte built with ASan + UBSan in $(SAN_BUILD), a fast subset of the tests
# (SANITIZE_TESTS=all: every test). Skipped with a line if the compiler cannot build with them.
check-sanitize:
	@if echo 'int main(void){return 0;}' | $(PCC) $(SAN_FLAGS) -x c - -o $(abspath $(SAN_BUILD))-probe > /dev/null 2>&1; then \
	  rm -f $(abspath $(SAN_BUILD))-probe; \
	  $(MAKE) --no-print-directory BUILD=$(SAN_BUILD) SANITIZE=1 \
	    TESTS="$(if $(filter all,$(SANITIZE_TESTS)),,$(SANITIZE_TESTS))" all check; \
	else rm -f $(abspath $(SAN_BUILD))-probe; echo "skip: check-sanitize: $(PCC) cannot build with $(SAN_FLAGS)"; fi

# The demo: hot electrons cooling in GaAs (scripts/run.sh; README, docs/dynamics.md).
run: all
	@scripts/run.sh $(abspath $(BTE))

bench: all
	@scripts/bench.sh $(abspath $(BTE))

# Install into PREFIX (DESTDIR: a staging root for packagers, not recorded anywhere). The driver
# is relinked with its RUNPATH on PREFIX/lib, so that the install does not depend on the build
# tree; the implementation headers (bte/private, as PETSc installs petsc/private) let an
# application build its own collision types and models against the install (docs/extending.md).
# bte.pc records this PETSc (its include and library directories, its compiler): pkg-config
# alone builds an application.
IPREFIX := $(abspath $(PREFIX))
BTE_PETSC_VERSION = $(shell awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) /{v = v (v == "" ? "" : ".") $$3} END {print v}' $(firstword $(wildcard $(PETSC_DIR)/include/petscversion.h $(PETSC_DIR)/$(PETSC_ARCH)/include/petscversion.h) /dev/null))
IROOT   := $(DESTDIR)$(IPREFIX)
install: all
	@mkdir -p $(IROOT)/lib/pkgconfig $(IROOT)/include/bte/private $(IROOT)/bin $(IROOT)/share/bte/examples $(BUILD)/install
	$(Q)$(PCC_LINKER) -o $(BUILD)/install/bte $(CLI_O) -Wl,-rpath,$(IPREFIX)/lib -L$(LIBDIR) -lbte $(C_SH_LIB_PATH) $(PETSC_WITH_EXTERNAL_LIB) -lhdf5 -fopenmp -lm $(BTE_LDSAN)
	cp $(LIBDIR)/$(LIBBTE_FILE) $(IROOT)/lib/
ifdef LIBBTE_SONAME
	ln -sf $(LIBBTE_FILE) $(IROOT)/lib/$(LIBBTE_SONAME)
	ln -sf $(LIBBTE_SONAME) $(IROOT)/lib/$(notdir $(LIBBTE))
endif
	cp include/bte.h $(IROOT)/include/
	cp include/bte/*.h $(IROOT)/include/bte/
	cp include/bte/private/*.h $(IROOT)/include/bte/private/
	cp $(BUILD)/install/bte $(IROOT)/bin/
	cp $(EX_C) $(IROOT)/share/bte/examples/
	sed -e 's|@PREFIX@|$(IPREFIX)|g' -e 's|@VERSION@|$(BTE_VERSION)|g' -e 's|@PETSC_DIR@|$(PETSC_DIR)|g' \
	  -e 's|@PETSC_ARCH@|$(PETSC_ARCH)|g' -e 's|@PETSC_VERSION@|$(BTE_PETSC_VERSION)|g' \
	  -e 's|@CC@|$(PCC)|g' -e 's|@PETSC_CFLAGS@|$(PETSC_CC_INCLUDES)|g' \
	  -e 's|@PETSC_LIBS@|-L$(PETSC_LIB_DIR) -Wl,-rpath,$(PETSC_LIB_DIR) $(PETSC_LIB_BASIC)|g' \
	  scripts/bte.pc.in > $(IROOT)/lib/pkgconfig/bte.pc
	@echo "installed bte $(BTE_VERSION) into $(IROOT) (pkg-config: PKG_CONFIG_PATH=$(IPREFIX)/lib/pkgconfig)"

# PETSc >= 3.20's rules define `clean::` (older ones `clean:`); a target cannot have both kinds.
BTE_CLEAN_SEP := $(if $(shell grep -s '^clean::' $(PETSC_DIR)/lib/petsc/conf/rules),::,:)
clean$(BTE_CLEAN_SEP)
	rm -rf $(BUILD) $(SAN_BUILD)

info:
	@echo "PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) CUDA=$(if $(BTE_HAVE_CUDA),yes,no) CC=$(PCC)"
endif

deps:
	@scripts/deps.sh

help:
	@echo "targets: all check check-sanitize run bench deps install PREFIX=... clean info"
