#!/bin/sh
# Compiles every C source of src/ (the R glue) and src/core with gcc's -Wall
# -Wextra, as the CPU build compiles them (the *_none.c stubs included) and as
# the CUDA build does (GS_HAVE_CUDA=1, without the stubs); fails on any
# warning. A developer check (make warnings): users compile with R's flags.
# Run from the package root. CC and R may be set in the environment.
set -u
CC=${CC:-gcc}
R=${R:-R}
cd src || exit 1
rinc=$("$R" CMD config --cppflags) || exit 1
inc="-I."
for d in core/*/; do inc="$inc -I${d%/}"; done
log=$(mktemp)
obj=$(mktemp)
trap 'rm -f "$log" "$obj"' EXIT
status=0
for build in cpu cuda; do
  defs="-DGS_HAVE_FFTW=1"
  [ "$build" = cuda ] && defs="$defs -DGS_HAVE_CUDA=1"
  for f in *.c core/*/*.c; do
    case "$build:$f" in cuda:*_none.c) continue ;; esac
    # shellcheck disable=SC2086
    if ! $CC -std=gnu99 -O2 -fopenmp -fpic $defs -Wall -Wextra $inc $rinc -c "$f" -o "$obj" > "$log" 2>&1 \
      || [ -s "$log" ]; then
      echo "== $f ($build build)"
      cat "$log"
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "check-warnings: -Wall -Wextra clean (src/*.c, src/core/*/*.c; CPU and CUDA builds)"
exit $status
