# gpustats developer targets (GNU make).
#
#   make test        install missing system deps (root only), core-test, install into .lib, run the tests
#   make core-test   build the C tests of the R-free core (tools/core-test/) with gcc, without R, and run them
#   make demo        same install, then the demo tour (output in demo-output/)
#   make bench       install, then the benchmark page: BENCHMARKS.md, made whole (run it on a GPU host)
#   make bench-all   install, then every detailed benchmark study (output in bench-output/)
#   make gpu-check   offline: install with CUDA, run the tests requiring a GPU and make the
#                    benchmark page; logs and $(OUT)/BENCHMARKS.md in $(OUT) (default gpu-check-output/)
#   make check-hard  install, then the bad-input battery (every exported function with bad
#                    input, each case in its own process); fails on any crash, hang, memory
#                    blow-up or obscure error; table in $CHECK_HARD_OUT (default check-hard-output/)
#   make docs        regenerate man/ and NAMESPACE with roxygen2
#   make site        install, then build the reference site with pkgdown into site/, offline
#                    (the reference grouped by domain, the vignettes as articles; open
#                    site/index.html)
#   make warnings    compile src/ and src/core with gcc -Wall -Wextra (CPU and CUDA
#                    configurations); fails on any warning
#   make vignette-data   install, then recompute the vignettes' precomputed results
#                    (inst/extdata/vignette-*.rds; VIGNETTES=names for some of them)
#   make gbees-threads   build tools/gbees-threads.c (the GBEES CPU path on 1 and on all
#                    threads, per phase, from C alone) with gcc into .lib/gbees-threads;
#                    it needs neither R nor a GPU
#   make check       R CMD build (vignettes included) and R CMD check --as-cran of the
#                    tarball, CPU build, offline (gpustats.Rcheck/); installs the tools
#                    the check runs (qpdf, checkbashisms, tidy, LaTeX) when missing;
#                    suggested packages that Debian lacks (GpGp, compared with in the
#                    tests where installed) may be absent
#   make clean
#
# Variables: FILTER=regex (test files to run), INSTALL_ARGS (extra R CMD INSTALL
# arguments, e.g. INSTALL_ARGS=--configure-args=--without-cuda; GPUSTATS_CUDA=no in the
# environment does the same), JOBS (parallel compile jobs), R, RSCRIPT.
# GPUSTATS_CUDA=no make test (or demo) builds the CPU-only backend, in a fraction of
# the several minutes that a CUDA build compiles.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

R ?= R
RSCRIPT ?= Rscript
LIB := .lib
OUT ?= gpu-check-output
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FILTER ?=
INSTALL_ARGS ?=
VIGNETTES ?=

WITH_LIB = R_LIBS="$(CURDIR)/$(LIB)$${R_LIBS:+:$$R_LIBS}"
INSTALL_PKG = mkdir -p $(LIB) && \
  MAKEFLAGS=-j$(JOBS) $(R) CMD INSTALL --no-multiarch --library=$(LIB) $(INSTALL_ARGS) .
RUN_TESTS = $(WITH_LIB) $(RSCRIPT) tools/run-tests.R $(FILTER)

.PHONY: all deps install core-test gbees-threads test demo bench bench-all gpu-check docs site vignette-data check check-hard warnings clean

all: test

deps:
	@R="$(R)" RSCRIPT="$(RSCRIPT)" sh tools/install-deps.sh

install: deps
	$(INSTALL_PKG)

# The R-free core (tables, Bessel, the covariance model, the map's Matérn and stable ops, the tile
# plan and its run on the CPU, the dense forward solve) compiled and tested without R, so that it
# stays usable from C alone; the dense solves' BLAS is the one R is configured with.
CORE_TEST_SOURCES = tools/core-test/core_test.c src/core/common/gs_common.c src/core/common/cpu.c \
  src/core/map/map_cpu.c src/core/matern/matern_model.c src/core/tile/tile_plan.c src/core/dense/dense_chol.c \
  src/core/dense/dense_gemm.c src/core/tile/tile_chol_cpu.c src/core/tile/tile_format.c
