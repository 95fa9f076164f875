/* Gaussian processes on the CPU: the covariance from the Matérn CPU loops,
 * factored by the package's packed dense kernels (gs_dense.h: R's reference
 * BLAS runs the factorization at about 2 GFlop/s, these at 20 to 30 per
 * core) and solved by BLAS (O(n^2) per column of the right-hand side). */
#include <math.h>
#include <string.h>

#include "gp_internal.h"
#include "gs_dense.h"
#include "gs_matern.h"
#include "lapack.h"

/* Columns per block of the factorization, for the interrupt checks between
 * blocks: the widest block (mid-matrix) costs about jb n^2 / 2 multiply-
 * adds, here about 2^32, a fraction of a second at the kernels' speed;
 * from 16 columns, so that the products stay efficient, to 256. */
static int potrf_block(long n)
{
  const double jb = 8589934592.0 / ((double)n * (double)n);
  return jb >= 256.0 ? 256 : jb <= 16.0 ? 16 : (int)jb / 16 * 16;
}

/* The share of the work of a left-looking Cholesky done once its first
 * fraction t of the columns are factored: block column t costs about
 * t (1 - t) n^3, which integrates to 3 t^2 - 2 t^3. */
static double potrf_done(double t) { return t * t * (3.0 - 2.0 * t); }

/* A = L L' in place (lower triangle), in the left-looking column blocks of
 * LAPACK's own dpotrf, so that gp->progress can report and stop it between
 * blocks. */
static gs_status cpu_potrf(gs_gp *gp, long *failed_minor, char *msg)
{
  const int n = (int)gp->n, block = potrf_block(gp->n), threads = gp->threads;
  for (int j = 0; j < n; j += block) {
    const int jb = n - j < block ? n - j : block, below = n - j - jb;
    double *row = gp->a + j, *diag = gp->a + j + (size_t)j * n;
    gs_status st = gs_dense_gemm_nt(jb, jb, j, row, n, row, n, diag, n, 1, threads, msg);
    if (st == GS_OK) st = gs_dense_potrf(jb, diag, n, threads, failed_minor, msg);
    if (st == GS_ERR_NOT_PD) *failed_minor += j;
    if (st == GS_OK) st = gs_dense_gemm_nt(below, jb, j, row + jb, n, row, n, diag + jb, n, 0, threads, msg);
    if (st == GS_OK) st = gs_dense_trsm_rlt(below, jb, diag, n, diag + jb, n, threads, msg);
    if (st != GS_OK) return st;
    if (gp->progress && gp->progress(potrf_done((double)(j + jb) / n))) return gs_interrupted(msg);
  }
  return GS_OK;
}

/* The callback of the object whose matrix is being built, which the build
 * reaches through build_progress: a gs_progress_fn carries no data, and the
 * objects are built and factored on the caller's thread, one at a time. */
static gs_progress_fn build_target;

/* During the build: interrupt checks, with the bar still at 0 (the
 * factorization, which follows, is most of the work). */
static int build_progress(double done)
{
  (void)done;
  return build_target(0.0);
}

gs_status gs_gp_cpu_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor, char *msg)
{
  const gs_matern_cov_args a = gs_matern_cov_self(gp->locs, gp->n, gp->dim, p, gp->a);
  build_target = gp->progress;
  gs_status st = gs_matern_cov_cpu(&a, gp->threads, gp->progress ? build_progress : NULL, msg);
  if (st != GS_OK) return st;
  if (gp->progress && gp->progress(0.0)) return gs_interrupted(msg); /* between the build and the factorization */
  if ((st = cpu_potrf(gp, failed_minor, msg)) != GS_OK) return st;
  double s = 0.0;
  for (long i = 0; i < gp->n; ++i) s += log(gp->a[i + i * gp->n]);
  *logdet = 2.0 * s;
  return GS_OK;
}

gs_status gs_gp_cpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  const int n = (int)gp->n;
  const double one = 1.0;
  if (out != b) memcpy(out, b, (size_t)n * k * sizeof(double));
  /* the forward solve of several columns (replicates of a field, a trend's
   * columns, kriging's blocks) on the packed kernels */
  if (what == GS_GP_FORWARD) return gs_dense_forward_solve(n, k, gp->a, n, out, n, gp->threads, msg);
  if (what == GS_GP_MULTIPLY) {
    dtrmm_("L", "L", "N", "N", &n, &k, &one, gp->a, &n, out, &n, 1, 1, 1, 1);
    return GS_OK;
  }
  dtrsm_("L", "L", "N", "N", &n, &k, &one, gp->a, &n, out, &n, 1, 1, 1, 1); /* GS_GP_SOLVE */
  dtrsm_("L", "L", "T", "N", &n, &k, &one, gp->a, &n, out, &n, 1, 1, 1, 1);
  return GS_OK;
}
