/* Tiled lower triangles in host memory: layout, filling, the triangular solves
 * and the upper factor, shared by the CPU and GPU factorizations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_gpu.h"
#include "tile_internal.h"
#include "lapack.h"

#ifdef _OPENMP
#include <omp.h>
#endif

gs_status gs_tile_matrix_create(long n, int nb, int pinned, gs_tile_matrix **out, char *msg)
{
  if (n < 1 || nb < 1) return gs_set_msg(msg, GS_ERR_ARG, "a tiled matrix needs n >= 1 and a tile size >= 1");
  gs_tile_matrix *m = (gs_tile_matrix *)calloc(1, sizeof *m);
  if (!m) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  m->n = n;
  m->nb = (long)nb > n ? (int)n : nb;
  m->nt = (int)((n + m->nb - 1) / m->nb);
  m->want_pinned = pinned;
  const long ntiles = gs_tile_count(m->nt);
  m->offset = (size_t *)malloc((size_t)ntiles * sizeof *m->offset);
  m->precision = (unsigned char *)calloc((size_t)ntiles, 1);
  m->overflow = (unsigned char *)calloc((size_t)ntiles, 1);
  m->scale = (float *)malloc((size_t)ntiles * sizeof *m->scale);
  if (!m->offset || !m->precision || !m->overflow || !m->scale) {
    gs_tile_matrix_free(m);
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  }
  for (long t = 0; t < ntiles; ++t) m->scale[t] = 1.0f;
  *out = m;
  return GS_OK;
}

void gs_tile_matrix_free(gs_tile_matrix *m)
{
  if (!m) return;
  gs_tile_resident_free(m);
  gs_host_pages_free(m->pages);
  free(m->offset);
  free(m->precision);
  free(m->overflow);
  free(m->scale);
  free(m);
}

void gs_tile_matrix_layout(gs_tile_matrix *m, const unsigned char *precision, const double *max_abs)
{
  const long ntiles = gs_tile_count(m->nt);
  size_t total = 0;
  m->low_tiles = 0;
  for (long t = 0; t < ntiles; ++t) {
    int i, j;
    gs_tile_coords(t, &i, &j);
    m->precision[t] = (unsigned char)(precision && i != j ? precision[t] : GS_TILE_FP64);
    m->scale[t] = max_abs ? tile_scale(m->precision[t], max_abs[t]) : 1.0f;
    m->low_tiles += m->precision[t] != GS_TILE_FP64;
    m->offset[t] = total;
    total += (gs_tile_bytes(m, t) + 15) / 16 * 16; /* every tile 16-byte aligned */
  }
  memset(m->overflow, 0, (size_t)ntiles);
  m->layout_bytes = total;
}

/* Frees the tiles' host memory and allocates it anew for the layout. */
static gs_status host_replace(gs_tile_matrix *m, char *msg)
{
  const size_t total = m->layout_bytes;
  if (m->pages) m->host_seconds += gs_host_pages_seconds(m->pages);
  gs_host_pages_free(m->pages);
  m->pages = NULL;
  m->data = NULL;
  m->bytes = 0;
  char what[96];
  snprintf(what, sizeof what, "the tiles of the %ld x %ld matrix", m->n, m->n);
  /* Linux would promise more than it has and fail on first touch */
  gs_status st = gs_host_memory_check((double)total, what, msg);
  if (st != GS_OK) return st;
  m->pages = gs_host_pages_alloc(total, m->want_pinned);
  if (!m->pages)
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate %.1f GB of host memory for the tiles of the %ld x %ld matrix",
                      total / 1e9, m->n, m->n);
  m->data = gs_host_pages_data(m->pages);
  m->bytes = total;
  return GS_OK;
}

/* The memory, allocated when there is none or too little; timed so that a
 * factorization can tell the memory's cost from its own. */
static gs_status host_ensure(gs_tile_matrix *m, char *msg)
{
  if (m->data && m->layout_bytes <= m->bytes) return GS_OK;
  const double t0 = gs_wall_seconds();
  const gs_status st = host_replace(m, msg);
  m->host_seconds += gs_wall_seconds() - t0;
  return st;
}

gs_status gs_tile_matrix_host(gs_tile_matrix *m, char *msg)
{
  gs_status st = host_ensure(m, msg);
  if (st == GS_OK) gs_host_pages_lock(m->pages, 0, m->bytes);
  return st;
}

