/* Tile Cholesky factorization of a symmetric positive-definite matrix held as
 * the tiles of its lower triangle in host memory: left-looking, with a static
 * schedule, on all CPU cores or on a GPU whose memory need not hold the matrix
 * (a tile cache with optimal eviction decides what crosses the bus). The
 * public interface, used by the R glue and the Gaussian-process domain; the
 * tile folder's own declarations are in tile_internal.h. */
#ifndef GS_TILE_H
#define GS_TILE_H

#include "gs_common.h"
#include "gs_host_pages.h"
#include "gs_matern.h"
#include "tile_precision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A factor kept in the memory of the GPU that computed it
 * (gs_tile_options.resident): tile t of L, in its format, starts slot[t] *
 * nb * nb doubles into `tiles`; the diagonal of L is also on the host, for
 * the log-determinant and the pivots. */
typedef struct {
  int device;
  void *tiles;      /* device memory for every tile, nb * nb doubles each */
  int *slot;        /* per tile */
  double *diagonal; /* n, host */
} gs_tile_resident;

/* The lower triangle of an n x n matrix in nb x nb tiles, nt = ceil(n / nb)
 * tile rows; tile (i, j), i >= j, is column-major with leading dimension
 * gs_tile_rows(m, i), in the format precision[t] (tile_precision.h; the
 * diagonal tiles are FP64), and starts offset[t] bytes into data, with
 * t = gs_tile_index(i, j). After a factorization that kept L on a GPU,
 * resident holds it and data (if any) does not. */
