#!/bin/sh
# AddressSanitizer + UndefinedBehaviorSanitizer and valgrind runs of the CPU
# build of gpustats.
#
#   tools/sanitize.sh [OUT]          (default OUT: sanitize-output)
#
# Steps (SANITIZE_STEPS, default "build tests battery valgrind findings"):
#   build     copy the working tree to OUT/src and install it twice, CPU only:
#             instrumented with gcc -fsanitize=address,undefined into OUT/lib-asan
#             (flags through the R_MAKEVARS_USER file OUT/Makevars-asan), and
#             plain (-g -O2) into OUT/lib-plain for valgrind
#   tests     the test files matching SANITIZE_TESTS under ASan/UBSan
#             (R is not instrumented: libasan is preloaded); log OUT/asan-tests.log
#   battery   the bad-input battery's cases matching SANITIZE_BATTERY (default
#             all but the huge ones) under ASan/UBSan; table in OUT/battery/
#   valgrind  R -d valgrind on the test files matching SANITIZE_VALGRIND; logs
#             OUT/valgrind/ (the tests that interrupt themselves skip: valgrind
#             delivers their signal late)
#   findings  OUT/findings.txt: every sanitizer report (file:line, kind, count,
#             the battery case or test file that triggered it) and valgrind's errors
#
# Reports are logged, not fatal (halt_on_error=0 for UBSan; an ASan error ends
# its process, which the battery then records as a crash). The exit status is
# 1 when findings.txt lists any finding.

set -eu
out=${1:-sanitize-output}
steps=${SANITIZE_STEPS:-build tests battery valgrind findings}
tests=${SANITIZE_TESTS:-bessel|matern|gp|stable|tile|gbees|bad-input}
battery=${SANITIZE_BATTERY:-.}
valgrind_tests=${SANITIZE_VALGRIND:-bad-input|bessel-input}
R=${R:-R}
RSCRIPT=${RSCRIPT:-Rscript}

root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
asan_lib=$(gcc -print-file-name=libasan.so)
ubsan_lib=$(gcc -print-file-name=libubsan.so)

has_step() {
  case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# Runs a command with the sanitizer runtimes preloaded into R. Reports go to
# stderr (libubsan ignores log_path beside libasan), which the steps log; the
# battery marks each case there.
with_sanitizers() {
  LD_PRELOAD="$asan_lib $ubsan_lib" \
  ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1" \
  UBSAN_OPTIONS="print_stacktrace=0:halt_on_error=0" \
  GPUSTATS_BATTERY_MARK=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} "$@"
}

if has_step build; then
  echo "sanitize: copying the working tree to $out/src"
  rm -rf "$out/src" "$out/lib-asan" "$out/lib-plain"
  mkdir -p "$out/src" "$out/lib-asan" "$out/lib-plain"
  (cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 tar cf -) | (cd "$out/src" && tar xf -)
  flags="-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=address"
  cat > "$out/Makevars-asan" <<EOF
CC = gcc $flags
CXX = g++ $flags
CFLAGS = -g -O1
CXXFLAGS = -g -O1
EOF
  echo "sanitize: installing the instrumented build into $out/lib-asan (log: $out/build-asan.log)"
  GPUSTATS_CUDA=no R_MAKEVARS_USER="$out/Makevars-asan" MAKEFLAGS=-j${JOBS:-1} \
    "$R" CMD INSTALL --preclean --no-test-load --no-multiarch --library="$out/lib-asan" "$out/src" \
    > "$out/build-asan.log" 2>&1 || { tail -n 40 "$out/build-asan.log"; exit 1; }
  echo "sanitize: installing the plain build into $out/lib-plain (log: $out/build-plain.log)"
  GPUSTATS_CUDA=no MAKEFLAGS=-j${JOBS:-1} \
    "$R" CMD INSTALL --preclean --no-multiarch --library="$out/lib-plain" "$out/src" \
    > "$out/build-plain.log" 2>&1 || { tail -n 40 "$out/build-plain.log"; exit 1; }
fi

if has_step tests; then
  echo "sanitize: tests matching '$tests' under ASan/UBSan (log: $out/asan-tests.log)"
  (cd "$root" && with_sanitizers env GPUSTATS_LIB="$out/lib-asan" "$RSCRIPT" tools/run-tests.R "$tests") \
    > "$out/asan-tests.log" 2>&1 || true
  tail -n 1 "$out/asan-tests.log"
fi

if has_step battery; then
  echo "sanitize: battery cases matching '$battery' under ASan/UBSan (table: $out/battery/cases.csv)"
  (cd "$root" && with_sanitizers "$RSCRIPT" tools/bad-input-battery.R --lib "$out/lib-asan" --out "$out/battery" \
     --mem 0 --no-huge --timeout 120 --jobs 1 --filter "$battery") > "$out/asan-battery.log" 2>&1 || true
  tail -n 1 "$out/asan-battery.log"
fi

if has_step valgrind; then
  echo "sanitize: tests matching '$valgrind_tests' under valgrind (logs: $out/valgrind/)"
  rm -rf "$out/valgrind"
  mkdir -p "$out/valgrind"
  (cd "$root" && GPUSTATS_LIB="$out/lib-plain" GPUSTATS_UNDER_VALGRIND=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
     "$R" -d "valgrind --track-origins=yes --log-file=$out/valgrind/vg.%p.log" --vanilla --slave \
     -f tools/run-tests.R --args "$valgrind_tests") > "$out/valgrind-tests.log" 2>&1 || true
  tail -n 1 "$out/valgrind-tests.log"
fi

if has_step findings; then
  "$RSCRIPT" "$root/tools/battery/sanitizer-findings.R" "$out"
fi
