/* Tile Cholesky factorization of a symmetric positive-definite matrix held as
 * the tiles of its lower triangle in host memory: left-looking, with a static
 * schedule, on all CPU cores or on a GPU whose memory need not hold the matrix
 * (a tile cache with optimal eviction decides what crosses the bus). */
#ifndef GS_TILE_H
#define GS_TILE_H

#include "gs_common.h"
#include "gs_matern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lower triangle of an n x n matrix in nb x nb tiles, nt = ceil(n / nb)
 * tile rows; tile (i, j), i >= j, is column-major with leading dimension
 * gs_tile_rows(m, i) and starts at data + offset[gs_tile_index(i, j)]. */
typedef struct {
  long n;
  int nb, nt;
  double *data;
  size_t *offset;
  int pinned; /* data is page-locked (GPU builds), so copies run at bus speed */
} gs_tile_matrix;

static inline long gs_tile_index(int i, int j) { return (long)i * (i + 1) / 2 + j; }
static inline long gs_tile_count(int nt) { return (long)nt * (nt + 1) / 2; }
/* The (i, j) of tile index t. */
static inline void gs_tile_coords(long t, int *i, int *j)
{
  int r = (int)((__builtin_sqrt(8.0 * (double)t + 1.0) - 1.0) / 2.0);
  while (gs_tile_index(r + 1, 0) <= t) ++r;
  while (gs_tile_index(r, 0) > t) --r;
  *i = r;
  *j = (int)(t - gs_tile_index(r, 0));
}
static inline int gs_tile_rows(const gs_tile_matrix *m, int i)
{
  return (i < m->nt - 1) ? m->nb : (int)(m->n - (long)(m->nt - 1) * m->nb);
}
static inline double *gs_tile_at(const gs_tile_matrix *m, int i, int j)
{
  return m->data + m->offset[gs_tile_index(i, j)];
}

/* The tile size for an n x n matrix on `device` (< 0: the CPU with
 * `threads` threads and R's BLAS). */
int gs_tile_default_size(long n, int device, int threads);

/* pinned: allocate page-locked memory when a GPU is present (else plain). */
gs_status gs_tile_matrix_create(long n, int nb, int pinned, gs_tile_matrix **out, char *msg);
void gs_tile_matrix_free(gs_tile_matrix *m);

/* What the matrix is: a dense column-major matrix (only its lower triangle is
 * read), or a Matérn covariance generated tile by tile where it is used, so
 * that the n x n matrix never exists outside the tiles. */
typedef struct {
  const double *a; /* n x n, leading dimension lda; NULL for a Matérn source */
  long lda;
  const double *locs; /* n x dim, column-major */
  int dim, metric;
  double sigma2, range, smoothness, nugget;
} gs_tile_source;

/* A dense source before it is factored, in one pass on `threads` threads and
 * without temporaries: GS_ERR_ARG with a message when an entry is not finite
 * or the matrix is not symmetric in the sense of R's isSymmetric() (the mean
 * absolute difference between A and A' above 100 eps times the mean
 * absolute entry). */
gs_status gs_tile_source_check(const gs_tile_source *src, long n, int threads, char *msg);

/* The tiles of the source into m, on `threads` CPU threads. */
gs_status gs_tile_fill(gs_tile_matrix *m, const gs_tile_source *src, int threads, char *msg);

/* The locations of a Matérn source regrouped by tile row: those of row i as
 * one column-major gs_tile_rows(m, i) x dim block from i * nb * dim. The
 * caller frees it; NULL when out of memory. */
double *gs_tile_locs_blocked(const gs_tile_matrix *m, const gs_tile_source *src);

typedef struct {
  int cache_tiles;   /* GPU: tile slots in device memory; 0 = as many as fit */
  int threads;       /* CPU: threads (<= 0: all) */
  gs_progress_fn progress;
  int trace;         /* GPU: time every op (see gs_tile_info.trace) */
} gs_tile_options;

/* One row of an event trace: the stream (0..3 compute, 4 the diagonal, 5 host
 * to device, 6 device to host), the op (tile_op_kind), its tile coordinates and its start
 * and end in seconds from the start of the factorization. */
enum { GS_TILE_TRACE_COLS = 7 };

typedef struct {
  double logdet;        /* log det A = 2 sum log diag L */
  long failed_minor;    /* > 0: the order of the first leading minor that is not positive */
  double seconds;       /* wall time of the factorization */
  double bytes_to_device, bytes_to_host;
  long tile_loads;      /* tiles copied (or generated) into device memory */
  int cache_tiles;      /* slots used */
  int workers;          /* compute streams (GPU) or threads (CPU) */
  double *trace;        /* with opt->trace: trace_rows x GS_TILE_TRACE_COLS, row-major; the caller frees it */
  long trace_rows;
} gs_tile_info;

/* Factors A = L L' in place (the tiles of m become those of L). The source
 * fills the tiles first (CPU), or the GPU reads them from m (src->a != NULL,
 * after gs_tile_fill) or generates them in device memory (Matérn source).
 * A matrix that is not positive definite: GS_ERR_NOT_PD with
 * info->failed_minor set. device < 0: the CPU. */
gs_status gs_tile_chol(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                       gs_tile_info *info, char *msg);
gs_status gs_tile_chol_cpu(gs_tile_matrix *m, const gs_tile_options *opt, gs_tile_info *info, char *msg);
gs_status gs_tile_chol_gpu(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                           gs_tile_info *info, char *msg);

/* With L from gs_tile_chol, in place on b (n x k, column-major):
 * L^-1 b (GS_TILE_FORWARD), L'^-1 b (GS_TILE_BACKWARD) or A^-1 b (both). */
enum { GS_TILE_FORWARD = 1, GS_TILE_BACKWARD = 2, GS_TILE_SOLVE = 3 };
gs_status gs_tile_solve(const gs_tile_matrix *m, int what, double *b, long k, int threads, char *msg);

/* b = L b in place (b: n x k, column-major); with z standard normal, L z is
 * a draw with covariance A. */
gs_status gs_tile_multiply(const gs_tile_matrix *m, double *b, long k, int threads, char *msg);

/* log det A = 2 sum log diag L. */
double gs_tile_logdet(const gs_tile_matrix *m);

/* L' (upper triangular, like R's chol) as an n x n column-major matrix. */
void gs_tile_upper(const gs_tile_matrix *m, double *r, int threads);

/* Page-locked host memory where a GPU build can have it, plain otherwise;
 * *pinned says which, for gs_host_free. */
void *gs_host_alloc(size_t bytes, int want_pinned, int *pinned);
void gs_host_free(void *p, int pinned);

#ifdef __cplusplus
}
#endif

#endif
