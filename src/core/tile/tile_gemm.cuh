/* The FP64 product of the tile Cholesky's updates, c -= a b' on whole
 * nb x nb tiles, through cuBLASLt with 128 x 128 thread-block tiles.
 *
 * For a lone 2048^3 product, cublasDgemm's heuristic chooses 64 x 64
 * blocks: 1024 of them leave fewer SMs idle in the last wave than 256 do.
 * The factorization runs four products at once, which fill the device
 * whatever the blocks, and there the larger blocks' lower shared-memory and
 * L2 traffic per flop counts, because the products run at the GPU's power
 * limit: on an H100 (700 W, 1.3 to 1.7 GHz under this load), four streams
 * of 2048^3 products reach 52.5 to 53.9 TFLOP/s with 128 x 128 blocks
 * against 47.4 to 48.9 with cublasDgemm. */
#ifndef GS_TILE_GEMM_CUH
#define GS_TILE_GEMM_CUH

#include <cublasLt.h>

#include "gs_common.h"

typedef struct {
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t layout;
  cublasLtMatmulAlgo_t algo;
  int usable; /* 0: the library has no such algorithm for these tiles; use cublasDgemm */
} tile_gemm;

/* Finds the algorithm for nb x nb tiles; leaves g unusable, without an
 * error, where there is none (small or oddly sized tiles, or a GPU or
 * library version without such a kernel). */
gs_status tile_gemm_setup(cublasLtHandle_t lt, int nb, tile_gemm *g, char *msg);
/* c -= a b' on stream s (all three nb x nb, leading dimension nb). */
cublasStatus_t tile_gemm_run(cublasLtHandle_t lt, const tile_gemm *g, const double *a, const double *b, double *c,
                             cudaStream_t s);
void tile_gemm_free(tile_gemm *g);

#endif