gs_status gs_tile_matrix_host_ahead(gs_tile_matrix *m, char *msg)
{
  gs_status st = host_ensure(m, msg);
  if (st != GS_OK) return st;
  const long ntiles = gs_tile_count(m->nt);
  size_t *offset = (size_t *)malloc(2 * (size_t)ntiles * sizeof(size_t)), *bytes = offset + ntiles, k = 0;
  if (!offset) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  for (int j = 0; j < m->nt; ++j)
    for (int i = j; i < m->nt; ++i) {
      const long t = gs_tile_index(i, j);
      offset[k] = m->offset[t], bytes[k++] = gs_tile_bytes(m, t);
    }
  gs_host_pages_touch_ahead(m->pages, offset, bytes, (size_t)ntiles);
  free(offset);
  return GS_OK;
}

double gs_tile_host_seconds(const gs_tile_matrix *m)
{
  return m->host_seconds + (m->pages ? gs_host_pages_seconds(m->pages) : 0.0);
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

/* Tile (i, j) of a dense matrix into t (leading dimension its rows): its
 * lower part when on the diagonal, or with `full` both triangles. */
static void dense_tile(const gs_tile_matrix *m, const gs_tile_source *src, int i, int j, int full, double *t)
{
  const int ri = gs_tile_rows(m, i), cj = gs_tile_rows(m, j);
  const long i0 = (long)i * m->nb, j0 = (long)j * m->nb;
  for (int c = 0; c < cj; ++c) {
    const int r0 = (i == j && !full) ? c : 0;
    memcpy(t + (size_t)c * ri + r0, src->a + (size_t)(j0 + c) * src->lda + i0 + r0, (size_t)(ri - r0) * sizeof(double));
  }
}

/* Tile (i, j) of a Matérn covariance into t: the lower part on the
 * diagonal, or with `full` both triangles. */
static void matern_tile(const gs_tile_matrix *m, const gs_tile_source *src, const double *blocks, int i, int j,
                        int full, double *t)
{
  const int ri = gs_tile_rows(m, i), sym = (i == j);
  const gs_matern_cov_args a = {.locs1 = blocks + (size_t)i * m->nb * src->dim,
                                .n1 = ri,
                                .locs2 = sym ? NULL : blocks + (size_t)j * m->nb * src->dim,
                                .n2 = gs_tile_rows(m, j),
                                .dim = src->dim,
                                .model = src->model,
                                .lower_only = 1,
                                .out = t};
  gs_matern_cov_cpu(&a, 1, NULL, NULL);
  if (sym && full) /* the generator writes the lower triangle of a symmetric block */
    for (int c = 0; c < ri; ++c)
      for (int r = 0; r < c; ++r) t[(size_t)c * ri + r] = t[(size_t)r * ri + c];
}

/* Tile (i, j) of the source: into the matrix when it is FP64, else into
 * work. */
static double *source_tile(const gs_tile_matrix *m, const gs_tile_source *src, const double *blocks, int i, int j,
                           int full, double *work)
{
  double *t = (m->precision[gs_tile_index(i, j)] == GS_TILE_FP64 && !full) ? gs_tile_at(m, i, j) : work;
  if (src->a)
    dense_tile(m, src, i, j, full, t);
  else
    matern_tile(m, src, blocks, i, j, full, t);
  return t;
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

typedef void (*tile_visit_fn)(gs_tile_matrix *m, long t, int i, int j, const double *x, void *ctx);

/* visit(tile index, (i, j), its values, ctx) for every tile of the source,
 * on `threads` threads, each with a work tile unless every tile is written
 * in place (an FP64 fill). */
static gs_status source_tiles_visit(gs_tile_matrix *m, const gs_tile_source *src, int threads, int full,
                                    tile_visit_fn visit, void *ctx, char *msg)
{
  const long ntiles = gs_tile_count(m->nt);
  const size_t tile = (full || m->low_tiles) ? (size_t)m->nb * m->nb : 0;
  const int nthreads = gs_cpu_threads(threads);
  double *blocks = NULL, *work = (double *)malloc((size_t)nthreads * tile * sizeof(double) + 1);
  if (!work || (!src->a && !(blocks = gs_tile_locs_blocked(m, src)))) {
    free(work);
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  }
#pragma omp parallel num_threads(nthreads)
  {
#ifdef _OPENMP
    double *mine = work + (size_t)omp_get_thread_num() * tile;
#else
    double *mine = work;
#endif
#pragma omp for schedule(dynamic, 1)
    for (long t = 0; t < ntiles; ++t) {
      int i, j;
      gs_tile_coords(t, &i, &j);
      visit(m, t, i, j, source_tile(m, src, blocks, i, j, full, mine), ctx);
    }
  }
  free(blocks);
  free(work);
  return GS_OK;
}

static void visit_fill(gs_tile_matrix *m, long t, int i, int j, const double *x, void *ctx)
{
  (void)t;
  (void)ctx;
  gs_tile_write(m, i, j, x);
}

gs_status gs_tile_fill(gs_tile_matrix *m, const gs_tile_source *src, int threads, char *msg)
{
  return source_tiles_visit(m, src, threads, 0, visit_fill, NULL, msg);
}

typedef struct {
  double *sumsq, *max_abs;
} tile_norms;

static void visit_norms(gs_tile_matrix *m, long t, int i, int j, const double *x, void *ctx)
{
  tile_norms *out = (tile_norms *)ctx;
  const size_t count = (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j);
  double s = 0.0, big = 0.0;
  for (size_t k = 0; k < count; ++k) {
    s += x[k] * x[k];
    big = fabs(x[k]) > big ? fabs(x[k]) : big;
  }
  out->sumsq[t] = s;
  out->max_abs[t] = big;
}

gs_status gs_tile_norms(const gs_tile_matrix *m, const gs_tile_source *src, int threads, double *sumsq,
                        double *max_abs, char *msg)
{
  tile_norms out = {sumsq, max_abs};
  return source_tiles_visit((gs_tile_matrix *)m, src, threads, 1, visit_norms, &out, msg);
}

void gs_tile_precision_map(const gs_tile_matrix *m, const double *sumsq, double accuracy, int lowest,
                           unsigned char *precision)
{
  const long ntiles = gs_tile_count(m->nt);
  double total = 0.0;
  for (long t = 0; t < ntiles; ++t) {
    int i, j;
    gs_tile_coords(t, &i, &j);
    total += (i == j ? 1.0 : 2.0) * sumsq[t]; /* the upper triangle mirrors the lower */
  }
  for (long t = 0; t < ntiles; ++t) {
    int i, j;
    gs_tile_coords(t, &i, &j);
    const double ratio = m->nt * sqrt(sumsq[t] / total);
    int p = GS_TILE_FP64;
    if (i != j)
      for (int q = lowest; q > GS_TILE_FP64; --q)
        if (ratio * tile_precision_roundoff(q) <= accuracy) {
          p = q;
          break;
        }
    precision[t] = (unsigned char)p;
  }
}

double gs_tile_logdet(const gs_tile_matrix *m)
{
  double s = 0.0;
  for (long r = 0; r < m->n; ++r) s += log(gs_tile_factor_diagonal(m, r));
  return 2.0 * s;
}

gs_status gs_tile_low_sumsq(const gs_tile_matrix *m, const unsigned char *which, int threads, double *sumsq, char *msg)
{
  if (m->resident) return gs_tile_resident_low_sumsq(m, which, sumsq, msg);
  const long ntiles = gs_tile_count(m->nt);
#pragma omp parallel for schedule(dynamic, 4) num_threads(gs_cpu_threads(threads))
  for (long t = 0; t < ntiles; ++t) {
    double s = 0.0;
    if (which[t] != GS_TILE_FP64) {
      const void *x = m->data + m->offset[t];
      const size_t count = gs_tile_bytes(m, t) / tile_precision_bytes(m->precision[t]);
      for (size_t k = 0; k < count; ++k) {
        const double v = tile_entry_get(x, m->precision[t], m->scale[t], k);
        s += v * v;
      }
    }
    sumsq[t] = s;
  }
  return GS_OK;
}

/* Per-thread work tiles for reading the tiles that are not FP64 (NULL when
 * all are: none is needed). */
static gs_status read_work(const gs_tile_matrix *m, int threads, double **work, char *msg)
{
  *work = NULL;
  if (!m->low_tiles) return GS_OK;
  *work = (double *)malloc((size_t)threads * m->nb * m->nb * sizeof(double));
  return *work ? GS_OK : gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
}

static double *thread_work(const gs_tile_matrix *m, double *work)
{
#ifdef _OPENMP
  return work ? work + (size_t)omp_get_thread_num() * m->nb * m->nb : NULL;
#else
  return work;
#endif
}

/* b_i -= op(L_xy) b_j over the rows of block i, for every block in [lo, hi). */
static void solve_updates(const gs_tile_matrix *m, int j, int lo, int hi, int trans, double *b, long k, int threads,
                          double *work)
{
  const int nk = (int)k, ldb = (int)m->n, cj = gs_tile_rows(m, j);
  const double one = 1.0, minus = -1.0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int i = lo; i < hi; ++i) {
    const int ri = gs_tile_rows(m, i);
    double *bi = b + (size_t)i * m->nb, *bj = b + (size_t)j * m->nb;
    if (trans) /* b_i -= L_ji' b_j */
      dgemm_("T", "N", &ri, &nk, &cj, &minus, gs_tile_read(m, j, i, thread_work(m, work)), &cj, bj, &ldb, &one, bi,
             &ldb, 1, 1);
    else /* b_i -= L_ij b_j */
      dgemm_("N", "N", &ri, &nk, &cj, &minus, gs_tile_read(m, i, j, thread_work(m, work)), &ri, bj, &ldb, &one, bi,
             &ldb, 1, 1);
  }
}

gs_status gs_tile_solve(const gs_tile_matrix *m, int what, double *b, long k, int threads, char *msg)
{
  if (what < GS_TILE_FORWARD || what > GS_TILE_SOLVE || k < 0 || k > 2147483647L || m->n > 2147483647L)
    return gs_set_msg(msg, GS_ERR_ARG, "bad gs_tile_solve call");
  if (k == 0) return GS_OK;
  if (m->resident) return gs_tile_resident_apply(m, what, b, k, msg);
  const int nk = (int)k, ldb = (int)m->n, nthreads = gs_blas_threads() > 1 ? 1 : gs_cpu_threads(threads);
  const double one = 1.0;
  double *work;
  gs_status st = read_work(m, nthreads, &work, msg);
  if (st != GS_OK) return st;
  if (what & GS_TILE_FORWARD)
    for (int j = 0; j < m->nt; ++j) {
      const int cj = gs_tile_rows(m, j);
      dtrsm_("L", "L", "N", "N", &cj, &nk, &one, gs_tile_at(m, j, j), &cj, b + (size_t)j * m->nb, &ldb, 1, 1, 1, 1);
      solve_updates(m, j, j + 1, m->nt, 0, b, k, nthreads, work);
    }
  if (what & GS_TILE_BACKWARD)
    for (int j = m->nt - 1; j >= 0; --j) {
      const int cj = gs_tile_rows(m, j);
      dtrsm_("L", "L", "T", "N", &cj, &nk, &one, gs_tile_at(m, j, j), &cj, b + (size_t)j * m->nb, &ldb, 1, 1, 1, 1);
      solve_updates(m, j, 0, j, 1, b, k, nthreads, work);
    }
  free(work);
  return GS_OK;
}

gs_status gs_tile_multiply(const gs_tile_matrix *m, double *b, long k, int threads, char *msg)
{
  if (k < 0 || k > 2147483647L || m->n > 2147483647L) return gs_set_msg(msg, GS_ERR_ARG, "bad gs_tile_multiply call");
  if (k == 0) return GS_OK;
  if (m->resident) return gs_tile_resident_apply(m, GS_TILE_MULTIPLY, b, k, msg);
  const int nk = (int)k, ldb = (int)m->n, nthreads = gs_blas_threads() > 1 ? 1 : gs_cpu_threads(threads);
  const double one = 1.0;
  double *work;
  gs_status st = read_work(m, nthreads, &work, msg);
  if (st != GS_OK) return st;
  double *x = (double *)malloc((size_t)m->n * k * sizeof(double));
  if (!x) {
    free(work);
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  }
  memcpy(x, b, (size_t)m->n * k * sizeof(double));
  /* block row i of L b from the blocks of the copy x: rows are independent */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
  for (int i = 0; i < m->nt; ++i) {
    const int ri = gs_tile_rows(m, i);
    double *bi = b + (size_t)i * m->nb;
    dtrmm_("L", "L", "N", "N", &ri, &nk, &one, gs_tile_at(m, i, i), &ri, bi, &ldb, 1, 1, 1, 1);
    for (int j = 0; j < i; ++j)
      dgemm_("N", "N", &ri, &nk, &m->nb, &one, gs_tile_read(m, i, j, thread_work(m, work)), &ri, x + (size_t)j * m->nb,
             &ldb, &one, bi, &ldb, 1, 1);
  }
  free(x);
  free(work);
  return GS_OK;
}

void gs_tile_upper(const gs_tile_matrix *m, double *r, int threads)
{
  const long n = m->n;
#pragma omp parallel for schedule(dynamic, 1) num_threads(gs_cpu_threads(threads))
  for (int i = 0; i < m->nt; ++i) { /* tile row i of L is tile column i of L' */
    const int ri = gs_tile_rows(m, i);
    for (int j = 0; j <= i; ++j) {
      const int cj = gs_tile_rows(m, j);
      const long t = gs_tile_index(i, j);
      const void *x = gs_tile_ptr(m, i, j);
      for (int c = 0; c < ri; ++c) {
        double *rc = r + (size_t)((long)i * m->nb + c) * n + (long)j * m->nb;
        const int top = (j == i) ? c + 1 : cj;
        for (int q = 0; q < top; ++q) rc[q] = tile_entry_get(x, m->precision[t], m->scale[t], (size_t)q * ri + c);
      }
    }
    for (int c = 0; c < ri; ++c) {
      const long col = (long)i * m->nb + c;
      memset(r + (size_t)col * n + col + 1, 0, (size_t)(n - col - 1) * sizeof(double));
    }
  }
}
