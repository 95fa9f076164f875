/* The tile updates' FP64 product through cuBLASLt (see tile_gemm.cuh). */
#include <string.h>

#include "gs_gpu_ctx.cuh"
#include "tile_gemm.cuh"

/* Smaller tiles give four streams too few 128 x 128 blocks to fill the
 * device; a multiple of 8 keeps every tile of a slot array 256-byte
 * aligned, which cuBLASLt's algorithms assume by default. */
#define TILE_GEMM_MIN_NB 1024

/* The heuristic's first algorithm with 128 x 128 blocks, no split of the
 * inner dimension and the first pipeline depth the library accepts for
 * them. Returns 0 when there is none. */
static int algo_with_large_blocks(cublasLtHandle_t lt, tile_gemm *g, cublasLtMatmulPreference_t pref)
{
  cublasLtMatmulHeuristicResult_t base;
  int found = 0, stages[64];
  size_t bytes = 0;
  if (cublasLtMatmulAlgoGetHeuristic(lt, g->op, g->layout, g->layout, g->layout, g->layout, pref, 1, &base, &found) !=
          CUBLAS_STATUS_SUCCESS ||
      !found)
    return 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&base.algo, CUBLASLT_ALGO_CAP_STAGES_IDS, stages, sizeof stages, &bytes) !=
      CUBLAS_STATUS_SUCCESS)
    return 0;
  for (size_t s = 0; s < bytes / sizeof(int) && s < 64; ++s) {
    cublasLtMatmulAlgo_t algo = base.algo;
    const int tile = CUBLASLT_MATMUL_TILE_128x128, one = 1, none = CUBLASLT_REDUCTION_SCHEME_NONE;
    cublasLtMatmulHeuristicResult_t check;
    if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile) ||
        cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &one, sizeof one) ||
        cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &none, sizeof none) ||
        cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages[s], sizeof stages[s]))
      continue;
    if (cublasLtMatmulAlgoCheck(lt, g->op, g->layout, g->layout, g->layout, g->layout, &algo, &check) ==
            CUBLAS_STATUS_SUCCESS &&
        check.workspaceSize == 0) {
      g->algo = algo;
      return 1;
    }
  }
  return 0;
}

gs_status tile_gemm_setup(cublasLtHandle_t lt, int nb, tile_gemm *g, char *msg)
{
  gs_status st = GS_OK;
  const cublasOperation_t n = CUBLAS_OP_N, t = CUBLAS_OP_T;
  const size_t no_workspace = 0;
  cublasLtMatmulPreference_t pref = NULL;
  memset(g, 0, sizeof *g);
  if (nb < TILE_GEMM_MIN_NB || nb % 8) return GS_OK;
  GS_TRY(gs_cublas_status(cublasLtMatmulDescCreate(&g->op, CUBLAS_COMPUTE_64F, CUDA_R_64F), "cublasLtMatmulDescCreate",
                          msg));
  GS_TRY(gs_cublas_status(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &n, sizeof n),
                          "cublasLtMatmulDescSetAttribute", msg));
  GS_TRY(gs_cublas_status(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &t, sizeof t),
                          "cublasLtMatmulDescSetAttribute", msg));
  GS_TRY(gs_cublas_status(cublasLtMatrixLayoutCreate(&g->layout, CUDA_R_64F, nb, nb, nb), "cublasLtMatrixLayoutCreate",
                          msg));
  GS_TRY(gs_cublas_status(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", msg));
  GS_TRY(gs_cublas_status(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                               &no_workspace, sizeof no_workspace),
                          "cublasLtMatmulPreferenceSetAttribute", msg));
  g->usable = algo_with_large_blocks(lt, g, pref);
done:
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (st != GS_OK || !g->usable) tile_gemm_free(g);
  return st;
}

cublasStatus_t tile_gemm_run(cublasLtHandle_t lt, const tile_gemm *g, const double *a, const double *b, double *c,
                             cudaStream_t s)
{
  const double one = 1.0, minus = -1.0;
  return cublasLtMatmul(lt, g->op, &minus, a, g->layout, b, g->layout, &one, c, g->layout, c, g->layout, &g->algo,
                        NULL, 0, s);
}

void tile_gemm_free(tile_gemm *g)
{
  if (g->layout) cublasLtMatrixLayoutDestroy(g->layout);
  if (g->op) cublasLtMatmulDescDestroy(g->op);
  memset(g, 0, sizeof *g);
}
