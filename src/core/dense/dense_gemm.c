/* C -= A B' in the GotoBLAS/BLIS scheme: B packed in column panels of
 * DENSE_NR and A in row panels of DENSE_MR, a block of DENSE_KC of their
 * common dimension at a time, so that a register-blocked micro-kernel
 * streams both from cache with unit stride. Threads take blocks of rows
 * of C. */
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_dense.h"

#define DENSE_MR 8   /* rows of the micro-kernel: two vectors of 4 */
#define DENSE_NR 6   /* its columns: 12 vector accumulators of the 16 AVX2 registers */
#define DENSE_KC 256 /* common dimension per packed block: a B panel (12 KiB) stays in L1 */
#define DENSE_MC 96  /* rows of A per packed block (192 KiB, in L2) and per task of a thread */

/* Multiply-adds per unit of work of gs_cpu_threads_for (1024 units per
 * thread): a thread per 2^21 of them, about 0.1 ms, so that the small
 * products of the recursion's lower levels run on the caller's thread
 * rather than pay a fork and a join (more on a loaded machine). */
#define DENSE_FLOPS_PER_WORK 2048.0

typedef double v4 __attribute__((vector_size(32)));
/* 4 doubles at any double-aligned address: one unaligned load or store. */
typedef double v4u __attribute__((vector_size(32), aligned(8)));
#define LOAD4(p) (*(const v4u *)(p))
#define STORE4(p, v) (*(v4u *)(p) = (v))

static int round_up(int x, int to) { return (x + to - 1) / to * to; }

/* Rows [0, rows) and columns [0, kc) of x in panels of `width` rows, each
 * stored column by column (A's panels of DENSE_MR rows, and B's of DENSE_NR:
 * a row of the panel of B' at a time); rows past `rows` are zeros. */
static void pack_panels(int rows, int kc, const double *x, int ld, int width, double *out)
{
  for (int i0 = 0; i0 < rows; i0 += width) {
    const int w = rows - i0 < width ? rows - i0 : width;
    for (int p = 0; p < kc; ++p, out += width) {
      const double *src = x + i0 + (size_t)p * ld;
      if (w == width) {
        memcpy(out, src, (size_t)width * sizeof(double));
        continue;
      }
      for (int i = 0; i < width; ++i) out[i] = i < w ? src[i] : 0.0;
    }
  }
}

/* acc (DENSE_MR x DENSE_NR, column-major) = a panel of A times a panel of B'. */
static inline __attribute__((always_inline)) void micro_kernel(int kc, const double *pa, const double *pb,
                                                               double *acc)
{
  v4 c00 = {0}, c01 = {0}, c02 = {0}, c03 = {0}, c04 = {0}, c05 = {0};
  v4 c10 = {0}, c11 = {0}, c12 = {0}, c13 = {0}, c14 = {0}, c15 = {0};
  for (int p = 0; p < kc; ++p, pa += DENSE_MR, pb += DENSE_NR) {
    const v4 a0 = LOAD4(pa), a1 = LOAD4(pa + 4);
#define DENSE_STEP(j)                             \
  {                                               \
    const v4 b = {pb[j], pb[j], pb[j], pb[j]};    \
    c0##j += a0 * b;                              \
    c1##j += a1 * b;                              \
  }
    DENSE_STEP(0) DENSE_STEP(1) DENSE_STEP(2) DENSE_STEP(3) DENSE_STEP(4) DENSE_STEP(5)
#undef DENSE_STEP
  }
  STORE4(acc, c00), STORE4(acc + 4, c10), STORE4(acc + 8, c01), STORE4(acc + 12, c11);
  STORE4(acc + 16, c02), STORE4(acc + 20, c12), STORE4(acc + 24, c03), STORE4(acc + 28, c13);
  STORE4(acc + 32, c04), STORE4(acc + 36, c14), STORE4(acc + 40, c05), STORE4(acc + 44, c15);
}

/* C -= acc for an mr x nr tile of C at row `row` and column `col` of the
 * product; lower: only where row >= col. */
