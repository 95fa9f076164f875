/* Gaussian-process objects: argument checks and the choice of backend. */
#include <stdlib.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "gp_internal.h"
#include "gs_cpu.h"

/* The CPU backend calls 32-bit LAPACK: a larger order would overflow it. */
#define GP_CPU_MAX_N 46340L

/* In mixed precision the tiles move Sigma by up to accuracy ||Sigma||_F. A
 * likelihood means something only while the rounding stays well below the
 * smallest eigenvalue, which an ill-conditioned covariance (long range,
 * high smoothness) makes tiny: there tile rows whose rounding exceeds this
 * share of their smallest pivot are promoted (gs_tile_options.pivot_share). */
#define GP_PIVOT_SHARE 0.1

/* From this order on, a GPU factors the covariance faster tile by tile
 * (2048-row tiles, the factor kept in device memory) than cuSOLVER's
 * Xpotrf does on the whole matrix, and in half the memory (the crossover
 * as measured on an H100; figures in BENCHMARKS.md). */
#define GP_GPU_TILES_MIN_N 32768L

/* A factor whose smallest pivot L_ii^2 is below this many times n eps times
 * its largest is numerically singular: the rounding of the factorization
 * (about n eps times the largest pivot) leaves that pivot no correct digit,
 * and the likelihood is rounding noise (measured: at 30 points with range
 * 10 and smoothness 3, a ratio of 7e-15, two orders of the locations gave
 * log-likelihoods 7 % apart). */
#define GP_SINGULAR_PIVOTS 10.0

/* The tiled backend: the lower triangle in tiles of host memory, page-locked
 * for a GPU; in mixed precision, a floor on the tiles' precisions that the
 * factorizations pass on, none at first. */
static gs_status gp_tiles_create(gs_gp *gp, char *msg)
{
  const int nb = gs_tile_default_size(gp->n, gp->device);
  gs_status st = gs_tile_matrix_create(gp->n, nb, gp->device >= 0, &gp->tiles, msg);
  if (st != GS_OK || !(gp->accuracy > 0.0)) return st;
  const long ntiles = gs_tile_count(gp->tiles->nt);
  if (!(gp->precision_floor = (unsigned char *)malloc((size_t)ntiles)))
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  memset(gp->precision_floor, GS_TILE_FP16, (size_t)ntiles);
  return GS_OK;
}

/* The dense CPU backend while the matrix fits LAPACK and half the memory. */
static int gp_cpu_dense_fits(long n)
{
  const double mem = gs_host_memory_bytes();
  return n <= GP_CPU_MAX_N && (mem <= 0 || 8.0 * (double)n * (double)n <= 0.5 * mem);
}

gs_status gs_gp_create(int device, const double *locs, long n, int dim, int threads,
                       gs_gp_backend backend, double accuracy, gs_progress_fn progress, gs_gp **out, char *msg)
{
  gs_status st = GS_OK;
  const int tiles_faster = device >= 0 && n >= GP_GPU_TILES_MIN_N;
  if (n < 1 || dim < 1) return gs_set_msg(msg, GS_ERR_ARG, "a Gaussian process needs at least one location");
  if (!(accuracy >= 0.0 && accuracy < 1.0))
    return gs_set_msg(msg, GS_ERR_ARG, "the accuracy of a mixed-precision factorization must be in (0, 1)");
  gs_gp *gp = (gs_gp *)calloc(1, sizeof *gp);
  if (!gp) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  gp->device = device;
  gp->n = n;
  gp->dim = dim;
  gp->threads = threads;
  gp->accuracy = accuracy;
  gp->progress = progress;
  gp->locs = (double *)malloc((size_t)n * dim * sizeof(double));
  if (!gp->locs) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto fail;
  }
  memcpy(gp->locs, locs, (size_t)n * dim * sizeof(double));
  if (backend == GS_GP_BACKEND_TILES || accuracy > 0.0 || (backend == GS_GP_BACKEND_AUTO && tiles_faster)) {
    st = gp_tiles_create(gp, msg);
  } else if (device >= 0) {
    st = gs_gp_gpu_init(gp, msg);
    if (st == GS_ERR_NOMEM) st = gp_tiles_create(gp, msg); /* the matrix does not fit on the device */
  } else if (gp_cpu_dense_fits(n)) {
    gp->a = (double *)malloc((size_t)n * n * sizeof(double));
    if (!gp->a) st = gp_tiles_create(gp, msg);
  } else {
    st = gp_tiles_create(gp, msg);
  }
  if (st != GS_OK) goto fail;
  *out = gp;
  return GS_OK;
fail:
  gs_gp_free(gp);
  return st;
}

void gs_gp_free(gs_gp *gp)
{
  if (!gp) return;
  if (gp->device >= 0) gs_gp_gpu_release(gp);
  gs_tile_matrix_free(gp->tiles);
  free(gp->precision_floor);
  free(gp->a);
  free(gp->locs);
  free(gp);
}

gs_status gs_gp_set_locations(gs_gp *gp, const double *locs, char *msg)
{
  memcpy(gp->locs, locs, (size_t)gp->n * gp->dim * sizeof(double));
  gp->factored = 0;
  /* the tiled backend reads the host copy at each factorization */
  if (gp->device >= 0 && !gp->tiles) return gs_gp_gpu_upload_locations(gp, msg);
  return GS_OK;
}

