# nodescale: one Makefile for the library, the binary, the tests and the benchmarks.
#
#   make            build bin/nodescale, lib/libnodescale.{a,so} (and the soname link .so.0)
#   make run        install missing Debian packages, build, characterise this node (ARGS="...")
#   make test       install missing packages, build, run every test (unit, kernel, CLI, end-to-end,
#                   sanitizer builds of the GEMM and reduction tests)
#   make bench      every benchmark (bench-ceilings, bench-gemm, bench-reduce, ...)
#   make install    PREFIX=/usr/local DESTDIR=
#
# Vector ISA flags are given per file, never globally: a file under .../avx2/ is compiled with
# AVX2+FMA, one under .../avx512/ with AVX-512; the rest is baseline x86-64 and dispatches at run
# time from cpuid. BUILD=asan builds everything with AddressSanitizer+UBSan into build/asan, bin/asan.

ifeq ($(origin CC),default)
  CC := gcc
endif
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= release
LIKWID   ?= 0
# The version: NODESCALE_VERSION_MAJOR/_MINOR/_PATCH in include/nodescale.h, its one source.
VERSION  := $(shell awk '/^\#define NODESCALE_VERSION_(MAJOR|MINOR|PATCH) / {v = v s $$3; s = "."} \
                         END {print v}' include/nodescale.h)

PKGS     := jansson hwloc ompi-c libcmark-gfm
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -fopenmp -fPIC -g $(WARN) -Iinclude -I. $(PKG_CFLAGS) \
               -DNODESCALE_VERSION=\"$(VERSION)\"
ifeq ($(BUILD),asan)
  OPT    := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
  OUT    := asan
else
  OPT    := -O3
  OUT    := release
endif
ifeq ($(LIKWID),1)
  CFLAGS_BASE += -DLIKWID_PERFMON
  LIKWID_LIBS := -llikwid
endif
CFLAGS   := $(CFLAGS_BASE) $(OPT) $(EXTRA_CFLAGS)
LDLIBS   := $(PKG_LIBS) -lcsv -lpapi -lm -ldl -lpthread $(LIKWID_LIBS)
LDFLAGS  := -fopenmp $(filter -fsanitize%,$(OPT))

# Flags recorded in results.json (context.cflags) so a gate can refuse mismatched builds.
CFLAGS   += -DNODESCALE_CFLAGS="\"$(OPT) $(EXTRA_CFLAGS)\"" -DNODESCALE_CC="\"$(CC)\""

ISA_AVX2   := -mavx2 -mfma
ISA_AVX512 := -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma
isaflags = $(if $(findstring /avx512/,$(1)),$(ISA_AVX512),$(if $(findstring /avx2/,$(1)),$(ISA_AVX2),))

BDIR     := build/$(OUT)
BIN      := $(if $(filter asan,$(OUT)),bin/asan,bin)
# The library beside its build: an ASan build must not replace the release lib/ that `make
# install` and the tests linking lib/ use.
LIBDIR   := $(if $(filter asan,$(OUT)),lib/asan,lib)

# The kernels (GEMM, reductions, stream, peak, peers, registry), linked into the binary, tests
# and benches.
LIB_SRC  := $(shell find kernels -name '*.c' | sort)
# libnodescale: only what the public nodescale_* functions need (GEMM and its micro-kernels,
# the reductions and theirs, the ISA dispatch, the team claim, the version): not the registry,
# the peers (dlopen, setenv), STREAM or peak. hwloc stays: GEMM's block sizes come from its
# cache sizes.
NS_LIB_SRC := kernels/gemm/gemm.c $(shell find kernels/gemm/generic kernels/gemm/x86_64 -name '*.c' | sort) \
              kernels/reduce/reduce.c kernels/reduce/reduce_ukr_c.c \
              $(shell find kernels/reduce/x86_64 -name '*.c' | sort) \
              kernels/isa.c kernels/team_claim.c kernels/version.c
