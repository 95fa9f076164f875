/* Tiled lower triangles in host memory: layout, filling, the triangular solves
 * and the upper factor, shared by the CPU and GPU factorizations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_tile.h"
#include "lapack.h"

gs_status gs_tile_matrix_create(long n, int nb, int pinned, gs_tile_matrix **out, char *msg)
{
  if (n < 1 || nb < 1) return gs_set_msg(msg, GS_ERR_ARG, "a tiled matrix needs n >= 1 and a tile size >= 1");
  gs_tile_matrix *m = (gs_tile_matrix *)calloc(1, sizeof *m);
  if (!m) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  m->n = n;
  m->nb = (long)nb > n ? (int)n : nb;
  m->nt = (int)((n + m->nb - 1) / m->nb);
  m->offset = (size_t *)malloc((size_t)gs_tile_count(m->nt) * sizeof *m->offset);
  if (!m->offset) {
    free(m);
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  }
  size_t total = 0;
  for (int i = 0; i < m->nt; ++i)
    for (int j = 0; j <= i; ++j) {
      m->offset[gs_tile_index(i, j)] = total;
      total += (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j);
    }
  const double mem = gs_host_memory_bytes();
  if (mem > 0 && total * 8.0 > 0.9 * mem) { /* Linux would promise it and fail on first touch */
    free(m->offset);
    free(m);
    return gs_set_msg(msg, GS_ERR_NOMEM, "the tiles of the %ld x %ld matrix need %.1f GB; this machine has %.1f GB",
                      n, n, total * 8.0 / 1e9, mem / 1e9);
  }
  m->data = (double *)gs_host_alloc(total * sizeof(double), pinned, &m->pinned);
  if (!m->data) {
    free(m->offset);
    free(m);
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate %.1f GB of host memory for the tiles of the %ld x %ld matrix",
                      total * 8.0 / 1e9, n, n);
  }
  *out = m;
  return GS_OK;
}

void gs_tile_matrix_free(gs_tile_matrix *m)
{
  if (!m) return;
  gs_host_free(m->data, m->pinned);
  free(m->offset);
  free(m);
}

double *gs_tile_locs_blocked(const gs_tile_matrix *m, const gs_tile_source *src)
{
  double *blocks = (double *)malloc((size_t)m->n * src->dim * sizeof(double));
  if (!blocks) return NULL;
  for (int i = 0; i < m->nt; ++i) {
    const long i0 = (long)i * m->nb, rows = gs_tile_rows(m, i);
    double *block = blocks + (size_t)i0 * src->dim;
    for (int d = 0; d < src->dim; ++d)
      memcpy(block + (size_t)d * rows, src->locs + (size_t)d * m->n + i0, (size_t)rows * sizeof(double));
  }
  return blocks;
}

/* Tile (i, j) of a dense matrix: its lower part when on the diagonal. */
static void fill_dense(gs_tile_matrix *m, const gs_tile_source *src, int i, int j)
{
  const int ri = gs_tile_rows(m, i), cj = gs_tile_rows(m, j);
  const long i0 = (long)i * m->nb, j0 = (long)j * m->nb;
  double *t = gs_tile_at(m, i, j);
  for (int c = 0; c < cj; ++c) {
    const int r0 = (i == j) ? c : 0;
    memcpy(t + (size_t)c * ri + r0, src->a + (size_t)(j0 + c) * src->lda + i0 + r0, (size_t)(ri - r0) * sizeof(double));
  }
}

static void fill_matern(gs_tile_matrix *m, const gs_tile_source *src, const double *blocks, int i, int j)
{
  const gs_matern_cov_args a = {blocks + (size_t)i * m->nb * src->dim, gs_tile_rows(m, i),
                                (i == j) ? NULL : blocks + (size_t)j * m->nb * src->dim, gs_tile_rows(m, j), src->dim,
                                src->metric, src->sigma2, src->range, src->smoothness, src->nugget, 1,
                                gs_tile_at(m, i, j)};
  gs_matern_cov_cpu(&a, 1, NULL, NULL);
}

gs_status gs_tile_source_check(const gs_tile_source *src, long n, int threads, char *msg)
{
  /* as all.equal(A, t(A)): over the entries that differ from their mirror */
  double diff = 0.0, size = 0.0, differing = 0.0;
  long nonfinite = 0;
  const double *a = src->a;
  const long lda = src->lda;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : diff, size, differing, nonfinite) \
    num_threads(gs_cpu_threads(threads))
  for (long j = 0; j < n; ++j) {
    const double *col = a + (size_t)j * lda;
    for (long i = 0; i < n; ++i)
      if (!isfinite(col[i])) ++nonfinite;
    for (long i = j + 1; i < n; ++i) {
      const double mirror = a[(size_t)i * lda + j];
      if (col[i] == mirror) continue;
      diff += 2.0 * fabs(col[i] - mirror);
      size += fabs(col[i]) + fabs(mirror);
      differing += 2.0;
    }
  }
  if (nonfinite) return gs_set_msg(msg, GS_ERR_ARG, "A contains missing or infinite values");
  if (differing > 0.0) {
    const double tol = 100.0 * 2.220446049250313e-16, scale = size / differing;
    if (diff / differing / (scale > tol ? scale : 1.0) > tol)
      return gs_set_msg(msg, GS_ERR_ARG, "A is not symmetric; a Cholesky factorization needs a symmetric matrix");
  }
  return GS_OK;
}

