/* The Hankel factor's rows on the GPU (legcheb_factor_cuda.cu): the
 * legcheb_rows of legcheb_part_prepare for the GPU conversion, which leaves
 * each part's factor in device memory, where the Toeplitz products use it.
 * The pivots and the stopping rule stay those of legcheb_factor.c, on the
 * host; the device factors every row of each pass (O(m K^2), the part
 * that grows with n) and finds the row of largest remaining diagonal. */
#ifndef GS_LEGCHEB_FACTOR_CUDA_CUH
#define GS_LEGCHEB_FACTOR_CUDA_CUH

#include <cuda_runtime.h>

#include "gs_common.h"
#include "legcheb_internal.h"

/* The device buffers of one part's factor. */
typedef struct {
  cudaStream_t stream;
  long m;
  size_t l_cap, small_cap; /* doubles at l and at small */
  double *table;           /* 4 m: the Hankel table (2 m), the weights (m), the remaining diagonal (m) */
  double *l;               /* m x rank, column-major: the factor */
  double *small;           /* the pivots' factor rows (rank x ld), then the pivots (rank longs) */
  double *best;            /* the largest remaining diagonal and its row */
  gs_status st;            /* the first failure, its message in msg */
  char msg[GS_MSG_LEN];
} lc_factor;

/* An empty factor whose work runs on `stream`, and the legcheb_rows that
 * fills it. */
void lc_factor_init(lc_factor *f, cudaStream_t stream);
legcheb_rows lc_factor_rows_of(lc_factor *f);
void lc_factor_free(lc_factor *f);

#endif
