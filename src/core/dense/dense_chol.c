/* The Cholesky factorization and its panel solve, recursive (Gustavson;
 * Elmroth and Gustavson): each halving leaves a triangular solve and a
 * symmetric update, which the packed product (dense_gemm.c) does at its
 * speed, down to small blocks done column by column. */
#include <math.h>
#include <stdlib.h>

#include "gs_cpu.h"
#include "gs_dense.h"
#include "lapack.h"

/* Orders below which the column-by-column forms are used: their flops are
 * a small share (n DENSE_BASE^2 / 3 of n^3 / 3). */
#define DENSE_POTRF_BASE 32
#define DENSE_TRSM_BASE 16
/* Rows of the triangular solve per task of a thread (the rows are independent). */
#define DENSE_TRSM_ROWS 128

/* The first part of a halving, a multiple of 8 (the rows of the product's
 * micro-kernel) where the order allows. */
static int split(int n)
{
  const int h = (n / 2 + 7) / 8 * 8;
  return h < n ? h : n / 2;
}

/* Column-by-column Cholesky (LAPACK's dpotf2, left-looking); 0 or the order
 * of the first leading minor that is not positive definite. */
GS_CPU_DISPATCH static int potrf_columns(int n, double *a, int lda)
{
  for (int j = 0; j < n; ++j) {
    double *cj = a + (size_t)j * lda;
    for (int k = 0; k < j; ++k) {
      const double *ck = a + (size_t)k * lda;
      const double ljk = ck[j];
      for (int i = j; i < n; ++i) cj[i] -= ljk * ck[i];
    }
    if (!(cj[j] > 0.0)) return j + 1; /* also NaN */
    const double ljj = sqrt(cj[j]);
    cj[j] = ljj;
    for (int i = j + 1; i < n; ++i) cj[i] /= ljj;
  }
  return 0;
}

/* B := B L^-T column by column. */
GS_CPU_DISPATCH static void trsm_columns(int m, int n, const double *l, int ldl, double *b, int ldb)
{
  for (int j = 0; j < n; ++j) {
    double *bj = b + (size_t)j * ldb;
    for (int k = 0; k < j; ++k) {
      const double *bk = b + (size_t)k * ldb;
      const double ljk = l[j + (size_t)k * ldl];
      for (int i = 0; i < m; ++i) bj[i] -= ljk * bk[i];
    }
    const double ljj = l[j + (size_t)j * ldl];
    for (int i = 0; i < m; ++i) bj[i] /= ljj;
  }
}

/* B := B L^-T on one thread: [X1 X2] [L11' L21'; 0 L22'] = [B1 B2] gives
 * X1 = B1 L11^-T, then X2 = (B2 - X1 L21') L22^-T. */
static gs_status trsm_serial(int m, int n, const double *l, int ldl, double *b, int ldb, char *msg)
{
  if (n <= DENSE_TRSM_BASE) {
    trsm_columns(m, n, l, ldl, b, ldb);
    return GS_OK;
  }
  const int n1 = split(n), n2 = n - n1;
  double *b2 = b + (size_t)n1 * ldb;
  gs_status st = trsm_serial(m, n1, l, ldl, b, ldb, msg);
  if (st == GS_OK) st = gs_dense_gemm_nt(m, n2, n1, b, ldb, l + n1, ldl, b2, ldb, 0, 1, msg);
  if (st == GS_OK) st = trsm_serial(m, n2, l + n1 + (size_t)n1 * ldl, ldl, b2, ldb, msg);
  return st;
}

gs_status gs_dense_trsm_rlt(int m, int n, const double *l, int ldl, double *b, int ldb, int threads, char *msg)
{
  if (m <= 0 || n <= 0) return GS_OK;
  const int nthreads = gs_cpu_threads_for(threads, (double)m * n * n / 2048.0) /* as gs_dense_gemm_nt */;
  gs_status st = GS_OK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
  for (int r0 = 0; r0 < m; r0 += DENSE_TRSM_ROWS) {
    char mine[GS_MSG_LEN];
    const int rows = m - r0 < DENSE_TRSM_ROWS ? m - r0 : DENSE_TRSM_ROWS;
    if (trsm_serial(rows, n, l, ldl, b + r0, ldb, mine) != GS_OK) {
#pragma omp critical(gs_dense_trsm_status)
      st = gs_set_msg(msg, GS_ERR_NOMEM, "%s", mine);
    }
  }
  return st;
}