gs_status gs_tile_fill(gs_tile_matrix *m, const gs_tile_source *src, int threads, char *msg)
{
  const long ntiles = gs_tile_count(m->nt);
  double *blocks = NULL;
  if (!src->a && !(blocks = gs_tile_locs_blocked(m, src))) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
#pragma omp parallel for schedule(dynamic, 1) num_threads(gs_cpu_threads(threads))
  for (long t = 0; t < ntiles; ++t) {
    int i, j;
    gs_tile_coords(t, &i, &j);
    if (src->a)
      fill_dense(m, src, i, j);
    else
      fill_matern(m, src, blocks, i, j);
  }
  free(blocks);
  return GS_OK;
}

double gs_tile_logdet(const gs_tile_matrix *m)
{
  double s = 0.0;
  for (int k = 0; k < m->nt; ++k) {
    const int r = gs_tile_rows(m, k);
    const double *t = gs_tile_at(m, k, k);
    for (int c = 0; c < r; ++c) s += log(t[(size_t)c * r + c]);
  }
  return 2.0 * s;
}

/* b_i -= op(L_xy) b_j over the rows of block i, for every block in [lo, hi). */
static void solve_updates(const gs_tile_matrix *m, int j, int lo, int hi, int trans, double *b, long k, int threads)
{
  const int nk = (int)k, ldb = (int)m->n, cj = gs_tile_rows(m, j);
  const double one = 1.0, minus = -1.0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int i = lo; i < hi; ++i) {
    const int ri = gs_tile_rows(m, i);
    double *bi = b + (size_t)i * m->nb, *bj = b + (size_t)j * m->nb;
    if (trans) /* b_i -= L_ji' b_j */
      dgemm_("T", "N", &ri, &nk, &cj, &minus, gs_tile_at(m, j, i), &cj, bj, &ldb, &one, bi, &ldb, 1, 1);
    else /* b_i -= L_ij b_j */
      dgemm_("N", "N", &ri, &nk, &cj, &minus, gs_tile_at(m, i, j), &ri, bj, &ldb, &one, bi, &ldb, 1, 1);
  }
}

gs_status gs_tile_solve(const gs_tile_matrix *m, int what, double *b, long k, int threads, char *msg)
{
  if (what < GS_TILE_FORWARD || what > GS_TILE_SOLVE || k < 0 || k > 2147483647L || m->n > 2147483647L)
    return gs_set_msg(msg, GS_ERR_ARG, "bad gs_tile_solve call");
  if (k == 0) return GS_OK;
  const int nk = (int)k, ldb = (int)m->n, nthreads = gs_blas_threads() > 1 ? 1 : gs_cpu_threads(threads);
  const double one = 1.0;
  if (what & GS_TILE_FORWARD)
    for (int j = 0; j < m->nt; ++j) {
      const int cj = gs_tile_rows(m, j);
      dtrsm_("L", "L", "N", "N", &cj, &nk, &one, gs_tile_at(m, j, j), &cj, b + (size_t)j * m->nb, &ldb, 1, 1, 1, 1);
      solve_updates(m, j, j + 1, m->nt, 0, b, k, nthreads);
    }
  if (what & GS_TILE_BACKWARD)
    for (int j = m->nt - 1; j >= 0; --j) {
      const int cj = gs_tile_rows(m, j);
      dtrsm_("L", "L", "T", "N", &cj, &nk, &one, gs_tile_at(m, j, j), &cj, b + (size_t)j * m->nb, &ldb, 1, 1, 1, 1);
      solve_updates(m, j, 0, j, 1, b, k, nthreads);
    }
  return GS_OK;
}

gs_status gs_tile_multiply(const gs_tile_matrix *m, double *b, long k, int threads, char *msg)
{
  if (k < 0 || k > 2147483647L || m->n > 2147483647L) return gs_set_msg(msg, GS_ERR_ARG, "bad gs_tile_multiply call");
  if (k == 0) return GS_OK;
  const int nk = (int)k, ldb = (int)m->n, nthreads = gs_blas_threads() > 1 ? 1 : gs_cpu_threads(threads);
  const double one = 1.0;
  double *x = (double *)malloc((size_t)m->n * k * sizeof(double));
  if (!x) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  memcpy(x, b, (size_t)m->n * k * sizeof(double));
  /* block row i of L b from the blocks of the copy x: rows are independent */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
  for (int i = 0; i < m->nt; ++i) {
    const int ri = gs_tile_rows(m, i);
    double *bi = b + (size_t)i * m->nb;
    dtrmm_("L", "L", "N", "N", &ri, &nk, &one, gs_tile_at(m, i, i), &ri, bi, &ldb, 1, 1, 1, 1);
    for (int j = 0; j < i; ++j)
      dgemm_("N", "N", &ri, &nk, &m->nb, &one, gs_tile_at(m, i, j), &ri, x + (size_t)j * m->nb, &ldb, &one, bi, &ldb,
             1, 1);
  }
  free(x);
  return GS_OK;
}

void gs_tile_upper(const gs_tile_matrix *m, double *r, int threads)
{
  const long n = m->n;
#pragma omp parallel for schedule(dynamic, 1) num_threads(gs_cpu_threads(threads))
  for (int i = 0; i < m->nt; ++i) { /* tile row i of L is tile column i of L' */
    const int ri = gs_tile_rows(m, i);
    for (int c = 0; c < ri; ++c) {
      const long col = (long)i * m->nb + c;
      double *rc = r + (size_t)col * n;
      for (int j = 0; j <= i; ++j) {
        const int cj = gs_tile_rows(m, j), top = (j == i) ? c + 1 : cj;
        const double *t = gs_tile_at(m, i, j);
        for (int q = 0; q < top; ++q) rc[(long)j * m->nb + q] = t[(size_t)q * ri + c];
      }
      memset(rc + col + 1, 0, (size_t)(n - col - 1) * sizeof(double));
    }
  }
}
