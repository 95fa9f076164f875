/* The device arrays of a Vecchia object that other GPU files of the domain
 * read (vecchia_cuda.cu owns them). */
#ifndef GS_VECCHIA_GPU_CUH
#define GS_VECCHIA_GPU_CUH

#include "gs_gpu_ctx.cuh"
#include "vecchia_internal.h"

typedef struct {
  gs_gpu_ctx *ctx;
  const int *nn;          /* n x mp1, row-major */
  const double *w;        /* the last factor, n x mp1 */
  const long *rev_start, *rev; /* the factor's columns (gs_vecchia's) */
} vecchia_gpu_view;

/* The arrays of v's device copy, the factor's columns uploaded at the first
 * call (v->rev built: vecchia_columns). */
gs_status vecchia_gpu_view_get(gs_vecchia *v, vecchia_gpu_view *view, char *msg);

#endif