long gs_gp_size(const gs_gp *gp) { return gp->n; }

int gs_gp_tiled(const gs_gp *gp) { return gp->tiles != NULL; }

int gs_gp_attempts(const gs_gp *gp) { return gp->attempts; }

static gs_status gp_tiles_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor, char *msg)
{
  const gs_tile_source src = {.locs = gp->locs, .dim = gp->dim, .model = *p};
  const gs_tile_options opt = {.threads = gp->threads,
                               .progress = gp->progress,
                               .accuracy = gp->accuracy,
                               .pivot_share = GP_PIVOT_SHARE,
                               .resident = 1,
                               .precision_floor = gp->precision_floor};
  gs_tile_info info;
  gs_status st = gs_tile_chol(gp->device, gp->tiles, &src, &opt, &info, msg);
  gp->attempts = info.attempts;
  *failed_minor = info.failed_minor;
  if (st == GS_OK) *logdet = info.logdet;
  return st;
}

/* The solves of the tiled backend run where the factor is: on the GPU that
 * kept it, else on the CPU. */
static gs_status gp_tiles_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  if (out != b) memcpy(out, b, (size_t)gp->n * k * sizeof(double));
  if (what == GS_GP_MULTIPLY) return gs_tile_multiply(gp->tiles, out, k, gp->threads, msg);
  return gs_tile_solve(gp->tiles, what == GS_GP_SOLVE ? GS_TILE_SOLVE : GS_TILE_FORWARD, out, k, gp->threads, msg);
}

/* L_ii of the last factor, from the backend that holds it. */
static double gp_factor_diagonal(const gs_gp *gp, long i)
{
  if (gp->tiles) return gs_tile_factor_diagonal(gp->tiles, i);
  if (gp->device >= 0) return gs_gp_gpu_diagonal(gp)[i];
  return gp->a[i + i * gp->n];
}

/* GS_ERR_NOT_PD for a numerically singular factor (GP_SINGULAR_PIVOTS),
 * naming the leading minor whose last pivot is the smallest. */
static gs_status gp_check_pivots(const gs_gp *gp, long *failed_minor, char *msg)
{
  double smallest = INFINITY, largest = 0.0;
  long at = 0;
  for (long i = 0; i < gp->n; ++i) {
    const double l = gp_factor_diagonal(gp, i), pivot = l * l;
    if (pivot < smallest) smallest = pivot, at = i;
    if (pivot > largest) largest = pivot;
  }
  const double ratio = smallest / largest;
  if (ratio >= GP_SINGULAR_PIVOTS * (double)gp->n * DBL_EPSILON) return GS_OK;
  *failed_minor = at + 1;
  return gs_set_msg(msg, GS_ERR_NOT_PD,
                    "the covariance is numerically singular: the last pivot of its leading minor of order %ld is "
                    "%.2g times the largest, within the rounding of the factorization",
                    *failed_minor, ratio);
}

gs_status gs_gp_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor, char *msg)
{
  gs_status check = gs_cov_model_check(p, gp->dim, msg);
  if (check != GS_OK) return check;
  gp->factored = 0;
  gp->attempts = 1;
  *failed_minor = 0;
  gs_status st = gp->tiles         ? gp_tiles_factor(gp, p, logdet, failed_minor, msg)
                 : gp->device >= 0 ? gs_gp_gpu_factor(gp, p, logdet, failed_minor, msg)
                                   : gs_gp_cpu_factor(gp, p, logdet, failed_minor, msg);
  if (st == GS_ERR_NOT_PD) /* one wording for every backend, chol()'s */
    gs_set_msg(msg, st, "the leading minor of order %ld is not positive", *failed_minor);
  if (st == GS_OK) st = gp_check_pivots(gp, failed_minor, msg);
  gp->factored = (st == GS_OK);
  return st;
}

gs_status gs_gp_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  if (!gp->factored) return gs_set_msg(msg, GS_ERR_ARG, "the covariance has not been factored");
  if (what < GS_GP_FORWARD || what > GS_GP_SOLVE || k < 0) return gs_set_msg(msg, GS_ERR_ARG, "bad gs_gp_apply call");
  if (k == 0) return GS_OK;
  if (gp->tiles) return gp_tiles_apply(gp, what, b, k, out, msg);
  return (gp->device >= 0) ? gs_gp_gpu_apply(gp, what, b, k, out, msg) : gs_gp_cpu_apply(gp, what, b, k, out, msg);
}

gs_status gs_gp_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg)
{
  if (!gp->factored) return gs_set_msg(msg, GS_ERR_ARG, "the covariance has not been factored");
  gs_status st = gs_cov_model_check(&a->model, gp->dim, msg);
  if (st != GS_OK) return st;
  if (a->deriv <= 0 || (a->deriv & ~gs_cov_family_derivable(a->model.family)) || a->p < 0 || (a->p > 0 && !a->x) || a->k < 0 || (a->k > 0 && !a->u) ||
      a->p >= gp->n)
    return gs_set_msg(msg, GS_ERR_ARG, "bad gs_gp_derivatives call");
  if (gp->tiles)
    return gs_set_msg(msg, GS_ERR_ARG, "the likelihood's derivatives need the whole factor; this covariance was factored "
                                       "by the tile Cholesky");
  if (gp->device >= 0) return gs_gp_gpu_derivatives(gp, a, msg);
  return gs_gp_cpu_derivatives(gp, a, msg);
}