# The application: harness, roofline, cluster model, reports, fleet (MPI part built separately).
APP_SRC  := $(shell find harness roofline cluster reports fleet -name '*.c' ! -name main.c | sort)
MAIN_SRC := harness/main.c
TEST_SRC := $(wildcard tests/unit/test_*.c)
BENCH_SRC:= $(wildcard bench/*.c)

LIB_OBJ  := $(LIB_SRC:%.c=$(BDIR)/%.o)
NS_LIB_OBJ := $(NS_LIB_SRC:%.c=$(BDIR)/%.o)
APP_OBJ  := $(APP_SRC:%.c=$(BDIR)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BDIR)/%.o)
TESTS    := $(TEST_SRC:tests/unit/%.c=$(BIN)/tests/%)
BENCHES  := $(BENCH_SRC:bench/%.c=$(BIN)/bench/%)

.PHONY: all deps run test unit-tests san-tests bench install uninstall clean format
all: $(BIN)/nodescale $(LIBDIR)/libnodescale.a $(LIBDIR)/libnodescale.so $(LIBDIR)/libnodescale.so.0 \
     $(TESTS) $(BENCHES)

deps:
	@bash scripts/install-deps.sh

# Objects depend on this Makefile too: a change of flags (visibility, ISA) rebuilds them.
$(BDIR)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(call isaflags,$<) -MMD -MP -c $< -o $@

$(BIN)/nodescale: $(MAIN_OBJ) $(APP_OBJ) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Only the public nodescale_* functions (NODESCALE_API in nodescale.h) leave the library: its
# objects are compiled with hidden visibility, the .so exports through a version script, and the
# .a holds one relocatable object (ld -r) whose hidden symbols are made local, so a program may
# define ns_* names of its own. The binary, tests and benches link the objects directly.
# -z nodelete: GEMM's per-thread buffers are freed by a pthread key destructor in the .so, which
# must stay mapped until every thread has exited, even after a dlclose.
# A caller's thread may have a small stack (nodescale.h, "Stack"): a frame larger than the guard
# page is probed page by page, so an overflow faults instead of writing past the guard.
STACK_CLASH := $(shell $(CC) -fstack-clash-protection -E -x c /dev/null >/dev/null 2>&1 && \
                 echo -fstack-clash-protection)
$(LIB_OBJ): CFLAGS += -fvisibility=hidden $(STACK_CLASH)

$(LIBDIR)/libnodescale.a: $(NS_LIB_OBJ)
	@mkdir -p $(LIBDIR)
	$(CC) -r -nostdlib -o $(BDIR)/libnodescale.o $^
	objcopy --localize-hidden $(BDIR)/libnodescale.o
	rm -f $@ && ar rcs $@ $(BDIR)/libnodescale.o

$(LIBDIR)/libnodescale.so: $(NS_LIB_OBJ) scripts/libnodescale.map
	@mkdir -p $(LIBDIR)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libnodescale.so.0 -Wl,-z,nodelete \
	    -Wl,--version-script=scripts/libnodescale.map -o $@ $(NS_LIB_OBJ) -lhwloc -lm

# The soname link, so a program linked with -Llib -Wl,-rpath,lib finds the library in the tree.
$(LIBDIR)/libnodescale.so.0: $(LIBDIR)/libnodescale.so
	ln -sfn libnodescale.so $@

$(BIN)/tests/%: tests/unit/%.c $(APP_OBJ) $(LIB_OBJ)
	@mkdir -p $(dir $@) $(BDIR)/tests
	$(CC) $(CFLAGS) -MMD -MP -MF $(BDIR)/tests/$*.d -o $@ $< $(APP_OBJ) $(LIB_OBJ) \
	    $(LDFLAGS) $(LDLIBS) $(shell pkg-config --libs cmocka)

$(BIN)/bench/%: bench/%.c $(APP_OBJ) $(LIB_OBJ)
	@mkdir -p $(dir $@) $(BDIR)/bench
	$(CC) $(CFLAGS) -MMD -MP -MF $(BDIR)/bench/$*.d -o $@ $< $(APP_OBJ) $(LIB_OBJ) $(LDFLAGS) $(LDLIBS)

run: deps
	@$(MAKE) --no-print-directory all
	bin/nodescale run $(ARGS)

# Every test: unit and kernel tests (cmocka), CLI and end-to-end scripts, then the sanitizer
# build of the tests named in SAN_TESTS. scripts/run-tests.sh prints "N passed, N failed".
SAN_TESTS ?= test_gemm test_reduce test_stats test_json test_cluster test_counters test_roofline \
             test_kernels test_gate test_fleet test_report test_report_html test_team
test: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory BUILD=asan $(addprefix bin/asan/tests/,$(filter $(SAN_TESTS),$(TEST_SRC:tests/unit/%.c=%)))
	@bash scripts/run-tests.sh

bench: all
	@bash scripts/bench.sh all

bench-%: all
	@bash scripts/bench.sh $*

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 bin/nodescale $(DESTDIR)$(PREFIX)/bin/
	install -m 644 lib/libnodescale.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 lib/libnodescale.so $(DESTDIR)$(PREFIX)/lib/libnodescale.so.$(VERSION)
	ln -sf libnodescale.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libnodescale.so.0
	ln -sf libnodescale.so.0 $(DESTDIR)$(PREFIX)/lib/libnodescale.so
	install -m 644 include/nodescale.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/share/nodescale/presets
	install -m 644 cluster/presets/*.json $(DESTDIR)$(PREFIX)/share/nodescale/presets/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scripts/nodescale.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/nodescale.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/nodescale $(DESTDIR)$(PREFIX)/lib/libnodescale.* \
	      $(DESTDIR)$(PREFIX)/include/nodescale.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/nodescale.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/nodescale/presets
	[ ! -d $(DESTDIR)$(PREFIX)/share/nodescale ] || \
	    rmdir --ignore-fail-on-non-empty $(DESTDIR)$(PREFIX)/share/nodescale

format:
	clang-format -i $$(find include harness kernels roofline cluster reports fleet tests bench -name '*.[ch]' 2>/dev/null)

clean:
	rm -rf build bin lib

-include $(shell find build -name '*.d' 2>/dev/null)