CORE_INCLUDE_DIRS = $(patsubst %/,-I%,$(wildcard src/core/*/))
core-test:
	@mkdir -p $(LIB)
	$$($(R) CMD config CC) -std=gnu99 -O2 -fopenmp -Wall -Wextra $(CORE_INCLUDE_DIRS) $(CORE_TEST_SOURCES) \
	  -o $(LIB)/core-test $$($(R) CMD config BLAS_LIBS) -lm -ldl
	$(LIB)/core-test

# gbees_field_program.c is left out: it includes a header that the package's build generates, and
# only models given as expressions (compiled at run time) use it, which the tool does not run.
GBEES_THREADS_SOURCES = tools/gbees-threads.c src/core/common/gs_common.c src/core/common/cpu.c \
  src/core/gpu/gpu_none.c $(filter-out %/gbees_field_program.c,$(wildcard src/core/gbees/*.c))
gbees-threads:
	@mkdir -p $(LIB)
	gcc -std=gnu99 -O2 -fopenmp -Wall -Wextra $(CORE_INCLUDE_DIRS) $(GBEES_THREADS_SOURCES) -o $(LIB)/gbees-threads -lm -ldl

test: install core-test
	$(RUN_TESTS)

demo: install
	$(WITH_LIB) $(RSCRIPT) demo/tour.R demo-output

bench: install
	$(WITH_LIB) $(RSCRIPT) inst/bench/page.R BENCHMARKS.md

bench-all: install
	$(WITH_LIB) $(RSCRIPT) inst/bench/run-all.R bench-output

# For a GPU host without network: never touches apt or the network. R must be
# present (an R runtime unpacked from .rgpu/ is used when R is not on PATH).
gpu-check:
	@if ! command -v $(RSCRIPT) >/dev/null 2>&1; then \
	  if [ -f .rgpu/install-r.sh ]; then bash .rgpu/install-r.sh || exit 1; \
	  else echo "gpu-check: R is not installed (Rscript not found)" >&2; exit 1; fi; \
	fi
	@mkdir -p "$(OUT)" && rm -f "$(OUT)/tests.log" "$(OUT)/bench.log"
	@echo "gpu-check: installing with CUDA into $(LIB) (log: $(OUT)/tests.log)"
	@{ export GPUSTATS_CUDA=yes; $(INSTALL_PKG) ; } > "$(OUT)/tests.log" 2>&1 \
	  || { tail -n 60 "$(OUT)/tests.log"; echo "gpu-check: install failed" >&2; exit 1; }
	@grep -E '^gpustats: building' "$(OUT)/tests.log" || true
	@status=0; \
	echo "gpu-check: running the tests with GPUSTATS_REQUIRE_GPU=1"; \
	GPUSTATS_REQUIRE_GPU=1 $(RUN_TESTS) >> "$(OUT)/tests.log" 2>&1 || status=1; \
	if [ $$status -ne 0 ]; then grep -E -A8 '^(Failure|Error) \(' "$(OUT)/tests.log" | head -n 100; fi; \
	grep -E '^[0-9]+ passed, [0-9]+ failed' "$(OUT)/tests.log" | tail -n 1 \
	  || echo "0 passed, 1 failed, 0 skipped"; \
	echo "gpu-check: making the benchmark page $(OUT)/BENCHMARKS.md (log: $(OUT)/bench.log)"; \
	$(WITH_LIB) $(RSCRIPT) inst/bench/page.R "$(OUT)/BENCHMARKS.md" 2>&1 | tee "$(OUT)/bench.log" || status=1; \
	if [ $$status -ne 0 ]; then echo "gpu-check: FAILED (see $(OUT)/tests.log and $(OUT)/bench.log)"; \
	else echo "gpu-check: OK"; fi; \
	exit $$status

# pkgdown runs the examples and the articles against the package installed in .lib
# (tools/build-site.R says how the build stays offline).
site: install
	$(WITH_LIB) $(RSCRIPT) tools/build-site.R

vignette-data: install
	$(WITH_LIB) $(RSCRIPT) inst/scripts/vignette-data.R $(VIGNETTES)

# The CRAN checks that need the network (incoming feasibility, the time
# server behind the file time stamps) are skipped; the CRAN and Bioconductor
# indexes it reads where a suggested package (GpGp) is not installed are local
# ones made from the installed packages (tools/check-offline-repos.R); the
# suggested packages and
# the tools the check runs are installed first. Vignettes and tests run on the
# CPU. The PDF manual uses Inconsolata where LaTeX has it (Debian's
# texlive-fonts-extra, 0.5 GB), else the standard fonts.
check:
	@R="$(R)" RSCRIPT="$(RSCRIPT)" sh tools/install-deps.sh check
	rm -rf gpustats.Rcheck gpustats_*.tar.gz
	GPUSTATS_CUDA=no MAKEFLAGS=-j$(JOBS) $(R) CMD build .
	$(RSCRIPT) tools/check-offline-repos.R check-cran-web
	kpsewhich inconsolata.sty >/dev/null || export R_RD4PDF=times,hyper; \
	GPUSTATS_CUDA=no MAKEFLAGS=-j$(JOBS) _R_CHECK_CRAN_INCOMING_REMOTE_=false R_CRAN_WEB=file://$(CURDIR)/check-cran-web \
	  R_REPOSITORIES=$(CURDIR)/check-cran-web/repositories \
	  _R_CHECK_SYSTEM_CLOCK_=false _R_CHECK_FORCE_SUGGESTS_=false \
	  $(R) CMD check --as-cran gpustats_*.tar.gz

check-hard: install
	$(WITH_LIB) $(RSCRIPT) tools/bad-input-battery.R --lib "$(LIB)" --out "$${CHECK_HARD_OUT:-check-hard-output}"

# A developer check: users compile with R's own flags.
warnings:
	R="$(R)" sh tools/check-warnings.sh

# load_code = "source": the R code is sourced, nothing is compiled in src/ (a default
# roxygenise() would build debug objects there that later installs would reuse)
docs:
	$(RSCRIPT) -e 'roxygen2::roxygenise(load_code = "source")'

clean:
	sh ./cleanup
	rm -rf $(LIB) site demo-output bench-output gpu-check-output gpustats.Rcheck gpustats_*.tar.gz check-cran-web