static inline __attribute__((always_inline)) void subtract_tile(const double *acc, int mr, int nr, double *c, int ldc,
                                                                int row, int col, int lower)
{
  if (mr == DENSE_MR && nr == DENSE_NR && (!lower || row >= col + DENSE_NR - 1)) {
    for (int j = 0; j < DENSE_NR; ++j) {
      double *cj = c + (size_t)j * ldc;
      STORE4(cj, LOAD4(cj) - LOAD4(acc + j * DENSE_MR));
      STORE4(cj + 4, LOAD4(cj + 4) - LOAD4(acc + j * DENSE_MR + 4));
    }
    return;
  }
  for (int j = 0; j < nr; ++j)
    for (int i = 0; i < mr; ++i)
      if (!lower || row + i >= col + j) c[i + (size_t)j * ldc] -= acc[i + j * DENSE_MR];
}

/* C (mc x nc, its first row at row `row0` of the product) -= the packed
 * blocks' product. */
GS_CPU_DISPATCH static void block_product(int mc, int nc, int kc, const double *pa, const double *pb, double *c,
                                          int ldc, int row0, int lower)
{
  double acc[DENSE_MR * DENSE_NR];
  for (int j0 = 0; j0 < nc; j0 += DENSE_NR) {
    const int nr = nc - j0 < DENSE_NR ? nc - j0 : DENSE_NR;
    for (int i0 = 0; i0 < mc; i0 += DENSE_MR) {
      const int mr = mc - i0 < DENSE_MR ? mc - i0 : DENSE_MR;
      if (lower && row0 + i0 + mr - 1 < j0) continue; /* above the diagonal */
      micro_kernel(kc, pa + (size_t)i0 * kc, pb + (size_t)j0 * kc, acc);
      subtract_tile(acc, mr, nr, c + i0 + (size_t)j0 * ldc, ldc, row0 + i0, j0, lower);
    }
  }
}

/* Rows [r0, r1) of C -= A B', with this thread's packing buffers. */
static void product_rows(int r0, int r1, int n, int k, const double *a, int lda, const double *b, int ldb, double *c,
                         int ldc, int lower, double *pa, double *pb)
{
  const int nc = lower && r1 < n ? r1 : n; /* the lower triangle of rows < r1 has columns < r1 */
  for (int p0 = 0; p0 < k; p0 += DENSE_KC) {
    const int kc = k - p0 < DENSE_KC ? k - p0 : DENSE_KC;
    pack_panels(nc, kc, b + (size_t)p0 * ldb, ldb, DENSE_NR, pb);
    for (int i0 = r0; i0 < r1; i0 += DENSE_MC) {
      const int mc = r1 - i0 < DENSE_MC ? r1 - i0 : DENSE_MC;
      pack_panels(mc, kc, a + i0 + (size_t)p0 * lda, lda, DENSE_MR, pa);
      block_product(mc, lower && i0 + mc < nc ? i0 + mc : nc, kc, pa, pb, c + i0, ldc, i0, lower);
    }
  }
}

gs_status gs_dense_gemm_nt(int m, int n, int k, const double *a, int lda, const double *b, int ldb, double *c,
                           int ldc, int lower, int threads, char *msg)
{
  if (m <= 0 || n <= 0 || k <= 0) return GS_OK;
  const int nthreads = gs_cpu_threads_for(threads, (double)m * n * k / DENSE_FLOPS_PER_WORK);
  const int per_thread = round_up((m + nthreads - 1) / nthreads, DENSE_MR);
  const int rows = per_thread < DENSE_MC ? per_thread : DENSE_MC;
  const size_t a_len = (size_t)DENSE_MC * DENSE_KC, b_len = (size_t)round_up(n, DENSE_NR) * DENSE_KC;
  int failed = 0;
#pragma omp parallel num_threads(nthreads)
  {
    double *pa = (double *)malloc((a_len + b_len) * sizeof(double));
    if (!pa) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(dynamic, 1)
    for (int r0 = 0; r0 < m; r0 += rows)
      if (pa) product_rows(r0, m - r0 < rows ? m : r0 + rows, n, k, a, lda, b, ldb, c, ldc, lower, pa, pa + a_len);
    free(pa);
  }
  return failed ? gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the packed blocks of a matrix product") : GS_OK;
}
