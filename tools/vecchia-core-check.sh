#!/bin/sh
# Builds tools/vecchia-core-check.c against the Vecchia core with CUDA and
# runs it (see that file); run from src/ on a GPU host. Arguments: sizes n.
set -e
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
OUT=${TMPDIR:-/tmp}/vecchia-core-check
mkdir -p "$OUT"
INC="-I. $(for d in core/*/; do printf -- "-I%s " "${d%/}"; done)"
ARCH=${GPUSTATS_CUDA_ARCHS:-90}
for f in core/common/gs_common.c core/common/cpu.c core/vecchia/vecchia.c core/vecchia/vecchia_cpu.c \
         core/vecchia/vecchia_order.c core/vecchia/vecchia_kdtree.c ../tools/vecchia-core-check.c; do
  gcc -std=gnu99 -O2 -fopenmp -DGS_HAVE_CUDA=1 $INC -c "$f" -o "$OUT/$(basename "$f" .c).o" &
done
for f in core/vecchia/vecchia_cuda.cu core/gpu/gpu_context.cu; do
  "$CUDA_HOME/bin/nvcc" -std=c++17 -O3 -gencode arch=compute_$ARCH,code=sm_$ARCH $INC -DGS_HAVE_CUDA=1 \
    -Xcompiler -fopenmp -c "$f" -o "$OUT/$(basename "$f" .cu).o" &
done
wait
"$CUDA_HOME/bin/nvcc" -o "$OUT/check" "$OUT"/*.o -Xcompiler -fopenmp -L"$CUDA_HOME/lib64" -lcublas -lcublasLt -lcusolver -lm
"$OUT/check" "$@"