/* (L^-1 B)' = B' L^-T: the transposed right-hand sides, k rows of n, go
 * through the panel solve, whose packed products run at the kernel's speed
 * where a column-by-column solve (BLAS dtrsm) reads L once per column of B;
 * the transposes cost O(n k), against the solve's n^2 k. */
gs_status gs_dense_trsm_lln(int n, int k, const double *l, int ldl, double *b, int ldb, int threads, char *msg)
{
  if (n <= 0 || k <= 0) return GS_OK;
  double *bt = (double *)malloc((size_t)n * k * sizeof(double));
  if (!bt) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for a triangular solve with %d right-hand sides", k);
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < n; ++i) bt[j + (size_t)i * k] = b[i + (size_t)j * ldb];
  /* the panel solve splits its rows among threads in blocks of
   * DENSE_TRSM_ROWS, one block for up to 128 right-hand sides: here they
   * are split evenly instead (the work as gs_dense_gemm_nt counts it) */
  const int nthreads = gs_cpu_threads_for(threads, (double)k * n * n / 4096.0), chunk = (k + nthreads - 1) / nthreads;
  gs_status st = GS_OK;
#pragma omp parallel for schedule(static, 1) num_threads(nthreads)
  for (int r0 = 0; r0 < k; r0 += chunk) {
    char mine[GS_MSG_LEN];
    if (gs_dense_trsm_rlt(k - r0 < chunk ? k - r0 : chunk, n, l, ldl, bt + r0, k, 1, mine) != GS_OK) {
#pragma omp critical(gs_dense_trsm_lln_status)
      st = gs_set_msg(msg, GS_ERR_NOMEM, "%s", mine);
    }
  }
  if (st == GS_OK)
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < n; ++i) b[i + (size_t)j * ldb] = bt[j + (size_t)i * k];
  free(bt);
  return st;
}

gs_status gs_dense_forward_solve(int n, int k, const double *l, int ldl, double *b, int ldb, int threads, char *msg)
{
  if (k >= GS_DENSE_PACKED_SOLVE_MIN_COLUMNS) return gs_dense_trsm_lln(n, k, l, ldl, b, ldb, threads, msg);
  const double one = 1.0;
  if (n > 0 && k > 0) dtrsm_("L", "L", "N", "N", &n, &k, &one, l, &ldl, b, &ldb, 1, 1, 1, 1);
  return GS_OK;
}

/* A = L L': [L11 0; L21 L22] from L11 = chol(A11), L21 = A21 L11^-T,
 * L22 = chol(A22 - L21 L21'). */
gs_status gs_dense_potrf(int n, double *a, int lda, int threads, long *failed_minor, char *msg)
{
  if (n <= DENSE_POTRF_BASE) {
    const int f = potrf_columns(n, a, lda);
    if (f == 0) return GS_OK;
    *failed_minor = f;
    return gs_set_msg(msg, GS_ERR_NOT_PD, "the leading minor of order %d is not positive", f);
  }
  const int n1 = split(n), n2 = n - n1;
  double *a21 = a + n1, *a22 = a + n1 + (size_t)n1 * lda;
  gs_status st = gs_dense_potrf(n1, a, lda, threads, failed_minor, msg);
  if (st == GS_OK) st = gs_dense_trsm_rlt(n2, n1, a, lda, a21, lda, threads, msg);
  if (st == GS_OK) st = gs_dense_gemm_nt(n2, n2, n1, a21, lda, a21, lda, a22, lda, 1, threads, msg);
  if (st != GS_OK) return st;
  st = gs_dense_potrf(n2, a22, lda, threads, failed_minor, msg);
  if (st == GS_ERR_NOT_PD) {
    *failed_minor += n1;
    gs_set_msg(msg, st, "the leading minor of order %ld is not positive", *failed_minor);
  }
  return st;
}