typedef struct {
  long n;
  int nb, nt;
  unsigned char *data;
  size_t *offset;
  unsigned char *precision;
  float *scale;           /* FP16 and FP8 tiles hold scale[t] times the values (tile_scale) */
  unsigned char *overflow; /* set by a factorization for the tiles whose values did not fit their format */
  long low_tiles;         /* tiles not in FP64 */
  size_t layout_bytes;    /* the tiles in their formats */
  size_t bytes;           /* allocated at data, >= layout_bytes once gs_tile_matrix_host has run */
  int want_pinned;
  gs_host_pages *pages; /* data's memory, page-locked by pieces in GPU builds */
  /* Wall time spent allocating data, summed over the matrix's life; with
   * the pages' own (first touch and page-locking on the calling thread,
   * gs_tile_host_seconds) a factorization reports its share
   * (gs_tile_info.host_seconds). */
  double host_seconds;
  gs_tile_resident *resident;
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
static inline void *gs_tile_ptr(const gs_tile_matrix *m, int i, int j)
{
  return m->data + m->offset[gs_tile_index(i, j)];
}
/* An FP64 tile. */
static inline double *gs_tile_at(const gs_tile_matrix *m, int i, int j) { return (double *)gs_tile_ptr(m, i, j); }
static inline size_t gs_tile_bytes(const gs_tile_matrix *m, long t)
{
  int i, j;
  gs_tile_coords(t, &i, &j);
  return (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j) * tile_precision_bytes(m->precision[t]);
}

/* The tile size for an n x n matrix on `device` (< 0: the CPU with R's
 * BLAS), the same for any number of threads. */
int gs_tile_default_size(long n, int device);

/* pinned: allocate page-locked memory when a GPU is present (else plain).
 * The tiles get their host memory from gs_tile_matrix_host (gs_tile_chol
 * calls it where the tiles pass through the host). */
gs_status gs_tile_matrix_create(long n, int nb, int pinned, gs_tile_matrix **out, char *msg);
void gs_tile_matrix_free(gs_tile_matrix *m);
/* L_rr, from the host tiles or the resident factor's copy. */
static inline double gs_tile_factor_diagonal(const gs_tile_matrix *m, long r)
{
  if (m->resident) return m->resident->diagonal[r];
  const int k = (int)(r / m->nb), c = (int)(r % m->nb);
  return gs_tile_at(m, k, k)[(size_t)c * gs_tile_rows(m, k) + c];
}
/* What the matrix is: a dense column-major matrix (only its lower triangle is
 * read), or a Matérn covariance generated tile by tile where it is used, so
 * that the n x n matrix never exists outside the tiles. */
typedef struct {
  const double *a; /* n x n, leading dimension lda; NULL for a Matérn source */
  long lda;
  const double *locs; /* n x dim, column-major */
  int dim;
  gs_cov_model model; /* the nugget on the diagonal */
} gs_tile_source;

/* A dense source before it is factored, in one pass on `threads` threads and
 * without temporaries: GS_ERR_ARG with a message when an entry is not finite
 * or the matrix is not symmetric in the sense of R's isSymmetric() (the mean
 * absolute difference between A and A' above 100 eps times the mean
 * absolute entry). */
gs_status gs_tile_source_check(const gs_tile_source *src, long n, int threads, char *msg);

typedef struct {
  int cache_tiles;   /* GPU: tile slots in device memory; 0 = as many as fit */
  int threads;       /* CPU: threads (<= 0: all) */
  gs_progress_fn progress;
  int trace;         /* GPU: time every op (see gs_tile_info.trace) */
  double accuracy;   /* > 0: mixed precision with this accuracy (gs_tile_precision_map); 0: all FP64 */
  /* > 0, in mixed precision: a tile row whose low-precision tiles may move
   * its diagonal block's Schur complement by more than pivot_share times
   * the smallest pivot (L_ii^2) of that block is promoted (tile_chol.c). */
  double pivot_share;
  /* GPU: keep L in device memory when every tile fits there, so that no
   * tile crosses to the host and the solves run on the GPU; else (out of
   * core) L goes to host memory as without it. */
  int resident;
  /* ngpus > 1: the factorization runs on the GPUs gpus[0..ngpus-1] (the
   * device argument is ignored), each with the tile rows that
   * tile_row_owner gives its index, L to host memory; at most
   * GS_TILE_MAX_GPUS. */
  const int *gpus;
  int ngpus;
  /* With pivot_share > 0: one gs_tile_precision per tile, read and
   * written, or NULL. Read: each tile starts in at least this precision, as
   * an earlier factorization of a similar matrix needed (gp_fit's
   * successive covariances; GS_TILE_FP16 everywhere sets no floor, as FP16
   * is their lowest format); written after a factor that passes the pivot
   * test: the precisions this factor says its rows need (tile_chol.c). */
  unsigned char *precision_floor;
  /* Mixed precision: the farthest tiles may go down to FP8 (E4M3); else
   * FP16 is the lowest format. */
  int fp8;
} gs_tile_options;

#define GS_TILE_MAX_GPUS 16

/* One row of an event trace: the stream (GS_TILE_STREAM_KINDS), the op (tile_op_kind), its tile coordinates, its start
 * and end in seconds from the start of the factorization, and the device (its
 * index in gpus). */
enum { GS_TILE_TRACE_COLS = 8 };

typedef struct {
  double logdet;        /* log det A = 2 sum log diag L */
  long failed_minor;    /* > 0: the order of the first leading minor that is not positive */
  double seconds;       /* wall time of the factorization */
  /* Of seconds, those spent obtaining the factor's host memory (every
   * attempt); 0 when the memory of an earlier factorization of the same
   * matrix was reused, as a Gaussian-process fit does between factorizations. */
  double host_seconds;
  double bytes_to_device, bytes_to_host;
  long tile_loads;      /* tiles copied (or generated) into device memory */
  int cache_tiles;      /* slots used */
  int workers;          /* compute streams (GPU) or threads (CPU) */
  double *trace;        /* with opt->trace: trace_rows x GS_TILE_TRACE_COLS, row-major; the caller frees it */
  long trace_rows;
  int attempts;         /* factorizations run: more than one when tiles were promoted */
} gs_tile_info;

/* Factors A = L L' in place (the tiles of m become those of L). The source
 * fills the tiles first (CPU), or the GPU reads them from m (src->a != NULL,
 * after gs_tile_fill) or generates them in device memory (Matérn source).
 * A matrix that is not positive definite: GS_ERR_NOT_PD with
 * info->failed_minor set. device < 0: the CPU.
 * In mixed precision (opt->accuracy > 0) m is laid out by the precision
 * map; when values do not fit a tile's format, or a diagonal tile is not
 * positive definite while lower-precision tiles feed it, those tiles are
 * promoted one precision and the factorization is run again; so are the
 * tiles of rows that fail opt->pivot_share's test that add the most
 * rounding. */
gs_status gs_tile_chol(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                       gs_tile_info *info, char *msg);

/* With L from gs_tile_chol, in place on b (n x k, column-major, host):
 * L^-1 b (GS_TILE_FORWARD), L'^-1 b (GS_TILE_BACKWARD) or A^-1 b (both bits);
 * on the GPU for a resident factor. Code, the name R knows it by, its value;
 * the enum and the table R reads at load (gs_r_tables) are generated from
 * this list. */
#define GS_TILE_SOLVE_KINDS(X)               \
  X(GS_TILE_FORWARD, "forward", 1)           \
  X(GS_TILE_BACKWARD, "backward", 2)         \
  X(GS_TILE_SOLVE, "solve", 3)

#define GS_TILE_SOLVE_ENUM_ENTRY(code, name, value) code = value,
enum { GS_TILE_SOLVE_KINDS(GS_TILE_SOLVE_ENUM_ENTRY) };
#undef GS_TILE_SOLVE_ENUM_ENTRY
gs_status gs_tile_solve(const gs_tile_matrix *m, int what, double *b, long k, int threads, char *msg);

/* b = L b in place (b: n x k, column-major, host); with z standard normal,
 * L z is a draw with covariance A. */
gs_status gs_tile_multiply(const gs_tile_matrix *m, double *b, long k, int threads, char *msg);

/* L' (upper triangular, like R's chol) as an n x n column-major matrix. */
void gs_tile_upper(const gs_tile_matrix *m, double *r, int threads);

#ifdef __cplusplus
}
#endif

#endif
